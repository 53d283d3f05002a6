"""What key-condition reads returned, kept in memory and answered again until a change that
could alter them arrives: pure, no I/O.

Each entry names what it depends on (`store/cache/dependencies.py`): the partitions it
read and the items it returned or asked for. A change to an item invalidates every entry
that depends on what the change touched.

**A read in flight while its range changes is never stored.** A read takes a ticket
(`begin`) before it calls DynamoDB: the number of the last change applied. An entry is
stored (`put`) only when no change since that number touched what it depends on. The
cache keeps, for each partition and item changed, the number of its last change, as long
as a read in flight may ask: entries older than the oldest ticket are forgotten.

**A read of what changed moments ago is kept only for moments.** DynamoDB's eventually
consistent reads, and its indexes, may lag a change by a fraction of a second: a read that
began after a change but within `settle` seconds of it may hold what was before. It is
kept, but only until `settle` seconds after that change (each change heard again, from
the stream after the write, starts that time again), unless the read was strongly
consistent (`settled`).

**What it cannot keep exact it does not answer.** `suspend` empties it and refuses
reads and stores until `resume`, for as long as the changes cannot be followed.
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

# A partition, an item, or a tag naming many (`store/cache/dependencies.py`).
Dependency = tuple[str, ...]


@dataclass(frozen=True)
class Ticket:
    """A read's start: the number of the last change applied then."""

    seen: int


@dataclass
class _Entry:
    value: Any
    size: int
    depends: frozenset[Dependency]
    # When it stops answering (it was read moments after a change), if ever.
    expires: float | None = None


@dataclass
class Stats:
    hits: int = 0
    misses: int = 0
    # Entries dropped because a change could alter them, and reads not stored because
    # one came while they were in flight.
    invalidations: int = 0
    raced: int = 0
    evictions: int = 0


@dataclass
class ReadCache:
    """At most `max_bytes` of entries (by the sizes `put` is given), least recently used
    dropped first."""

    max_bytes: int
    # Seconds after a change within which what a read holds may predate it.
    settle: float = 0.5
    clock: Callable[[], float] = time.monotonic
    stats: Stats = field(default_factory=Stats)
    _entries: OrderedDict[str, _Entry] = field(default_factory=OrderedDict)
    _by_dependency: dict[Dependency, set[str]] = field(default_factory=dict)
    _changed: dict[Dependency, int] = field(default_factory=dict)
    _in_flight: Counter[int] = field(default_factory=Counter)
    # The time of each dependency's last change within `settle`, and the changes in order.
    _recent: dict[Dependency, float] = field(default_factory=dict)
    _recent_order: deque[tuple[float, Dependency]] = field(default_factory=deque)
    _last: int = 0
    _bytes: int = 0
    _suspended: bool = False
    # Reads that began before the last suspension are never stored.
    _barrier: int = 0

    @property
    def bytes(self) -> int:
        return self._bytes

    @property
    def answering(self) -> bool:
        return not self._suspended

    def __len__(self) -> int:
        return len(self._entries)

    def begin(self) -> Ticket:
        """Before a read calls DynamoDB: its ticket, to `put` or `end` once it is done."""
        ticket = Ticket(self._last)
        self._in_flight[ticket.seen] += 1
        return ticket

    def end(self, ticket: Ticket) -> None:
        """A read is over (stored or not): changes it could have missed may be forgotten."""
        self._in_flight[ticket.seen] -= 1
        if self._in_flight[ticket.seen] <= 0:
            del self._in_flight[ticket.seen]
        self._forget()

    def get(self, key: str) -> Any | None:
        """The value stored under `key`, or None (a miss, or the cache is suspended)."""
        entry = None if self._suspended else self._entries.get(key)
        if entry is not None and entry.expires is not None and self.clock() >= entry.expires:
            self._drop(key)
            entry = None
        if entry is None:
            self.stats.misses += 1
            return None
        self._entries.move_to_end(key)
        self.stats.hits += 1
        return entry.value

    def put(
        self,
        ticket: Ticket,
        key: str,
        value: Any,
        size: int,
        depends: Iterable[Dependency],
        *,
        settled: bool = False,
    ) -> bool:
        """Store what the read of `ticket` returned, unless a change since it began touched
        what it depends on, or it would not fit; ends the ticket. Whether it was stored."""
        depends = frozenset(depends)
        try:
            if self._suspended or ticket.seen < self._barrier or size > self.max_bytes:
                return False
            if any(self._changed.get(d, -1) > ticket.seen for d in depends):
                self.stats.raced += 1
                return False
            self._drop(key)
            expires = None if settled else self._expiry(depends)
            self._entries[key] = _Entry(value, size, depends, expires)
            self._bytes += size
            for dependency in depends:
                self._by_dependency.setdefault(dependency, set()).add(key)
            while self._bytes > self.max_bytes:
                self._drop(next(iter(self._entries)))
                self.stats.evictions += 1
            return True
        finally:
            self.end(ticket)

    def invalidate(self, changed: Iterable[Dependency]) -> int:
        """A change touched these partitions and items (`partitions_of` its images before
        and after): entries depending on them are dropped, and reads in flight that depend
        on them will not be stored. How many entries were dropped."""
        self._last += 1
        now = self.clock()
        self._settled(now)
        dropped = 0
        for dependency in set(changed):
            self._recent[dependency] = now
            self._recent_order.append((now, dependency))
            if self._in_flight:
                self._changed[dependency] = self._last
            for key in self._by_dependency.pop(dependency, set()):
                if key in self._entries:
                    self._drop(key)
                    dropped += 1
        self.stats.invalidations += dropped
        return dropped

    def suspend(self) -> None:
        """The changes cannot be followed: nothing is answered or stored until `resume`."""
        self._suspended = True
        self._last += 1
        self._barrier = self._last  # reads in flight began before: none is stored
        for key in list(self._entries):
            self._drop(key)

    def resume(self) -> None:
        self._suspended = False

    def settling(self, depends: Iterable[Dependency]) -> bool:
        """Whether any of `depends` changed within `settle` seconds."""
        now = self.clock()
        return any(now - self._recent.get(d, -self.settle) < self.settle for d in depends)

    def _expiry(self, depends: frozenset[Dependency]) -> float | None:
        """When an entry read now stops answering: `settle` after the last change of what
        it depends on, if that was moments ago; else never."""
        now = self.clock()
        self._settled(now)
        latest = max((self._recent.get(d, -1.0) for d in depends), default=-1.0)
        return None if latest < 0 or now - latest >= self.settle else latest + self.settle

    def _settled(self, now: float) -> None:
        """Changes older than `settle` are forgotten."""
        order = self._recent_order
        while order and now - order[0][0] >= self.settle:
            at, dependency = order.popleft()
            if self._recent.get(dependency) == at:
                del self._recent[dependency]

    def _drop(self, key: str) -> None:
        entry = self._entries.pop(key, None)
        if entry is None:
            return
        self._bytes -= entry.size
        for dependency in entry.depends:
            keys = self._by_dependency.get(dependency)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._by_dependency[dependency]

    def _forget(self) -> None:
        """Changes no read in flight could have missed are forgotten."""
        oldest = min(self._in_flight, default=self._last)
        for dependency in [d for d, at in self._changed.items() if at <= oldest]:
            del self._changed[dependency]
