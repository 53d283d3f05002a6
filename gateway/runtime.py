"""What the application's lifespan opens once and every request and socket shares: the
lifespan enters the `Runtime` (`async with runtime:`), which opens the DynamoDB clients and
the stream's reader, and on the way out stops reading, gives its leases back, pays Redis
what is owed and closes every client, each step bounded in time."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import socket
import uuid
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Self

from redis.asyncio import Redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from data.feed import ChangeFeed
from gateway.demand.ratelimit import RateLimiter
from gateway.metrics import Metrics
from gateway.readiness import warn_unless_ready
from gateway.replicas.fanout import ChangeFanout
from gateway.replicas.shared_limits import REDIS_SECONDS, SharedRateLimiter
from gateway.served_model import declared, served
from gateway.settings import Settings
from store.cache.reads import CachedReads
from store.client import Store
from store.cursors import CursorCodec
from store.stream.leases import ShardLeases
from store.stream.reader import StreamReader
from store.stream.records import StreamRecord
from store.transport.connection import open_streams_client

if TYPE_CHECKING:
    from gateway.traces.spans import Traces
    from store.client import DynamoDBClient


logger = logging.getLogger("dynagate")
# The most each step of stopping may take.
STOP_SECONDS = 5.0
REDIS_DOWN = (
    "Redis at DYNAGATE_REDIS_URL does not answer: until it does, rate limits are per process"
    " and the replicas hear of changes late"
)


@dataclass
class Runtime:
    """What the lifespan opens once and every request shares."""

    settings: Settings
    cursors: CursorCodec
    client: DynamoDBClient | None = field(default=None)
    # Every subscription of the process, fed by the stream reader the lifespan makes and
    # the first socket, or the first look-up of a persisted document, starts (a process
    # that has neither reads no stream).
    feed: ChangeFeed = field(init=False)
    reader: StreamReader | None = None
    reading: asyncio.Task[None] | None = None

    # With Redis: the changes every replica hears (`gateway/replicas/fanout.py`), and its reading.
    fanout: ChangeFanout | None = None
    hearing: asyncio.Task[None] | None = None
    # Told of each document registration a replica announces through Redis (its hash,
    # whether trusted): `gateway/documents/persisted.py`.
    registrations: list[Callable[[str, bool], None]] = field(default_factory=list)

    async def follow(self, seconds: float = 10.0) -> None:
        """Start reading the table's stream (and with Redis, hearing the changes the
        replicas read), if not done yet, and wait until reading starts (at its latest
        record); a change made after this is delivered."""
        if self.reader is None:
            raise RuntimeError("the stream reader is made by the application lifespan")
        # A task that ended (it never should) is started again, not left for dead.
        if self.fanout is not None and (self.hearing is None or self.hearing.done()):
            self.hearing = asyncio.create_task(self.fanout.consume(), name="dynagate-changes")
        if self.reading is None or self.reading.done():
            self.reading = asyncio.create_task(self.reader.run(), name="dynagate-stream-reader")
        async with asyncio.timeout(seconds):
            await self.reader.ready.wait()
            if self.fanout is not None:
                await self.fanout.ready.wait()

    async def stop_following(self, seconds: float = STOP_SECONDS) -> None:
        """Stop reading and hearing, and give the leases back: each step given `seconds`
        at most, so that a process always stops (a step left undone is logged)."""
        for task in (self.reading, self.hearing):
            if task is not None:
                task.cancel()
                done, _ = await asyncio.wait({task}, timeout=seconds)
                if not done:
                    logger.warning("%s did not stop within %g s", task.get_name(), seconds)
        self.reading = self.hearing = None
        if self.reader is not None:
            try:
                async with asyncio.timeout(seconds):
                    await self.reader.release()  # others take its shards at once
            except TimeoutError:
                logger.warning("the stream's leases were not given back within %g s", seconds)

    metrics: Metrics | None = None
    # Traces (docs/tracing.md), when `OTEL_*` settings turn them on.
    tracing: Traces | None = None
    # Where processes and replicas share state (DYNAGATE_REDIS_URL), if anywhere.
    redis: Redis | None = None
    # The rate limit's buckets (None: no rate limit), and what closes what was opened.
    limiter: RateLimiter | None = field(init=False)
    _opened: AsyncExitStack = field(init=False, default_factory=AsyncExitStack)

    # What the table's stream lacked at start (None: it serves subscriptions and the cache).
    stream_missing: str | None = field(init=False, default=None)
    # The read cache (DYNAGATE_CACHE=on), and the task that keeps the stream followed for it.
    cache: CachedReads | None = field(init=False, default=None)
    _watching: asyncio.Task[None] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.feed = ChangeFeed(served(self.settings.model).followed)
        self.layout = declared(self.settings.model).table_layout
        self.limiter = self._rate_limiter()
        if self.metrics is not None:
            self.feed.observers.append(self.metrics.event)
        if self.settings.cache:
            indexes = set(declared(self.settings.model).indexes)
            self.cache = CachedReads(
                self.settings.cache_bytes, indexes, observer=self.metrics, table=self.layout.table
            )

    async def __aenter__(self) -> Self:
        settings, metrics, opened = self.settings, self.metrics, self._opened
        client = await opened.enter_async_context(settings.open_client())
        streams = await opened.enter_async_context(
            open_streams_client(settings.endpoint, settings.region, local=settings.custom_endpoint)
        )
        self.client = client
        opened.callback(setattr, self, "client", None)
        # Before the metrics watch the client: this call serves no request.
        self.stream_missing = await warn_unless_ready(
            client, settings, declared(settings.model).indexes
        )
        if not await self.redis_answers():
            logger.warning(REDIS_DOWN + "; `dynagate check` tells more")
        if self.tracing is not None:
            opened.push_async_callback(asyncio.to_thread, self.tracing.close, STOP_SECONDS)
        if metrics is not None:
            opened.callback(metrics.watch(client))
            opened.callback(metrics.watch(streams))
            opened.callback(metrics.close)
        # One reader of the table's stream feeds every subscription of the process; with
        # Redis, one reader per shard across the replicas feeds them all.
        self.reader = self.stream_reader(client, streams)
        limiter = self.limiter
        if isinstance(limiter, SharedRateLimiter):
            flushing = asyncio.create_task(limiter.flushing(), name="dynagate-rate-limit-flush")
            opened.push_async_callback(self._pay_redis, limiter, flushing)
        if self.redis is not None:
            opened.push_async_callback(self._close_redis, self.redis)
        # Last in, first out: reading stops first (leases given back), then what is owed
        # goes to Redis, then the clients close.
        opened.push_async_callback(self.stop_following)
        if self.cache is not None:
            # The cache answers only while the stream is followed: from the start.
            self._watching = asyncio.create_task(self._watch_cache(), name="dynagate-cache")
            opened.push_async_callback(self._stop_watching)
        # What start-up allocated lives as long as the process: keep the collector from
        # walking it again on every young-generation collection.
        gc.freeze()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._opened.aclose()

    async def _watch_cache(self) -> None:
        """Follow the stream for the read cache, and every second, let go of what it holds
        once the stream is not followed and report how old an unapplied change may be."""
        cache, metrics = self.cache, self.metrics
        ended = True  # not started yet
        while cache is not None:
            if ended:
                try:
                    await self.follow()
                except Exception:  # the reader goes on trying; the cache answers once it reads
                    logger.warning("the table's stream is not read: the read cache answers nothing")
            cache.answering()
            reading = self.reading
            # Reading ended by itself (it never should; stopping it on purpose cancels it).
            ended = reading is not None and reading.done() and not reading.cancelled()
            age = cache.unapplied_seconds()
            if metrics is not None and age is not None:
                metrics.cache_unapplied.set(age)
            await asyncio.sleep(1.0)

    async def _stop_watching(self) -> None:
        if self._watching is not None:
            self._watching.cancel()
            await asyncio.wait({self._watching}, timeout=STOP_SECONDS)

    def _heard(self, records: Sequence[StreamRecord]) -> None:
        """Changes of the table: out of the read cache, then to the subscriptions."""
        if self.cache is not None:
            try:
                self.cache.heard(records)
            except Exception:  # never leave entries these changes should have dropped
                logger.exception("the read cache could not apply %d changes", len(records))
                self.cache.forget()
        self.feed.publish(records)

    async def redis_answers(self) -> bool:
        """Whether DYNAGATE_REDIS_URL's Redis answers a PING now (True without Redis)."""
        if self.redis is None:
            return True
        try:
            async with asyncio.timeout(REDIS_SECONDS):
                await self.redis.ping()
        except (RedisError, OSError, TimeoutError):
            return False
        return True

    def degraded(self) -> list[str]:
        """What the process is doing without (`/readyz`): the table's stream, or Redis."""
        found = []
        reading = self.reading is not None
        if (reading and self.reader is not None and self.reader.streamless) or (
            not reading and self.stream_missing is not None
        ):
            found.append(
                "the table has no stream: subscriptions hear of no change and the read cache"
                " answers nothing; `dynagate create-table --enable-stream` turns it on"
            )
        elif self.cache is not None and not self.cache.followed():
            found.append("the table's stream is not followed: the read cache answers nothing")
        if isinstance(self.limiter, SharedRateLimiter) and self.limiter.degraded:
            found.append("Redis is unreachable: rate limits are per process until it returns")
        if self.fanout is not None and self.fanout.degraded:
            found.append("Redis is unreachable: subscribers hear of changes once it returns")
        return found

    @staticmethod
    async def _pay_redis(limiter: SharedRateLimiter, flushing: asyncio.Task[None]) -> None:
        flushing.cancel()
        await limiter.flush()

    @staticmethod
    async def _close_redis(redis: Redis) -> None:
        try:
            async with asyncio.timeout(STOP_SECONDS):
                await redis.aclose()
        except TimeoutError:
            logger.warning("the Redis client did not close within %g s", STOP_SECONDS)

    def _rate_limiter(self) -> RateLimiter | None:
        """The rate limit's buckets: in Redis when there is one, else in this process."""
        limit = self.settings.rate_limit
        if limit is None:
            return None
        if self.redis is None:
            return RateLimiter(limit)
        metrics = self.metrics
        counted = None if metrics is None else metrics.redis_failures.labels("rate_limit").inc
        return SharedRateLimiter(limit, self.redis, on_failure=counted)

    def stream_reader(self, client: DynamoDBClient, streams: Any) -> StreamReader:
        """The process's reader of the table's stream: of every shard, feeding this
        process's subscriptions; with Redis, of the shards whose lease it holds, feeding
        every replica's (`gateway/replicas/fanout.py`)."""
        table, metrics, cache = self.settings.table, self.metrics, self.cache
        if self.redis is None:
            beat = None if cache is None else partial(cache.beat, "")
            return StreamReader(
                client,
                streams,
                table,
                self._heard,
                observer=metrics,
                on_round=beat,
                keys=self.layout.table,
            )
        counted = None if metrics is None else metrics.redis_failures.labels("changes").inc
        owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        fanout = ChangeFanout(
            self.redis,
            self._heard,
            cache=cache,
            owner=owner,
            on_failure=counted,
            documents=self.registrations,
        )
        self.fanout = fanout
        if cache is not None:
            cache.publish = fanout.tell  # other replicas hear of this one's writes
            cache.sync = fanout.caught_up  # and this one of theirs, before it answers
        leases = ShardLeases(Store(client, table, layout=self.layout), owner)
        return StreamReader(
            client,
            streams,
            table,
            fanout.publish,
            leases=leases,
            observer=metrics,
            on_round=None if cache is None else fanout.beat,
            keys=self.layout.table,
        )

    def require_client(self) -> DynamoDBClient:
        if self.client is None:
            raise RuntimeError("the DynamoDB client is opened by the application lifespan")
        return self.client


def redis_client(settings: Settings, traces: Traces | None = None) -> Redis | None:
    """The client of DYNAGATE_REDIS_URL: connected on first use, and quick to give up (a
    request then goes on with the process's own state); with `traces`, its calls traced."""
    if settings.redis_url is None:
        return None
    kind = Redis
    if traces is not None:
        # Imported only when tracing is on: without it no tracing code runs.
        from gateway.traces.redis import traced_redis

        kind = traced_redis(traces)
    return kind.from_url(
        settings.redis_url,
        socket_timeout=REDIS_SECONDS,
        socket_connect_timeout=REDIS_SECONDS,
        # Never tried again within a call: the caller goes on without Redis meanwhile.
        retry=Retry(NoBackoff(), 0),
    )
