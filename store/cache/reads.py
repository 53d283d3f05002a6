"""The read cache of one process (`DYNAGATE_CACHE=on`, docs/cache.md): what the store's
key-condition reads returned, answered again until a change could alter it.

Changes arrive three ways, each touching dependencies (`store/cache/dependencies.py`):
this process's own writes (`wrote`, before the write is answered, and told to the other
replicas through `publish`); the table's stream, whoever wrote (`heard`); and the other
replicas' writes, heard through Redis (`touched`).

**It answers only while the stream is followed.** Whoever reads the stream's shards says
after each round in which it read every shard it holds to its end (`beat`); the cache
answers while every shard a reader names was read to its end within `FRESH_SECONDS` of
this process's clock. Otherwise it is suspended: emptied, and nothing read meanwhile is
stored.

Entries are kept marshalled (DynamoDB's typed answers, and the whole answers of queries,
`gateway/schema/cached_answers.py`): their size is what they hold, and each hit decodes a
copy of its own (no request can change another's items).
"""

from __future__ import annotations

import logging
import marshal
import time
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from keys.table import TABLE, Index
from store.cache import dependencies as read_dependencies
from store.cache.memory import Dependency, ReadCache, Ticket
from store.requests import from_attributes
from store.stream.records import StreamRecord

logger = logging.getLogger("dynagate")

# Beats older than this (by this process's clock) no longer count: a reader that stopped
# for this long is taken to have stopped, and the cache answers nothing until one beats.
FRESH_SECONDS = 3.0
# What an entry costs besides its bytes: the bookkeeping of its key and dependencies.
_ENTRY_OVERHEAD = 200
_DEPENDENCY_OVERHEAD = 100
# Writes whose stream records are awaited, at most (a bound on the memory they take).
_OWN_MOST = 10_000
# A change without its new image (a stream that keeps only keys) cannot be followed.
_IMAGES = (
    "the table's stream keeps no new item images: the read cache answers nothing (docs/cache.md)"
)


class CacheObserver(Protocol):
    """Told what the cache does, for the metrics."""

    def cache_hit(self) -> None: ...
    def cache_miss(self) -> None: ...
    def cache_invalidated(self, entries: int) -> None: ...
    def cache_held(self, size: int) -> None: ...


@dataclass
class CachedReads:
    """The process's read cache and what keeps it exact."""

    max_bytes: int
    # The indexes whose partitions a change is looked for in.
    indexes: set[Index]
    observer: CacheObserver | None = None
    # Tells the other replicas what a write of this process touched (None: no replicas).
    publish: Callable[[Collection[Dependency]], Awaitable[None]] | None = None
    # Whether what the other replicas told before now is applied here (None: no replicas).
    sync: Callable[[], Awaitable[bool]] | None = None
    clock: Callable[[], float] = time.monotonic
    # The table's key attributes (the served model's layout).
    table: Index = TABLE
    cache: ReadCache = field(init=False)
    # By shard: the last time (this process's clock) it was known read to its end; and the
    # shards each reader last named readable, with when it said so.
    _covered: dict[str, float] = field(default_factory=dict)
    _readable: dict[str, tuple[frozenset[str], float]] = field(default_factory=dict)
    # Until when the shards are known followed (recomputed at each beat).
    _followed_until: float = 0.0
    # Set for good when the stream turns out to keep no new images.
    _blind: bool = False
    # The items this process's writes left, by table key, with when (for a minute at most).
    _own: dict[tuple[str, str], tuple[dict[str, Any], float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cache = ReadCache(self.max_bytes)
        self.cache.suspend()  # until the stream is followed

    # Reads.

    async def ready(self) -> bool:
        """Before a request's first read: whether the cache may answer it. With replicas,
        once every write they answered before now is applied here."""
        if not self.answering():
            return False
        return True if self.sync is None else await self.sync()

    def lookup(self, key: str) -> Any | None:
        """The value kept under `key` (a copy of its own), or None."""
        if not self.answering():
            return None
        blob = self.cache.get(key)
        if self.observer is not None:
            (self.observer.cache_miss if blob is None else self.observer.cache_hit)()
        return None if blob is None else marshal.loads(blob)

    def begin(self) -> Ticket | None:
        """Before a read that missed calls DynamoDB; None when nothing will be stored."""
        return self.cache.begin() if self.cache.answering else None

    def keep(
        self,
        ticket: Ticket,
        key: str,
        value: Any,
        depends: Iterable[Dependency],
        *,
        consistent: bool = False,
    ) -> None:
        """Keep what the read of `ticket` returned, unless a change touched it meanwhile;
        `consistent`: a strongly consistent read, which no change made before it can lag."""
        depends = set(depends)
        try:
            blob = marshal.dumps(value)
        except ValueError:  # a value marshal cannot hold: not kept
            self.cache.end(ticket)
            return
        size = len(blob) + len(key) + _ENTRY_OVERHEAD + _DEPENDENCY_OVERHEAD * len(depends)
        if self.cache.put(ticket, key, blob, size, depends, settled=consistent):
            self._held()

    def settling(self, depends: Iterable[Dependency]) -> bool:
        """Whether something `depends` names changed moments ago: an eventually consistent
        read of it now may lag the change (a read of the table is then made consistent)."""
        return self.cache.settling(depends)

    def end(self, ticket: Ticket) -> None:
        """A read that failed: nothing to keep."""
        self.cache.end(ticket)

    def note(self, index: Index) -> None:
        """`index` is read: changes are looked for in its partitions."""
        self.indexes.add(index)

    # Changes.

    async def wrote(
        self, touched: Collection[Dependency], images: Iterable[Mapping[str, Any]] = ()
    ) -> None:
        """This process wrote: entries that depend on it are dropped at once, and every
        other replica is told before the write is answered. `images`: the items as the
        write left them, when it knows them; their stream records, when they come, drop
        nothing here again (reads since then were of them)."""
        self._invalidate(touched)
        now = self.clock()
        for image in images:
            key = (str(image.get(self.table.partition_key)), str(image.get(self.table.sort_key)))
            self._own[key] = (dict(image), now)
        if len(self._own) > _OWN_MOST:  # records lost or late: theirs drop again, safely
            self._own = {k: v for k, v in self._own.items() if now - v[1] <= 60}
            if len(self._own) > _OWN_MOST:
                self._own.clear()
        if self.publish is not None and touched:
            await self.publish(touched)

    def touched(self, touched: Iterable[Dependency]) -> None:
        """Another replica wrote (heard through Redis)."""
        self._invalidate(touched)

    def heard(self, records: Sequence[StreamRecord]) -> None:
        """Changes read from the table's stream."""
        touched: set[Dependency] = set()
        for record in records:
            if record.new is None and record.event != "REMOVE":
                self._go_blind()  # a change whose new partitions cannot be known
                return
            key = (
                str(record.keys.get(self.table.partition_key)),
                str(record.keys.get(self.table.sort_key)),
            )
            own = self._own.get(key)
            if own is not None and own[0] == record.new:
                del self._own[key]  # this process's own write, applied when it was made
                continue
            touched |= read_dependencies.of_record(record.old, record.new, self.table, self.indexes)
            touched |= read_dependencies.of_image(record.keys, self.table, ())
        self._invalidate(touched)

    def beat(self, owner: str, held: Iterable[str], readable: Iterable[str], span: float) -> None:
        """`owner` read every shard of `held` to its end in a round of `span` seconds, and
        saw `readable` as the stream's shards to read."""
        now = self.clock()
        for shard in held:
            self._covered[shard] = now - span
        self._readable[owner] = (frozenset(readable), now)
        for gone in [o for o, (_, at) in self._readable.items() if now - at >= FRESH_SECONDS]:
            del self._readable[gone]  # a reader that stopped names nothing any more
        shards = frozenset().union(*(named for named, _ in self._readable.values()))
        for shard in [s for s in self._covered if s not in shards]:
            del self._covered[shard]  # a shard nobody names any more was read to its end
        oldest = min((self._covered.get(s, -FRESH_SECONDS) for s in shards), default=None)
        self._followed_until = 0.0 if oldest is None else oldest + FRESH_SECONDS
        if not self.cache.answering and self.followed() and not self._blind:
            self.cache.resume()

    # Following.

    def answering(self) -> bool:
        """Whether the cache may answer now; suspended (emptied) when it may not."""
        if not self.cache.answering:
            return False
        if self.followed():
            return True
        logger.warning("the table's stream is not followed: the read cache answers nothing")
        self.forget()
        return False

    def followed(self) -> bool:
        """Every shard a reader names was read to its end within `FRESH_SECONDS`."""
        return self.clock() < self._followed_until

    def unapplied_seconds(self) -> float | None:
        """At most how old the oldest change not applied yet is (besides DynamoDB's own
        delay before a change reaches the stream): the time since the shard read to its
        end the longest ago was. None before the stream was ever followed."""
        if not self._followed_until:
            return None
        return max(0.0, self.clock() - (self._followed_until - FRESH_SECONDS))

    def forget(self) -> None:
        """What is kept may no longer be exact: emptied, and suspended until a beat."""
        self.cache.suspend()
        self._held()

    def _invalidate(self, touched: Iterable[Dependency]) -> None:
        dropped = self.cache.invalidate(touched)
        if self.observer is not None and dropped:
            self.observer.cache_invalidated(dropped)
            self._held()

    def _held(self) -> None:
        if self.observer is not None:
            self.observer.cache_held(self.cache.bytes)

    def _go_blind(self) -> None:
        if not self._blind:
            logger.error(_IMAGES)
        self._blind = True
        self.forget()


def item_cache_key(key: Mapping[str, str]) -> str:
    """The cache's key of one item read by key (GetItem, or a key of a BatchGetItem)."""
    return "item" + orjson.dumps(key, option=orjson.OPT_SORT_KEYS).decode()


def item_dependency(key: Mapping[str, Any], table: Index) -> Dependency:
    return read_dependencies.item(str(key[table.partition_key]), str(key[table.sort_key]))


def query_cache_key(request: Mapping[str, Any]) -> str:
    """The cache's key of one Query call: the whole request (condition, filter, limit,
    start), so that only the same call is answered again."""
    text = orjson.dumps(request, option=orjson.OPT_SORT_KEYS, default=repr).decode()
    return "query\0" + text


# What a Query's answer keeps (not its metadata).
_QUERY_ANSWER = ("Items", "Count", "ScannedCount", "LastEvaluatedKey", "ConsumedCapacity")


def query_answer(response: Mapping[str, Any], *, halved: bool = False) -> dict[str, Any]:
    """What a Query's answer keeps; `halved`: it was read consistently, and answering it
    again saves what an eventually consistent read would have cost (half)."""
    answer = {name: response[name] for name in _QUERY_ANSWER if name in response}
    consumed = answer.get("ConsumedCapacity")
    if halved and consumed:
        units = read_units(answer) / 2
        answer["ConsumedCapacity"] = {
            **consumed,
            "CapacityUnits": units,
            "ReadCapacityUnits": units,
        }
    return answer


def read_units(response: Mapping[str, Any]) -> float:
    """The read capacity an answer consumed (what answering it again saves)."""
    consumed = response.get("ConsumedCapacity") or {}
    total = consumed.get("ReadCapacityUnits", consumed.get("CapacityUnits", 0.0))
    return float(total or 0.0)


def _item_units(typed: Mapping[str, Any] | None) -> float:
    """An eventually consistent read's units for one item of a BatchGetItem: half a unit
    per 4 KB begun (its marshalled size stands for DynamoDB's count)."""
    size = 0 if typed is None else len(marshal.dumps(dict(typed)))
    return 0.5 * max(1, -(-size // 4096))


class BatchTickets:
    """The tickets of one BatchGetItem call's keys: each key found or absent is kept."""

    def __init__(self, cache: CachedReads | None, table: Index) -> None:
        self.cache = cache
        self.table = table
        self.open: dict[str, tuple[Ticket, Dependency]] = {}
        self.consistent = False

    def answered(
        self, asked: Sequence[Mapping[str, Any]], unprocessed: Sequence[Mapping[str, Any]]
    ) -> None:
        """The keys asked and not left unprocessed, not found: kept as absent."""
        left = {item_cache_key(from_attributes(k)) for k in unprocessed}
        for typed in asked:
            key = item_cache_key(from_attributes(typed))
            if key not in left:
                self._keep(key, None)

    def found(self, typed: Sequence[Mapping[str, Any]], items: Sequence[Mapping[str, Any]]) -> None:
        for raw, item in zip(typed, items, strict=True):
            key = {a: str(item[a]) for a in self.table.attributes}
            self._keep(item_cache_key(key), raw, item_dependency(key, self.table))

    def begin(self, asked: Sequence[Mapping[str, Any]]) -> bool:
        """Before the call: a ticket per key asked (typed, as in the request). Whether one
        of them changed moments ago: the call is then made consistent, and all are kept
        for good."""
        cache = self.cache
        if cache is None:
            return False
        for typed in asked:
            ticket = cache.begin()
            if ticket is None:
                return False
            key = {name: str(value) for name, value in from_attributes(typed).items()}
            self.open[item_cache_key(key)] = (ticket, item_dependency(key, self.table))
        self.consistent = cache.settling(dependency for _, dependency in self.open.values())
        return self.consistent

    def end(self) -> None:
        """The call is over: keys neither found nor answered absent are not kept."""
        if self.cache is not None:
            for ticket, _ in self.open.values():
                self.cache.end(ticket)
        self.open.clear()

    def _keep(
        self, key: str, typed: Mapping[str, Any] | None, depends: Dependency | None = None
    ) -> None:
        opened = self.open.pop(key, None)
        if opened is None or self.cache is None:
            return
        ticket, dependency = opened
        units = _item_units(typed)
        self.cache.keep(
            ticket, key, (typed, units), [depends or dependency], consistent=self.consistent
        )
