"""A model held against the items a live table holds (`dynagate model inspect`): a sample,
read by a Scan within a budget of items, each classified by the entity it says it is (its
discriminator, else the key format it matches), then checked as the engine would read and
write it: its values parse, its keys render back, and what it holds that the model does
not declare.

The classification is pure (`classify`, `Findings`); only `sample` reads the table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field

from data.entities import record
from errors.vocabulary import DynagateError
from model import Entity, Model
from model.entities import ENGINE_ATTRIBUTES
from store import requests
from store.client import ScanPage, Store
from store.requests import Item

# A Scan page evaluates at most this many items, so that the budget is kept to the item.
PAGE_ITEMS = 100
# How many examples of each kind of problem are kept.
EXAMPLES = 3


@dataclass
class EntityFindings:
    """What the sample said of one entity's items."""

    items: int = 0
    parsed: int = 0
    rendered: int = 0
    unparsed: list[str] = field(default_factory=list)
    unrendered: list[str] = field(default_factory=list)
    undeclared: Counter[str] = field(default_factory=Counter)


@dataclass
class Findings:
    """What a sample of the table said of the model."""

    scanned: int = 0
    entities: dict[str, EntityFindings] = field(default_factory=dict)
    # Items no entity claims, by their key (a few), and how many.
    foreign: int = 0
    foreign_keys: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per entity and one for what no entity claims."""
        found = [f"a sample of {self.scanned} items:"]
        for name, seen in self.entities.items():
            line = (
                f"  {name}: {seen.items} items, {seen.parsed} read as the model's,"
                f" {seen.rendered} whose keys render back"
            )
            if seen.undeclared:
                named = ", ".join(f"{a} ({n})" for a, n in sorted(seen.undeclared.items()))
                line += f"; attributes not declared: {named}"
            found.append(line)
            found += [f"    does not parse: {said}" for said in seen.unparsed]
            found += [f"    key does not render back: {said}" for said in seen.unrendered]
        if self.foreign:
            shown = "; ".join(self.foreign_keys)
            found.append(f"  {self.foreign} items of no declared entity (for example {shown})")
        return found

    @property
    def clean(self) -> bool:
        return not self.foreign and all(
            s.items == s.parsed == s.rendered for s in self.entities.values()
        )


def classify(model: Model, items: Iterable[Item], findings: Findings | None = None) -> Findings:
    """The findings of `items` against `model` (added to `findings`, if given)."""
    found = findings or Findings()
    for entity in model.entities:
        found.entities.setdefault(entity.name, EntityFindings())
    for item in items:
        found.scanned += 1
        claimed = _claimed_by(model, item)
        if claimed is None:
            found.foreign += 1
            if len(found.foreign_keys) < EXAMPLES:
                found.foreign_keys.append(_key_of(model, item))
            continue
        _check(claimed, item, found.entities[claimed.name], model)
    return found


async def sample(store: Store, model: Model, budget: int) -> Findings:
    """Up to `budget` items of the table read by a Scan, classified."""
    findings = Findings()
    async for page in pages(store, budget):
        classify(model, page.items, findings)
        findings.scanned += page.scanned - len(page.items)  # a Scan evaluates no fewer
    return findings


async def pages(store: Store, budget: int) -> AsyncIterator[ScanPage]:
    """The pages of a Scan of the table that evaluates at most `budget` items."""
    scanned = 0
    start = None
    while scanned < budget:
        limit = min(PAGE_ITEMS, budget - scanned)
        request = requests.scan_request(store.table, 0, 1, start=start, limit=limit)
        page = await store.scan(request)
        scanned += page.scanned
        yield page
        start = page.last_key
        if start is None:
            break


def _claimed_by(model: Model, item: Item) -> Entity | None:
    """The entity `item` says it is: by its discriminator, else by its table key."""
    for entity in model.entities:
        if entity.places is None and entity.is_kind_of(item):
            return entity
    partition, sort = model.table_layout.table.attributes
    pk, sk = item.get(partition), item.get(sort)
    if not isinstance(pk, str) or not isinstance(sk, str):
        return None
    matching = [e for e in model.entities if e.places is None and e.owns(pk, sk)]
    return matching[0] if len(matching) == 1 else None


def _check(entity: Entity, item: Item, seen: EntityFindings, model: Model) -> None:
    seen.items += 1
    key = _key_of(model, item)
    try:
        values = record(entity, item)
    except (KeyError, TypeError, ValueError, DynagateError) as exc:
        if len(seen.unparsed) < EXAMPLES:
            seen.unparsed.append(f"{key}: {_said(exc)}")
        return
    seen.parsed += 1
    try:
        expected = entity.item_keys(values)
    except (KeyError, TypeError, ValueError, DynagateError) as exc:
        if len(seen.unrendered) < EXAMPLES:
            seen.unrendered.append(f"{key}: {_said(exc)}")
        return
    differing = {a: (item.get(a), v) for a, v in expected.items() if item.get(a) != v}
    if differing:
        if len(seen.unrendered) < EXAMPLES:
            shown = ", ".join(
                f"{a} stored {s!r}, rendered {r!r}" for a, (s, r) in differing.items()
            )
            seen.unrendered.append(f"{key}: {shown}")
    else:
        seen.rendered += 1
    known = {
        *map(entity.stored_name, entity.attributes),
        *entity.kind,
        *ENGINE_ATTRIBUTES,
        *model.table_layout.key_attributes,
    }
    seen.undeclared.update(name for name in item if name not in known)


def _key_of(model: Model, item: Item) -> str:
    partition, sort = model.table_layout.table.attributes
    return f"{item.get(partition)!s} / {item.get(sort)!s}"


def _said(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"it lacks {exc.args[0]!r}"
    return str(exc) or type(exc).__name__
