"""Existing items brought to what the model derives (`dynagate migrate`, `dynagate verify`):
a parallel, consistent Scan of the table, each item of the model given the index keys and
defaults it lacks (`data/migration_items.py`) and its copies checked.

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
import json
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from data.copies_verify import Difference, diff, repair_one
from data.entity_copies import VERSION, copies
from data.migration_items import (
    PK,
    SK,
    Engine,
    ItemChange,
    Unmigrated,
    change_of,
    entity_labels,
)
from keys.conditions import KeyCondition
from keys.migrations import CHECKPOINT, DONE, LABEL, segment_attribute
from keys.table import TABLE
from model import Entity, Model
from store import requests
from store.client import Store
from store.errors import ConditionFailed
from store.requests import Item

# Items one page of a segment evaluates: a checkpoint is kept after each.
PAGE_ITEMS = 100
# Items of one page written at once.
CONCURRENCY = 8
# A client racing the migration on one item, again and again, is left to the next run.
ATTEMPTS = 3


class WriteBudget:
    """Paces writes to `per_second` write units a second, a second's worth at once at most
    (the generic cell rate algorithm: a virtual time that each write pushes on)."""

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
        self._due = clock()

    async def spend(self, units: float) -> None:
        """Wait until `units` more may be written, then count them."""
        now = self.clock()
        self._due = max(self._due, now) + units / self.per_second
        ahead = self._due - now - 1.0
        if ahead > 0:
            await self.sleep(ahead)
        self.spent += units


def write_units(item: Item, *, transaction: bool = False) -> int:
    """DynamoDB's write units for writing `item`: one per KB begun, twice in a transaction."""
    size = sum(len(name.encode()) + len(str(value).encode()) for name, value in item.items())
    units = max(1, math.ceil(size / 1024))
    return 2 * units if transaction else units


@dataclass
class Tally:
    """What a pass found and did."""

    scanned: int = 0
    # Items of the model by entity name, and those written (or, in a plan, to write) by
    # entity and what they get.
    items: Counter[str] = field(default_factory=Counter)
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
        self.tally.items[found.entity.name] += 1
        if isinstance(found, Unmigrated):
            self.tally.unmigrated.append(found)
            return
        current: Item | None = item
        if found.writes:
            self.tally.changes[(found.entity.name, found.described())] += 1
            if self.apply:
                current = await self._write(found)
        if current is not None and found.entity.copies is not None:
            await self._copies(found.entity, current)

    async def _write(self, change: ItemChange) -> Item | None:
        """Write `change`; the item as it is then (None: deleted meanwhile, or left)."""
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
            await self._spend(write_units({**change.key, **change.sets}))
            try:
                return await self.store.update(request)
            except ConditionFailed:
                current = await self.store.get(change.key, consistent=True)
                if current is None:
                    return None
                found = change_of(self._labels, self.index_attributes, current)
                if not isinstance(found, ItemChange) or not found.writes:
                    return current
                change = found
        self.tally.skipped += 1
        return None

    async def _copies(self, entity: Entity, primary: Item) -> None:
        """Compare the copies with those `primary` implies; repair them when applying."""
        assert entity.copies is not None
        prefix = entity.copy_templates[SK].prefix()
        found = await self.store.query(
            KeyCondition.prefix(TABLE, primary[PK], prefix), forward=True
        )
        if VERSION not in primary:  # copies declared since the item was written
            expected = copies(entity, {**primary, VERSION: 1})
            difference = Difference(primary[PK], None, missing=tuple(c[SK] for c in expected))
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
        await self._spend(sum(write_units(c, transaction=True) for c in difference.puts))
        if await repair_one(self.store, difference) != "repaired":
            self.tally.skipped += 1

    async def _versioned(self, primary: Item) -> Item | None:
        """The item given version 1, the first its copies are written at, unless it has
        one by now (this write's lost answer, or a client's); None: it is gone."""
        key = {PK: primary[PK], SK: primary[SK]}
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


@dataclass
class Checkpoint:
    """Where each segment got to, kept in the table (`keys/migrations.py`)."""

    store: Store
    fingerprint: str
    segments: int

    async def resume(self) -> dict[int, dict[str, Any] | str | None]:
        """Each segment's start (DONE: over) as kept, when the checkpoint is this model's;
        a fresh checkpoint otherwise. `segments` becomes the kept one."""
        kept = await self.store.get(dict(CHECKPOINT), consistent=True)
        if kept is not None and kept.get("fingerprint") == self.fingerprint:
            self.segments = int(kept["segments"])
            starts: dict[int, dict[str, Any] | str | None] = {}
            for segment in range(self.segments):
                value = kept.get(segment_attribute(segment))
                starts[segment] = value if value in (None, DONE) else json.loads(value)
            return starts
        item = {**CHECKPOINT, "type": LABEL, "fingerprint": self.fingerprint}
        await self.store.put(
            requests.put_request(self.store.table, {**item, "segments": self.segments})
        )
        return {}

    async def keep(self, segment: int, start: dict[str, Any] | None) -> None:
        value = DONE if start is None else json.dumps(start, sort_keys=True)
        request = requests.update_request(
            self.store.table,
            dict(CHECKPOINT),
            set_values={segment_attribute(segment): value},
            expect={"fingerprint": self.fingerprint},
        )
        await self.store.update(request)

    async def finish(self) -> None:
        """The migration is over: the next one scans from the start."""
        await self.store.transact([requests.transaction_delete(self.store.table, dict(CHECKPOINT))])


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
    """The key attributes of the model's indexes and of those the table has (`described`:
    DescribeTable's GlobalSecondaryIndexes): those an item may hold."""
    names = {a for index in model.indexes for a in index.attributes}
    names |= {k["AttributeName"] for index in described for k in index["KeySchema"]}
    return frozenset(names)
