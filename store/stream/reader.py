"""The reader of the table's DynamoDB stream: every change of an item, whoever made it.

One reader per process. It finds the table's stream (`DescribeTable`), starts at its
latest record, polls every open shard with GetRecords and hands each batch to `deliver`,
in stream order per shard; a shard's children are read once it is read to its end
(`store.stream.shards`). A failed call is tried again after a pause from the same place (the same
iterator, or a new one after the last record read), so an outage loses and repeats
nothing. `run` goes on until cancelled and never raises otherwise.

With leases (`store.stream.leases`: replicas sharing the stream) it reads only the shards whose
lease it holds (`store.stream.leased_shards`), goes on from their checkpoints, and keeps its place
in a shard until the batch is handed over (a `DeliveryFailed` is tried again from there).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from botocore.exceptions import BotoCoreError, ClientError

from keys.leases import LABEL as LEASES
from keys.table import TABLE, Index
from store.errors import UNREACHABLE, error_code
from store.stream.leased_shards import Hold, LeasedShards
from store.stream.leases import ShardLeases
from store.stream.records import StreamRecord, from_raw
from store.stream.shards import Lineage, Shard

if TYPE_CHECKING:
    from store.client import DynamoDBClient

logger = logging.getLogger("dynagate")

# GetRecords' most: records, and (about) bytes.
_LIMIT = 1000
_NEAR_FULL = 512 * 1024
_EXPIRED = "ExpiredIteratorException"
_TRIMMED = "TrimmedDataAccessException"
_GONE = "ResourceNotFoundException"


class StreamObserver(Protocol):
    """Told how reading goes, for the metrics."""

    def read(self, records: int, lag_seconds: float | None) -> None:
        """After each GetRecords batch that brought records; the lag is the time since the
        newest of them was written."""

    def failed(self, reason: str) -> None:
        """A stream call failed past the SDK's retries (DynamoDB's code, or "unreachable")."""


# Told after each round that read every shard it polled to its end: the shards polled,
# those the stream has to read (polled here or by other processes), and the round's
# seconds.
RoundObserver = Callable[[set[str], set[str], float], Awaitable[None] | None]


class StreamsClient(Protocol):
    """What the reader asks of aiobotocore's `dynamodbstreams` client."""

    async def describe_stream(self, **request: Any) -> Any: ...
    async def get_shard_iterator(self, **request: Any) -> Any: ...
    async def get_records(self, **request: Any) -> Any: ...


class _Refused(Exception):
    """A refusal the reader answers itself: an expired iterator, trimmed data, a stream
    or shard that no longer exists."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class DeliveryFailed(Exception):
    """What a batch was handed to could not take it (Redis unreachable, say): the reader
    keeps its place in the shard and hands the batch over again after a pause."""


class _Failed(Exception):
    """Any other failed call: tried again after a pause."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


class StreamReader:
    """Reads the stream of `table` and hands each batch of records to `deliver`.

    `idle`: the first and the longest wait after a round that brought nothing (doubling
    in between); `refresh`: seconds between looks for the stream and for new shards;
    `backoff`: the first and the longest pause after a failed call (jittered).
    """

    def __init__(
        self,
        client: DynamoDBClient,
        streams: StreamsClient,
        table: str,
        deliver: Callable[[Sequence[StreamRecord]], Awaitable[None] | None],
        *,
        leases: ShardLeases | None = None,
        observer: StreamObserver | None = None,
        on_round: RoundObserver | None = None,
        idle: tuple[float, float] = (0.05, 0.5),
        refresh: float = 10.0,
        backoff: tuple[float, float] = (0.5, 10.0),
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        keys: Index = TABLE,  # the layout's table: its partition key tells the leases apart
    ) -> None:
        self._client = client
        self._keys = keys
        self._streams = streams
        self._table = table
        self._deliver = deliver
        # Only the shards whose lease this process holds, when replicas share the stream.
        self.leased = None if leases is None else LeasedShards(leases, clock)
        self._observer = observer
        self._on_round = on_round
        # This round did not surely read every shard it polled to its end: one refused its
        # iterator, answered a full batch, or a batch was not delivered.
        self._unsure = False
        self._idle = idle
        self._refresh = refresh
        self._backoff = backoff
        self._clock = clock
        self._sleep = sleep
        self._lineage = Lineage()
        # Closed shards whose children are still to be looked for.
        self._parents: list[Shard] = []
        # The table's stream as last seen, None when it has none.
        self._stream: str | None = None
        self._next_look = 0.0
        self._warned = False
        # Whether the table had no stream at the last look (what needs it is off).
        self.streamless = False
        # Set once reading starts where the reader started: at the latest record of every
        # shard open then, or nowhere when the table had no stream.
        self.ready = asyncio.Event()

    async def run(self) -> None:
        wait = self._idle[0]
        failures = 0
        while True:
            try:
                read = await self._round()
            except Exception as exc:  # cancelling is a BaseException: it ends the loop
                failures += 1
                reason = exc.reason if isinstance(exc, _Failed) else type(exc).__name__
                if failures == 1:
                    logger.warning(
                        "reading the table's stream failed (%s); trying again from where it"
                        " stopped",
                        exc,
                        exc_info=not isinstance(exc, _Failed),
                    )
                if self._observer is not None:
                    self._observer.failed(reason)
                base, cap = self._backoff
                delay = min(cap, base * 2 ** (failures - 1))
                await self._sleep(random.uniform(delay / 2, delay))
                continue
            if failures:
                logger.warning("reading the table's stream again after %d failed calls", failures)
                failures = 0
            if read is None:  # no stream: nothing to poll until the next look
                await self._sleep(max(0.0, self._next_look - self._clock()))
            elif read:
                wait = self._idle[0]
            else:
                await self._sleep(wait)
                wait = min(wait * 2, self._idle[1])

    async def _round(self) -> int | None:
        """Look for the stream and its shards when due, then poll every readable shard once;
        the records read, None when there is no shard to poll."""
        if self._clock() >= self._next_look:
            await self._look()
            self._next_look = self._clock() + self._refresh
        await self._children()
        shards = self._lineage.readable()
        if not shards:
            return None if self._stream is None else 0
        read = 0
        started = self._clock()
        self._unsure = False
        polled: set[str] = set()
        behind = False
        for shard in shards:
            if self.leased is not None:
                held = await self.leased.hold(shard)
                if held is Hold.ENDED:
                    self._closed(shard)
                if held is not Hold.HELD:
                    continue  # another process reads it
            records = await self._poll(shard)
            read += records
            polled.add(shard.id)
            behind = behind or records >= _LIMIT
        if self._on_round is not None and not behind and not self._unsure:
            # Every shard polled was read to its end: what was written before the round
            # began (and reached the stream) is delivered.
            told = self._on_round(polled, {shard.id for shard in shards}, self._clock() - started)
            if told is not None:
                await told
        return read

    async def release(self) -> None:
        """Give back every lease held (the process stops): others take them at once."""
        if self.leased is not None:
            await self.leased.release()

    async def _look(self) -> None:
        """The table's stream and its new shards. At the first look, every open shard gets
        its iterator at once: the start of what is delivered."""
        response = await self._call(self._client.describe_table, TableName=self._table)
        table = response["Table"]
        enabled = (table.get("StreamSpecification") or {}).get("StreamEnabled", False)
        arn = table.get("LatestStreamArn") if enabled else None
        at_start = not self.ready.is_set()
        self.streamless = arn is None
        if arn is None:
            if not self._warned:
                logger.warning(
                    "the table has no stream: subscriptions hear of no change, the read cache"
                    " answers nothing and persisted documents are read from the table until"
                    " `dynagate create-table --enable-stream` turns it on"
                )
                self._warned = True
        else:
            self._warned = False
            try:
                self._lineage.add(arn, await self._shards(arn), at_start=at_start)
            except _Refused:  # turned off since DescribeTable
                arn = None
        self._stream = arn
        if at_start:
            for shard in self._lineage.open:
                if shard.iterator is None:
                    try:
                        shard.iterator = await self._iterator(shard)
                    except _Refused as exc:
                        await self._refused(shard, exc.code)
            self.ready.set()

    async def _shards(self, arn: str, **only: Any) -> list[dict[str, Any]]:
        """Every page of DescribeStream's shards of `arn` (`only`: a ShardFilter)."""
        shards: list[dict[str, Any]] = []
        request: dict[str, Any] = {"StreamArn": arn, **only}
        while True:
            response = await self._call(self._streams.describe_stream, _GONE, **request)
            description = response["StreamDescription"]
            shards.extend(description.get("Shards", []))
            after = description.get("LastEvaluatedShardId")
            if not after:
                return shards
            request["ExclusiveStartShardId"] = after

    async def _iterator(self, shard: Shard) -> str:
        response = await self._call(
            self._streams.get_shard_iterator,
            _GONE,
            _TRIMMED,
            StreamArn=shard.stream,
            ShardId=shard.id,
            **shard.position(),
        )
        iterator: str = response["ShardIterator"]
        return iterator

    async def _poll(self, shard: Shard) -> int:
        """One GetRecords of `shard`; the records read."""
        try:
            if shard.iterator is None:
                shard.iterator = await self._iterator(shard)
            response = await self._call(
                self._streams.get_records,
                _EXPIRED,
                _TRIMMED,
                _GONE,
                ShardIterator=shard.iterator,
                Limit=_LIMIT,
            )
        except _Refused as exc:
            await self._refused(shard, exc.code)
            return 0
        raws = response.get("Records", [])
        records = [from_raw(raw, shard.id) for raw in raws]
        if sum(raw.get("dynamodb", {}).get("SizeBytes", 0) for raw in raws) >= _NEAR_FULL:
            self._unsure = True  # GetRecords stops at 1 MB: more may be waiting
        following = response.get("NextShardIterator")
        fresh: list[StreamRecord] = []
        if records:
            skip = None if self.leased is None else self.leased.skip_before(shard)
            # The leases' own changes are the readers' bookkeeping, not the data's: handed
            # over and checkpointed, each renewal would make a change to read, forever.
            fresh = [
                r
                for r in records
                if not _is_lease(r, self._keys) and (skip is None or r.created >= skip)
            ]
            if fresh:
                await self._hand_over(fresh)  # a failure keeps the place: read again
            shard.last = records[-1].sequence
            if self._observer is not None:
                newest = max(record.created for record in records)
                self._observer.read(len(records), max(0.0, self._clock() - newest))
        shard.iterator = following
        if self.leased is not None and not await self.leased.checkpoint(
            shard, delivered=bool(fresh), ended=following is None
        ):
            return len(records)
        if following is None and self._closed(shard):  # read to its end, of this stream
            await self._children()
        return len(records)

    async def _hand_over(self, records: Sequence[StreamRecord]) -> None:
        try:
            handed = self._deliver(records)
            if handed is not None:
                await handed
        except DeliveryFailed as exc:
            raise _Failed("deliver", str(exc)) from exc
        except Exception:
            self._unsure = True  # not delivered: this round read nothing to its end
            logger.exception("delivering %d stream records failed", len(records))

    async def _children(self) -> None:
        """Find the children of the shards closed since the last call (a failed call leaves
        the rest for the next round)."""
        while self._parents:
            parent = self._parents[0]
            only = {"ShardFilter": {"Type": "CHILD_SHARDS", "ShardId": parent.id}}
            try:
                children = await self._shards(parent.stream, **only)
            except _Refused:  # the stream is gone: the next look finds out
                children = []
            self._lineage.add(parent.stream, children, at_start=False)
            self._parents.pop(0)

    async def _refused(self, shard: Shard, code: str) -> None:
        self._unsure = True
        shard.iterator = None  # the next poll asks for a new one from `shard.position()`
        if code == _TRIMMED:
            logger.warning(
                "stream records of shard %s were trimmed before they were read (lost);"
                " reading on from its oldest record",
                shard.id,
            )
            shard.last, shard.start = None, "TRIM_HORIZON"
        elif code == _GONE:
            try:
                await self._call(self._streams.describe_stream, _GONE, StreamArn=shard.stream)
            except _Refused:
                logger.warning("the table's stream %s no longer exists", shard.stream)
                self._lineage.drop(shard.stream)
                if shard.stream == self._stream:
                    self._stream = None
                    self._next_look = 0.0  # look for the table's stream at once
            else:
                logger.warning("shard %s of the table's stream no longer exists", shard.id)
                self._closed(shard)

    def _closed(self, shard: Shard) -> bool:
        """`shard` is read to its end: its children are looked for when it is of the
        table's current stream (whether it is)."""
        self._lineage.close(shard)
        if shard.stream != self._stream:
            return False
        self._parents.append(shard)
        return True

    async def _call(
        self, method: Callable[..., Awaitable[Any]], *refusals: str, **request: Any
    ) -> Any:
        """`method(**request)`; a refusal whose code is in `refusals` raised as `_Refused`,
        any other failure as `_Failed`."""
        try:
            return await method(**request)
        except ClientError as exc:
            code = error_code(exc)
            if code in refusals:
                raise _Refused(code) from exc
            raise _Failed(code or "error", str(exc)) from exc
        except UNREACHABLE as exc:
            raise _Failed("unreachable", str(exc)) from exc
        except BotoCoreError as exc:
            raise _Failed(type(exc).__name__, str(exc)) from exc


def _is_lease(record: StreamRecord, keys: Index) -> bool:
    return str(record.keys.get(keys.partition_key, "")).startswith(LEASES)
