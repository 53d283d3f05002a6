"""A first model of a live table drafted from its description and a sample of its items
(`dynagate model infer`), to be reviewed and edited from there.

The layout is the description's: the table's and each index's key attributes, their types
and projections. The entities are the groups the items fall into: by a discriminator
where the items hold one (`__edb_e__`, `_type`, or an attribute of a few short values
whose items are each keyed alike), else by the shape of their keys (`ORG#…` / `EVENT#…`).
Each group's keys become templates (`data/inference/key_formats.py`), its other attributes kinds
(`data/inference/kinds.py`), and an entity whose partition is another's that entity's
child; `data/inference/source.py` writes the draft as Python.

Drafting is pure (`drafted`); only `sampled` reads the table, within a budget of items.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from data.inference.groups import groups, majority
from data.inference.inspection import pages
from data.inference.key_formats import (
    Binding,
    DraftedKey,
    drafted_key,
    head,
    number_key,
    parts,
    words,
)
from data.inference.kinds import Drafted, field_name, kind_of, offered
from keys.table import Index, Layout, LayoutError
from model.entities import ENGINE_ATTRIBUTES, plural
from model.layout_checks import ENGINE_LABELS
from store.client import Store
from store.requests import Item

# The names no entity may take: GraphQL's and the schema's own types.
_RESERVED = {"Query", "Mutation", "Subscription", "String", "Int", "Float", "Boolean", "ID"}
_RESERVED |= {"DateTime", "PageInfo", "Node", "SortDirection", "DateTimeRange", "IntRange"}
_RESERVED |= {"Viewport", "Heatmap", "Cell", "Change", "JSON"}
EXAMPLES = 3


class InferenceError(ValueError):
    """A table no model can be drafted for: said in one line."""


@dataclass
class EntityDraft:
    """One entity of the draft: its items' group, keys, attributes and parent."""

    name: str
    items: int
    told: str
    discriminator: tuple[str, str, dict[str, str]] | None
    attributes: list[Drafted]
    keys: dict[Index, tuple[DraftedKey, DraftedKey]]
    parent: tuple[str, dict[str, str]] | None = None
    lists: list[tuple[Index, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    made: list[str] = field(default_factory=list)


@dataclass
class Draft:
    """A model drafted from a table's description and a sample of its items."""

    table: str
    scanned: int
    layout: Layout
    entities: list[EntityDraft]
    told_by: str | None
    notes: list[str] = field(default_factory=list)


async def sampled(store: Store, budget: int) -> tuple[list[Item], int]:
    """Up to `budget` items of the table read by a Scan, and how many it evaluated."""
    items: list[Item] = []
    scanned = 0
    async for page in pages(store, budget):
        items += page.items
        scanned += page.scanned
    return items, scanned


def layout_of(description: Mapping[str, Any]) -> tuple[Layout, list[str]]:
    """The table's layout as its description has it, and what it leaves out, said."""
    types = {
        a["AttributeName"]: a["AttributeType"] for a in description.get("AttributeDefinitions", [])
    }
    table = _keys(description.get("KeySchema", []))
    name = description.get("TableName", "the table")
    if table[1] is None:
        raise InferenceError(
            f"table {name!r} is keyed by {table[0]!r} alone: dynagate serves a table keyed by"
            " a partition key and a sort key"
        )
    if any(types.get(a) != "S" for a in table):
        raise InferenceError(
            f"table {name!r} is keyed {' + '.join(f'{a} ({types.get(a)})' for a in table if a)}:"
            " the engine keys its own items as strings (S), so it serves only such a table"
        )
    notes: list[str] = []
    indexes: list[Index] = []
    described = [(i, False) for i in description.get("GlobalSecondaryIndexes") or []]
    described += [(i, True) for i in description.get("LocalSecondaryIndexes") or []]
    for index, local in described:
        partition, sort = _keys(index["KeySchema"])
        if sort is None:
            notes.append(
                f"index {index['IndexName']} is keyed by {partition} alone, which a layout does"
                " not declare: left out, as dynagate reads no such index"
            )
            continue
        projection = index.get("Projection", {})
        indexes.append(
            Index(
                index["IndexName"],
                partition,
                sort,
                projection.get("ProjectionType", "ALL"),
                (types.get(partition, "S"), types.get(sort, "S")),
                tuple(projection.get("NonKeyAttributes", ())),
                local=local,
            )
        )
        if "B" in (types.get(partition), types.get(sort)):
            notes.append(
                f"index {index['IndexName']} has binary keys (B): the draft declares no"
                " entity's keys there"
            )
    try:
        return Layout(Index(None, table[0], table[1]), tuple(indexes)), notes
    except LayoutError as exc:
        raise InferenceError(f"table {name!r}: {exc}") from None


def _keys(schema: Sequence[Mapping[str, str]]) -> tuple[str, str | None]:
    kinds = {k["KeyType"]: k["AttributeName"] for k in schema}
    return kinds.get("HASH", ""), kinds.get("RANGE")


def drafted(
    description: Mapping[str, Any], items: Sequence[Item], *, table: str, scanned: int
) -> Draft:
    """The model drafted from the table's `description` and the `items` of a sample of
    `scanned`; InferenceError for a table no model can serve or no item to draft from."""
    layout, notes = layout_of(description)
    pk, sk = layout.table.attributes
    keyed = [i for i in items if isinstance(i.get(pk), str) and isinstance(i.get(sk), str)]
    ours = [i for i in keyed if re.split("[#/~]", i[pk])[0] not in ENGINE_LABELS]
    if not ours:
        raise InferenceError(
            f"table {table!r} holds no items to draft entities from (a sample of {scanned}):"
            " declare them by hand (docs/model.md), or run this again once it holds some"
        )
    if len(ours) < len(keyed):
        notes.append(f"{len(keyed) - len(ours)} items of the sample are dynagate's own")
    if len(keyed) < len(items):
        notes.append(f"{len(items) - len(keyed)} items lack the table's keys as strings")
    grouped = groups(ours, layout)
    told, leftover = grouped.told, grouped.leftover
    offers = offered()
    entities: list[EntityDraft] = []
    taken: set[str] = set()
    for group, (hint, members) in sorted(grouped.groups.items(), key=lambda g: (g[1][0], g[0])):
        kept, others = majority(members, pk, sk)
        leftover += others
        name = _entity_name(hint, taken)
        taken.add(name)
        entities.append(_entity(name, group if told else None, kept, layout, told, offers))
    if leftover:
        shown = "; ".join(f"{i[pk]} / {i[sk]}" for i in leftover[:EXAMPLES])
        notes.append(f"{len(leftover)} items of no entity drafted (for example {shown})")
    _find_parents(entities, layout)
    return Draft(table, scanned, layout, entities, told, notes)


def _entity_name(hint: str, taken: set[str]) -> str:
    found = [w for w in words(hint) if not w.isdigit()] or ["Item"]
    base = "".join(
        w[:1].upper() + w[1:].lower() if w.isupper() else w[:1].upper() + w[1:] for w in found
    )
    if base[0].isdigit():
        base = "E" + base
    if base in _RESERVED or base.upper() in ENGINE_LABELS:
        base += "Item"
    name, number = base, 2
    while name in taken:
        name, number = f"{base}{number}", number + 1
    return name


def _entity(
    name: str,
    value: str | None,
    items: list[Item],
    layout: Layout,
    told: str | None,
    offers: frozenset[str],
) -> EntityDraft:
    pk, sk = layout.table.attributes
    more = {
        raw: items[0][raw]
        for raw in dict.fromkeys(n for i in items for n in i)
        if told
        and raw.startswith("__")
        and raw != told
        and raw not in layout.key_attributes
        and all(isinstance(i.get(raw), str) and i[raw] == items[0][raw] for i in items)
    }
    discriminator = None
    if told and value is not None and (told != "type" or value != name.upper() or more):
        discriminator = (told, value, more)
    how = (
        f"{told} = {value!r}"
        if told
        else f"its keys {_said_key(items[0][pk])} / {_said_key(items[0][sk])}"
    )
    draft = EntityDraft(name, len(items), how, discriminator, [], {})
    skipped = {*layout.key_attributes, *(() if told is None else (told,)), *more}
    names: dict[str, tuple[str, str | None]] = {}
    taken = set(ENGINE_ATTRIBUTES)
    for raw in dict.fromkeys(n for i in items for n in i):
        if raw in skipped:
            continue
        named = field_name(raw, taken)
        if named is None:
            why = (
                "the engine's own name" if raw in ENGINE_ATTRIBUTES else "a name no attribute takes"
            )
            draft.notes.append(f"{raw!r} is {why}: not declared")
            continue
        names[raw] = named
        taken.add(named[0])
    pool: dict[str, list[Any]] = {n: [i.get(raw) for i in items] for raw, (n, _) in names.items()}
    bound: dict[str, Binding] = {}
    made: dict[str, tuple[str, ...]] = {}
    for index in layout.all:
        if "B" in index.types:
            continue
        typed = dict(zip(index.attributes, index.types, strict=True))
        holding = [i for i in items if all(_holds(i.get(a), typed[a]) for a in index.attributes)]
        if not holding:
            continue
        where = index.name or "the table"
        if len(holding) < len(items):
            draft.notes.append(
                f"{len(holding)} of its {len(items)} items hold keys on {where}: a sparse index"
                " (`sparse=`), left out"
            )
            continue
        texts = [a for a in index.attributes if typed[a] == "S"]
        if len({tuple(parts(i[a])[1] for a in texts) for i in items}) > 1:
            draft.notes.append(f"its keys on {where} are of several shapes: left out")
            continue
        both = []
        for attribute in index.attributes:
            values = [i[attribute] for i in items]
            if typed[attribute] == "N":
                number = number_key(values, pool)
                if number is None:
                    draft.notes.append(
                        f"its keys on {where} are left out: no attribute holds the number"
                        f" {attribute} holds"
                    )
                    break
                found = number
            else:
                found = drafted_key(values, {**pool, **made}, taken | set(made))
            made.update(found.made)
            bound.update({b.name: b for b in found.bindings if b.name not in bound})
            both.append(found)
        else:
            draft.keys[index] = (both[0], both[1])
    if layout.table not in draft.keys:
        raise AssertionError("every item of a group holds the table's keys")
    for made_name, held in made.items():
        kind = kind_of(made_name, held, optional=False, keyed=True, offers=offers)
        draft.attributes.append(kind)
        draft.made.append(made_name)
    for attribute, stored in sorted(names.values()):
        binding = bound.get(attribute)
        values = pool[attribute]
        kind = kind_of(
            attribute,
            values,
            optional=binding is None and any(v is None for v in values),
            keyed=binding is not None and not binding.numeric,  # a number key holds numbers
            width=None if binding is None else binding.width,
            offers=offers,
        )
        if stored is not None:
            kind.options["stored"] = stored
        draft.attributes.append(kind)
    order = list(bound)
    draft.attributes.sort(key=lambda a: order.index(a.name) if a.name in order else len(order))
    return draft


def _holds(value: Any, typed: str) -> bool:
    """Whether `value` is one a key of that type holds."""
    if typed == "N":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, str)


def _said_key(key: str) -> str:
    return head(key) + ("…" if key != head(key) else "")


def _find_parents(entities: list[EntityDraft], layout: Layout) -> None:
    """Each entity whose partition on an index is written as another's on the table, the
    same texts around as many attributes, that entity's child, listed on that index."""
    for child in entities:
        for index, (partition, sort) in child.keys.items():
            for parent in entities:
                mine, theirs = parent.keys[layout.table]
                if parent is child or not _alike(partition, mine):
                    continue
                mapping = {
                    a.name: b.name for a, b in zip(partition.bindings, mine.bindings, strict=True)
                }
                if not {b.name for b in theirs.bindings} <= set(mapping.values()):
                    continue
                child.parent = (parent.name, mapping)
                their_sort = parent.keys.get(index, (None, None))[1]
                if (
                    index.projection == "ALL"
                    and sort.bindings
                    and (their_sort is None or _texts(their_sort)[0] != _texts(sort)[0])
                ):
                    listed = {
                        f
                        for c in entities
                        if c.parent and c.parent[0] == parent.name
                        for _, f in c.lists
                    }
                    child.lists.append((index, _plural(child.name, listed, parent)))
                break
            if child.parent is not None:
                break


def _alike(one: DraftedKey, other: DraftedKey) -> bool:
    return bool(one.bindings) and (
        _texts(one) == _texts(other)
        and one.casing == other.casing
        and len(one.bindings) == len(other.bindings)
    )


def _texts(key: DraftedKey) -> list[str]:
    return re.split(r"\$\{[^}]*\}", key.text)


def _plural(name: str, listed: set[str], parent: EntityDraft) -> str:
    base = plural(name[0].lower() + name[1:])
    held = {a.name for a in parent.attributes} | listed
    found, number = base, 2
    while found in held:
        found, number = f"{base}{number}", number + 1
    return found
