"""Existing items brought to what the model derives (`dynagate migrate`, `dynagate verify`):
a parallel, consistent Scan of the table, each item of the model given the index keys and
defaults it lacks (`data/migration/items.py`) and its copies checked.

- **Safe while the gateway serves**: each write insists on the values the item was read
  with; when a client changed it since, the item is read again (strongly consistent) and
  what it needs then is written, or nothing.
- **Resumable**: after a page's writes, its segment's place is kept in a checkpoint item
  (`keys/migrations.py`). Killed at any point and started again, it goes on from the last
  page kept: the items of a page done again are found right and not written again.
- **Within a budget**: writes are paced to `max_wcu` write units a second (`WriteBudget`).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from data.copies.verify import Difference, diff, repair_one
from data.copies.writes import VERSION, copies
from data.migration.checkpoint import Checkpoint
from data.migration.items import (
    Derived,
    Engine,
    ItemChange,
    Unmigrated,
    change_of,
    entity_labels,
)
from keys.conditions import KeyCondition
from keys.migrations import DONE
from keys.table import Index
from model import Entity, Model
from model.entities import ENGINE_ATTRIBUTES
from store import requests
from store.client import Store
from store.errors import ConditionFailed
from store.requests import Item, primary_key

# Items one page of a segment evaluates: a checkpoint is kept after each.
PAGE_ITEMS = 100
# Items of one page written at once.
CONCURRENCY = 8
# A client racing the migration on one item, again and again, is left to the next run.
ATTEMPTS = 3


class WriteBudget:
    """Paces writes to `per_second` write units a second: each write waits for its slot,
    the one after the slots of the units written before it (the generic cell rate
    algorithm, without a burst), so no second holds more than `per_second` units and one
    write."""

    def __init__(
        self,
        per_second: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        if per_second <= 0:
            raise ValueError("a budget of write units a second must be above 0")
        self.per_second = per_second
        self.clock = clock
        self.sleep = sleep
        self.spent = 0.0
        self._next = clock()

    async def spend(self, units: float) -> None:
        """Wait for the slot of `units` more, then count them."""
        now = self.clock()
        slot = max(self._next, now)
        self._next = slot + units / self.per_second
        if slot > now:
            await self.sleep(slot - now)
        self.spent += units


def write_units(item: Item, indexes: int = 0, *, transaction: bool = False) -> int:
    """DynamoDB's write units for writing `item` and `indexes` index entries of it (each
    holding all of it): one per KB begun each, twice in a transaction."""
    size = sum(len(name.encode()) + len(str(value).encode()) for name, value in item.items())
    units = max(1, math.ceil(size / 1024)) * (1 + indexes)
    return 2 * units if transaction else units


def _index_writes(change: ItemChange, item: Item, indexes: Iterable[Index]) -> int:
    """The index entries a change writes: an entry moved is a delete and a put."""
    touched = set(change.sets) | set(change.removes)
    writes = 0
    for index in indexes:
        if touched & set(index.attributes):
            had = all(a in item for a in index.attributes)
            writes += 2 if had and not set(change.removes) & set(index.attributes) else 1
    return writes


@dataclass
class Tally:
    """What a pass found and did."""

    scanned: int = 0
    # Items of the model by entity name, and those written (or, in a plan, to write) by
    # entity and what they get.
    items: Counter[str] = field(default_factory=Counter)
    # Items an entity derives from its own (the places and cell counts of one kept by
    # place), by entity name.
    derived: Counter[str] = field(default_factory=Counter)
    changes: Counter[tuple[str, str]] = field(default_factory=Counter)
    # Items whose copies differ (or were repaired), by entity name.
    copies: Counter[str] = field(default_factory=Counter)
    unmigrated: list[Unmigrated] = field(default_factory=list)
    # Items left for another run: a client changed them again and again meanwhile, or a
    # repair of their copies failed.
    skipped: int = 0
    others: Counter[str] = field(default_factory=Counter)

    @property
    def pending(self) -> int:
        return sum(self.changes.values()) + sum(self.copies.values())


@dataclass
class Pass:
    """One pass over the table for `model`: `apply` writes, otherwise it only counts."""

    store: Store
    model: Model
    index_attributes: frozenset[str]
    apply: bool
    budget: WriteBudget | None = None
    tally: Tally = field(default_factory=Tally)

    def __post_init__(self) -> None:
        self._labels = entity_labels(self.model)
        self._indexes = self.model.indexes

    async def segment(
        self,
        segment: int,
        segments: int,
        start: dict[str, Any] | None,
        kept: Callable[[int, dict[str, Any] | None], Awaitable[None]],
        progress: Callable[[int], object],
    ) -> None:
        """The segment's pages from `start`, each kept (`kept`) once its writes are done."""
        while True:
            request = requests.scan_request(
                self.store.table, segment, segments, start=start, limit=PAGE_ITEMS
            )
            page = await self.store.scan(request)
            for batch in range(0, len(page.items), CONCURRENCY):
                chunk = page.items[batch : batch + CONCURRENCY]
                await asyncio.gather(*(self.item(item) for item in chunk))
            self.tally.scanned += page.scanned
            progress(page.scanned)
            start = page.last_key
            await kept(segment, start)
            if start is None:
                return

    async def item(self, item: Item) -> None:
        found = change_of(self._labels, self.index_attributes, item)
        if isinstance(found, Engine):
            self.tally.others[found.type or "(no type)"] += 1
            return
        if isinstance(found, Derived) or (isinstance(found, ItemChange) and found.derived):
            self.tally.derived[found.entity.name] += 1
        else:
            self.tally.items[found.entity.name] += 1
        if isinstance(found, Derived):
            return
        if isinstance(found, Unmigrated):
            self.tally.unmigrated.append(found)
            return
        current: Item | None = item
        if found.writes and not self.apply:
            self.tally.changes[(found.entity.name, found.described())] += 1
        elif found.writes:
            current = await self._write(found, item)
        if current is not None and found.entity.copies is not None:
            await self._copies(found.entity, current)

    async def _write(self, change: ItemChange, item: Item) -> Item | None:
        """Write `change` (counted once written); the item as it is then (None: deleted
        meanwhile, or left for another run)."""
        for _ in range(ATTEMPTS):
            present = {n: v for n, v in change.expect.items() if v is not None}
            request = requests.update_request(
                self.store.table,
                change.key,
                set_values=change.sets or None,
                remove=change.removes,
                expect=present or None,
                absent=[n for n, v in change.expect.items() if v is None],
            )
            indexes = _index_writes(change, item, self._indexes)
            await self._spend(write_units({**item, **change.sets}, indexes))
            try:
                updated = await self.store.update(request)
            except ConditionFailed:
                current = await self.store.get(change.key, consistent=True)
                if current is None:
                    return None
                found = change_of(self._labels, self.index_attributes, current)
                if not isinstance(found, ItemChange) or not found.writes:
                    return current
                change, item = found, current
                continue
            self.tally.changes[(change.entity.name, change.described())] += 1
            return updated
        self.tally.skipped += 1
        return None

    async def _copies(self, entity: Entity, primary: Item) -> None:
        """Compare the copies with those `primary` implies; repair them when applying."""
        assert entity.copies is not None
        pk, sk = entity.table.attributes
        prefix = entity.copy_templates[sk].prefix()
        found = await self.store.query(
            KeyCondition.prefix(entity.table, primary[pk], prefix), forward=True
        )
        if VERSION not in primary:  # copies declared since the item was written
            expected = copies(entity, {**primary, VERSION: 1})
            difference = Difference(primary[pk], None, missing=tuple(c[sk] for c in expected))
        else:
            difference = diff(entity, primary, found.items)
        if difference.clean:
            return
        self.tally.copies[entity.name] += 1
        if not self.apply:
            return
        if VERSION not in primary:
            versioned = await self._versioned(primary)
            if versioned is None:
                return
            difference = diff(entity, versioned, found.items)
        await self._spend(sum(write_units(c, 1, transaction=True) for c in difference.puts))
        if await repair_one(self.store, difference) != "repaired":
            self.tally.skipped += 1

    async def _versioned(self, primary: Item) -> Item | None:
        """The item given version 1, the first its copies are written at, unless it has
        one by now (this write's lost answer, or a client's); None: it is gone."""
        key = primary_key(primary, self.store.layout.table)
        request = requests.update_request(
            self.store.table, key, set_values={VERSION: 1}, absent=[VERSION]
        )
        await self._spend(write_units(primary))
        try:
            return await self.store.update(request)
        except ConditionFailed:
            current = await self.store.get(key, consistent=True)
            return current if current is not None and VERSION in current else None

    async def _spend(self, units: int) -> None:
        if self.budget is not None:
            await self.budget.spend(units)


async def run(
    migration: Pass,
    segments: int,
    progress: Callable[[int], object],
    checkpoint: Checkpoint | None = None,
) -> Tally:
    """Every segment of the table, from the checkpoint's places when given."""
    starts = {} if checkpoint is None else await checkpoint.resume()
    segments = segments if checkpoint is None else checkpoint.segments

    async def kept(segment: int, start: dict[str, Any] | None) -> None:
        if checkpoint is not None:
            await checkpoint.keep(segment, start)

    async def one(segment: int) -> None:
        start = starts.get(segment)
        if start == DONE:
            return
        await migration.segment(
            segment, segments, start if isinstance(start, dict) else None, kept, progress
        )

    await asyncio.gather(*(one(s) for s in range(segments)))
    if checkpoint is not None:
        await checkpoint.finish()
    return migration.tally


def index_attributes(model: Model, described: Iterable[dict[str, Any]]) -> frozenset[str]:
    """The key attributes an item may have to leave: those of the model's indexes and of
    the table's others (`described`: DescribeTable's GlobalSecondaryIndexes), save any
    attribute an entity or the engine keeps for itself (an index of the table's on `type`
    or on an entity's attribute is not the model's to empty)."""
    names = {a for index in model.indexes for a in index.attributes}
    names |= {k["AttributeName"] for index in described for k in index["KeySchema"]}
    kept = {name for entity in model.entities for name in entity.attributes}
    kept |= ENGINE_ATTRIBUTES | set(model.table_layout.table.attributes)
    return frozenset(names - kept)
