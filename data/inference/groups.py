"""Which entity each item of a sample is (`dynagate model infer`): told by a discriminator
where the items hold one (an attribute tools name so, `__edb_e__` or `_type`, or one of a
few short values whose items are each keyed alike), else by the shape of their keys: their
delimiters and their labels (`ORG#…` / `EVENT#…`). Pure."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from data.inference.key_formats import head, parts
from keys.table import Layout
from store.requests import Item

# Attributes that tools name their discriminator, most likely first.
KNOWN_DISCRIMINATORS = (
    "__edb_e__",
    "_type",
    "_et",
    "type",
    "entity",
    "entityType",
    "_entity",
    "__typename",
    "itemType",
    "recordType",
    "_t",
)
# A discriminator's value: a short word.
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_.:$-]{0,63}")
# A key's first part that reads as a label whatever the sample: `ORG`, `$ticketing`.
_LABEL = re.compile(r"[A-Z][A-Z0-9_]*|\$.+")


@dataclass
class Grouping:
    """The items by entity: each group's name hint and items, by the discriminator's value
    (or the keys' shape), the discriminator, and the items of no group."""

    told: str | None
    groups: dict[str, tuple[str, list[Item]]] = field(default_factory=dict)
    leftover: list[Item] = field(default_factory=list)


def groups(items: Sequence[Item], layout: Layout) -> Grouping:
    """The items grouped by the entity they are, as far as they tell."""
    pk, sk = layout.table.attributes
    labels = _labels(items, pk, sk)
    shapes = [_shape(i, pk, sk, labels) for i in items]
    found = Grouping(_discriminator(items, layout, shapes))
    told = found.told
    for item, shape in zip(items, shapes, strict=True):
        value = item.get(told) if told else None
        if told and not (isinstance(value, str) and _WORD.fullmatch(value)):
            found.leftover.append(item)
            continue
        if isinstance(value, str):
            found.groups.setdefault(value, (value, []))[1].append(item)
        else:
            found.groups.setdefault(repr(shape), (_named_by(shape), []))[1].append(item)
    return found


def _labels(items: Sequence[Item], pk: str, sk: str) -> set[str]:
    """The first parts of keys that read as labels: those of several keys, or in upper
    case, or ElectroDB's `$…`."""
    heads = Counter(head(i[a]) for i in items for a in (pk, sk))
    return {h for h, n in heads.items() if h and (n > 1 or _LABEL.fullmatch(h))}


def _shape(item: Item, pk: str, sk: str, labels: set[str]) -> tuple[Any, ...]:
    """What an item's keys look like: their delimiters and their labels."""
    return tuple(
        (parts(item[a])[1], head(item[a]) if head(item[a]) in labels else "*") for a in (pk, sk)
    )


def _named_by(shape: tuple[Any, ...]) -> str:
    """An entity's name from its keys' labels: the sort key's, else the partition key's."""
    (_, partition), (_, sort) = shape
    return next((label for label in (sort, partition) if label != "*"), "Item")


def _discriminator(items: Sequence[Item], layout: Layout, shapes: Sequence[Any]) -> str | None:
    """The attribute telling the items' entities apart: one tools name so, on half the
    items at least; else one of a few short values on nine items in ten, the items of each
    value keyed alike and those of two values otherwise."""
    counts: dict[str, Counter[str]] = {}
    for item in items:
        for name, value in item.items():
            keyed = name in layout.key_attributes
            if not keyed and isinstance(value, str) and _WORD.fullmatch(value):
                counts.setdefault(name, Counter())[value] += 1
    for name in KNOWN_DISCRIMINATORS:
        if name in counts and 2 * counts[name].total() >= len(items):
            return name
    candidates = []
    for name, values in counts.items():
        held = values.total()
        if 10 * held < 9 * len(items) or not 2 <= len(values) <= held // 2:
            continue
        shapes_of: dict[str, set[Any]] = {}
        for item, shape in zip(items, shapes, strict=True):
            if item.get(name) in values:
                shapes_of.setdefault(item[name], set()).add(shape)
        alike = all(len(s) == 1 for s in shapes_of.values())
        if alike and len({frozenset(s) for s in shapes_of.values()}) == len(shapes_of):
            candidates.append((-held, len(values), name))
    return min(candidates)[2] if candidates else None


def majority(items: list[Item], pk: str, sk: str) -> tuple[list[Item], list[Item]]:
    """The items keyed as most of the group are, and the others."""
    shape = Counter((parts(i[pk])[1], parts(i[sk])[1]) for i in items).most_common(1)[0][0]
    kept = [i for i in items if (parts(i[pk])[1], parts(i[sk])[1]) == shape]
    return kept, [i for i in items if (parts(i[pk])[1], parts(i[sk])[1]) != shape]
