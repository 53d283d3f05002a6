"""Changes of the table's stream heard by every replica through Redis
(docs/subscriptions.md#several-replicas).

With DYNAGATE_REDIS_URL, the process holding a shard's lease (`store.stream.leases`) hands each
batch it reads to `publish`: XADDs to a Redis stream (the last ten minutes kept). Every
process that serves subscriptions reads that Redis stream (`consume`, XREAD from the last
entry it saw) and hands the records to its own change feed, which renders each change for
its subscribers. A batch read again (its reader died before keeping its place, and another
took the shard over) is not delivered twice: each process remembers the last sequence
number it delivered of each shard.

Redis failing: `publish` raises `DeliveryFailed`, so the reader keeps its place and hands
the batch over again once Redis answers; `consume` waits and goes on from its last entry,
so subscribers hear of every change, late.

The same stream carries what a write touched and the readers' rounds, for the read caches
(docs/cache.md#several-replicas), and each persisted document a replica registers
(`announce`, docs/http.md#persisted-documents), handed to `documents`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any

import orjson
from redis.asyncio import Redis

from gateway.replicas.shared_limits import FAILURES, REDIS_SECONDS
from store.cache.memory import Dependency
from store.cache.reads import CachedReads
from store.stream.reader import DeliveryFailed
from store.stream.records import StreamRecord, decoded, encoded

logger = logging.getLogger("dynagate")
CHANGES = "dynagate:changes"
# Entries kept in the Redis stream: the last ten minutes (about: trimmed in whole nodes),
# so a replica that could not read for that long goes on from what is left.
KEPT_SECONDS = 600
# Records per entry: a GetRecords batch (up to 1,000 items, each with two images) is cut.
ENTRY = 100
# Less than the client's socket timeout (`REDIS_SECONDS`): an idle stream is
# not a failing Redis.
BLOCK_MS = 250
BATCH = 100
# The field of an entry announcing a document's registration.
DOCUMENT = "document"
# How often a reader tells the replicas it is reading every shard it holds to its end.
BEAT_SECONDS = 0.5


class ChangeFanout:
    """Publishes batches to every replica, and hands those heard to `deliver`."""

    def __init__(
        self,
        redis: Redis,
        deliver: Callable[[Sequence[StreamRecord]], None],
        *,
        cache: CachedReads | None = None,
        owner: str = "",
        on_failure: Callable[[], None] | None = None,
        backoff: tuple[float, float] = (0.2, 5.0),
        documents: list[Callable[[str, bool], None]] | None = None,
    ) -> None:
        self.redis = redis
        self.deliver = deliver
        # Told of each document registration announced (its hash, whether trusted).
        self.documents = [] if documents is None else documents
        # The process's read cache: told what other replicas wrote, and which shards the
        # readers read to their end (docs/cache.md#several-replicas).
        self.cache = cache
        # This process, as its beats name it.
        self.owner = owner
        self._last_beat: tuple[float, frozenset[str], frozenset[str]] | None = None
        self.on_failure = on_failure
        self.backoff = backoff
        # The last sequence number delivered of each shard.
        self.delivered: dict[str, int] = {}
        self.last_id: str | None = None
        # Set each time entries were handed over (`caught_up` waits for it).
        self._advanced = asyncio.Event()
        self.ready = asyncio.Event()
        # Redis failed the last call: changes wait until it answers.
        self.degraded = False

    async def publish(self, records: Sequence[StreamRecord]) -> None:
        """The batch, in entries of at most `ENTRY` records (one pipeline); entries older
        than `KEPT_SECONDS` trimmed on the way. `DeliveryFailed` when Redis did not take
        it: the reader hands it over again."""
        entries = [
            orjson.dumps([encoded(record) for record in records[at : at + ENTRY]])
            for at in range(0, len(records), ENTRY)
        ]
        oldest = _oldest()
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for payload in entries:
                    pipe.xadd(CHANGES, {"records": payload}, minid=oldest, approximate=True)
                await pipe.execute()
        except FAILURES as exc:
            self._failed()
            raise DeliveryFailed(f"Redis: {exc}") from exc

    async def tell(self, touched: Collection[Dependency]) -> None:
        """What a write of this process touched, for every replica's read cache; a Redis
        that refuses it is logged and counted (the stream's record follows)."""
        payload = orjson.dumps([list(dependency) for dependency in touched])
        try:
            await self.redis.xadd(CHANGES, {"touched": payload}, minid=_oldest(), approximate=True)
        except FAILURES as exc:
            self._failed()
            logger.warning("Redis did not take a write's changes for the replicas' caches: %s", exc)

    async def announce(self, sha256: str, trusted: bool) -> bool:
        """A document this process registered, told to every replica before the
        registration is answered; whether Redis took it (a refusal is logged and counted:
        the others hear of it from the table's stream)."""
        payload = orjson.dumps({"sha256": sha256, "trusted": trusted})
        try:
            await self.redis.xadd(CHANGES, {DOCUMENT: payload}, minid=_oldest(), approximate=True)
        except FAILURES as exc:
            self._failed()
            logger.warning("Redis did not take the registration of document %s: %s", sha256, exc)
            return False
        return True

    def listening(self) -> bool:
        """Whether every entry added from now on is handed over here: `consume` has
        placed itself (its place is kept across Redis failures)."""
        return self.last_id is not None

    async def beat(self, held: set[str], readable: set[str], span: float) -> None:
        """The reader of this process read every shard of `held` to its end: told to every
        replica, at most every `BEAT_SECONDS` unless the shards changed."""
        now = time.monotonic()
        shards = (frozenset(held), frozenset(readable))
        last = self._last_beat
        if last is not None and now - last[0] < BEAT_SECONDS and shards == last[1:]:
            return
        beat = {
            "owner": self.owner,
            "held": sorted(held),
            "readable": sorted(readable),
            "span": span,
        }
        try:
            await self.redis.xadd(
                CHANGES, {"beat": orjson.dumps(beat)}, minid=_oldest(), approximate=True
            )
        except FAILURES as exc:
            self._failed()
            logger.debug("Redis did not take the stream reader's beat: %s", exc)
            return
        self._last_beat = (now, *shards)

    async def consume(self) -> None:
        """Read the Redis stream from now on, until cancelled; `ready` once placed."""
        failures = 0
        while True:
            try:
                if self.last_id is None:
                    self.last_id = await self._latest()
                    self.ready.set()
                answer: Any = await self.redis.xread(
                    {CHANGES: self.last_id}, count=BATCH, block=BLOCK_MS
                )
            except FAILURES as exc:
                failures += 1
                if failures == 1:
                    logger.warning("Redis is unreachable (%s): changes wait until it returns", exc)
                self._failed()
                # Sockets are not held up: nothing is published while Redis is down.
                self.ready.set()
                base, cap = self.backoff
                await asyncio.sleep(min(cap, base * 2 ** (failures - 1)))
                continue
            if failures:
                logger.info("Redis answers again: changes are heard again")
                failures = 0
            self.degraded = False
            for _stream, entries in answer or ():
                for entry_id, fields in entries:
                    self.last_id = _text(entry_id)
                    try:
                        self._hand(fields)
                    except Exception:  # one bad entry never stops the others
                        logger.exception("delivering an entry of %s failed", CHANGES)
            self._advanced.set()

    async def caught_up(self) -> bool:
        """Whether every entry Redis holds when asked is handed over here, waiting for
        `consume` a short while: a read that begins then sees what every replica's writes
        answered before touched (docs/cache.md#several-replicas). False when Redis fails
        or consuming lags."""
        if self.degraded:  # consuming waits for Redis to answer again: do not wait for it
            return False
        try:
            newest: Any = await self.redis.xrevrange(CHANGES, count=1)
        except FAILURES:
            self._failed()
            return False
        if not newest:
            return True
        target = _order(_text(newest[0][0]))
        try:
            async with asyncio.timeout(REDIS_SECONDS):
                while self.last_id is None or _order(self.last_id) < target:
                    self._advanced.clear()
                    await self._advanced.wait()
        except TimeoutError:
            return False
        return True

    async def _latest(self) -> str:
        """The id of the newest entry, where reading begins ("0-0" for an empty stream)."""
        newest: Any = await self.redis.xrevrange(CHANGES, count=1)
        return _text(newest[0][0]) if newest else "0-0"

    def _hand(self, fields: dict[Any, Any]) -> None:
        if self._heard_by_cache(fields):
            return
        document = fields.get(DOCUMENT.encode(), fields.get(DOCUMENT))
        if document is not None:
            heard = orjson.loads(document)
            for listener in self.documents:
                listener(str(heard["sha256"]), bool(heard["trusted"]))
            return
        raw = fields.get(b"records", fields.get("records"))
        if raw is None:
            logger.warning("an entry of %s holds no changes; skipped", CHANGES)
            return
        try:
            records = [decoded(data) for data in orjson.loads(raw)]
        except (TypeError, ValueError, KeyError):
            logger.warning("an entry of %s is not a batch of changes; skipped", CHANGES)
            return
        fresh = []
        for record in records:
            sequence = int(record.sequence)
            if sequence <= self.delivered.get(record.shard, -1):
                continue  # read again by the shard's next reader: delivered already
            self.delivered[record.shard] = sequence
            fresh.append(record)
        if fresh:
            self.deliver(fresh)

    def _heard_by_cache(self, fields: dict[Any, Any]) -> bool:
        """An entry for the read caches (a write's changes, a reader's beat): handed to
        this process's cache, if it has one. Whether it was one."""
        touched = fields.get(b"touched", fields.get("touched"))
        beat = fields.get(b"beat", fields.get("beat"))
        if touched is None and beat is None:
            return False
        cache = self.cache
        if cache is not None and touched is not None:
            cache.touched(tuple(str(part) for part in d) for d in orjson.loads(touched))
        if cache is not None and beat is not None:
            heard = orjson.loads(beat)
            cache.beat(str(heard["owner"]), heard["held"], heard["readable"], float(heard["span"]))
        return True

    def _failed(self) -> None:
        self.degraded = True
        if self.on_failure is not None:
            self.on_failure()


def _order(entry_id: str) -> tuple[int, int]:
    milliseconds, _, sequence = entry_id.partition("-")
    return int(milliseconds), int(sequence or 0)


def _oldest() -> str:
    """The id before which entries are trimmed: older than `KEPT_SECONDS`."""
    return f"{int((time.time() - KEPT_SECONDS) * 1000)}-0"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
