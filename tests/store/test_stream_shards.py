"""The stream reader's shard walk, against a fake stream (`fake_stream.py`): no I/O, and
time passes only when the reader sleeps."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest
from botocore.exceptions import EndpointConnectionError

from store.stream.reader import StreamReader, StreamRecord
from store.stream.shards import Lineage
from tests.store.fake_stream import ARN, Clock, FakeStreams, FakeTable, refused


@dataclass
class Run:
    streams: FakeStreams
    table: FakeTable
    clock: Clock
    batches: list[list[StreamRecord]]
    failures: list[str]
    reads: list[tuple[int, float | None]]
    reader: StreamReader | None = None

    def deliver(self, records: Sequence[StreamRecord]) -> None:
        self.batches.append(list(records))

    @property
    def delivered(self) -> list[int]:
        return [r.new["n"] for batch in self.batches for r in batch if r.new is not None]

    async def until(self, done: Callable[[], bool]) -> None:
        for _ in range(2_000):
            if done():
                return
            await asyncio.sleep(0)
        raise AssertionError("the reader never got there")

    async def delivers(self, expected: Sequence[int]) -> None:
        await self.until(lambda: len(self.delivered) >= len(expected))
        # More rounds, for a record delivered twice to show.
        rounds = len(self.clock.sleeps) + 5
        await self.until(lambda: len(self.clock.sleeps) > rounds)
        assert self.delivered == list(expected)


@asynccontextmanager
async def running(
    setup: Callable[[FakeStreams], None] = lambda streams: None,
    *,
    refresh: float = 10.0,
    stream: str | None = ARN,
) -> AsyncIterator[Run]:
    clock = Clock()
    streams, table = FakeStreams(clock), FakeTable()
    table.stream = stream
    setup(streams)
    run = Run(streams, table, clock, [], [], [])

    class Observer:
        def read(self, records: int, lag_seconds: float | None) -> None:
            run.reads.append((records, lag_seconds))

        def failed(self, reason: str) -> None:
            run.failures.append(reason)

    reader = StreamReader(
        table,  # type: ignore[arg-type]
        streams,
        "dynagate",
        lambda records: run.deliver(records),
        observer=Observer(),
        refresh=refresh,
        clock=clock,
        sleep=clock.sleep,
    )
    run.reader = reader
    task = asyncio.create_task(reader.run())
    try:
        await run.until(reader.ready.is_set)
        yield run
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


def one_open_shard(streams: FakeStreams) -> None:
    streams.shard("A")
    streams.write("A", 0)  # before the start: never delivered


async def test_it_starts_at_the_latest_record_of_open_shards_and_skips_closed_ones() -> None:
    def setup(streams: FakeStreams) -> None:
        streams.shard("old").closed = True
        streams.write("old", -1)
        one_open_shard(streams)

    async with running(setup) as run:
        assert [r["ShardIteratorType"] for r in run.streams.called("GetShardIterator")] == [
            "LATEST"
        ]
        run.streams.write("A", 1)
        run.streams.write("A", 2)
        await run.delivers([1, 2])
    assert [r.shard for batch in run.batches for r in batch] == ["A", "A"]
    assert run.reads == [(2, 0.0)]


@pytest.mark.parametrize("honoured", [True, False], ids=["filtered", "unfiltered"])
async def test_a_split_shard_is_read_to_its_end_before_its_children(honoured: bool) -> None:
    # A refresh that never comes: the children are found by the parent's closing.
    async with running(one_open_shard, refresh=1e9) as run:
        run.streams.filters = honoured
        await run.until(lambda: len(run.streams.called("GetRecords")) > 2)
        streams = run.streams
        streams.write("A", 1)
        streams.write("A", 2)
        streams.shards["A"].closed = True
        for child, n in (("B", 3), ("C", 4)):
            streams.shard(child, parent="A")
            streams.write(child, n)
        await run.until(lambda: len(run.delivered) == 4)
        polls_of_a = len([r for r in streams.called("GetRecords") if r["ShardIterator"][0] == "A"])
        streams.write("B", 5)
        await run.until(lambda: len(run.delivered) == 5)

    assert [[r.shard for r in batch] for batch in run.batches] == [["A", "A"], ["B"], ["C"], ["B"]]
    children = [r for r in streams.called("GetShardIterator") if r["ShardId"] in "BC"]
    assert {r["ShardIteratorType"] for r in children} == {"TRIM_HORIZON"}
    # The closed shard is polled no more.
    assert len([r for r in streams.called("GetRecords") if r["ShardIterator"][0] == "A"]) == (
        polls_of_a
    )
    filters = [r.get("ShardFilter") for r in streams.called("DescribeStream")]
    assert {"Type": "CHILD_SHARDS", "ShardId": "A"} in filters


async def test_shards_found_later_are_read_from_their_oldest_record_parents_first() -> None:
    async with running(one_open_shard, refresh=1.0) as run:
        streams = run.streams
        # Found at a refresh: a closed parent and its child; and a shard whose parent is
        # past the trim horizon (unknown here), read at once.
        streams.shard("Q", parent="P")
        streams.write("Q", 2)
        streams.shard("P").closed = True
        streams.write("P", 1)
        streams.shard("R", parent="trimmed-long-ago")
        streams.write("R", 3)
        await run.until(lambda: len(run.delivered) == 3)
    order = [r.shard for batch in run.batches for r in batch]
    assert order.index("P") < order.index("Q")
    assert set(order) == {"P", "Q", "R"}
    assert [r["ShardIteratorType"] for r in run.streams.called("GetShardIterator")] == [
        "LATEST",
        *["TRIM_HORIZON"] * 3,
    ]


async def test_describe_stream_is_read_page_by_page() -> None:
    def five_shards(streams: FakeStreams) -> None:
        for name in "ABCDE":
            streams.shard(name)

    async with running(five_shards) as run:
        assert len(run.streams.called("GetShardIterator")) == 5
        run.streams.write("E", 1)
        await run.delivers([1])
    pages = run.streams.called("DescribeStream")[:3]
    assert [r.get("ExclusiveStartShardId") for r in pages] == [None, "B", "D"]


async def test_an_expired_iterator_goes_on_after_the_last_record_read() -> None:
    async with running(one_open_shard) as run:
        streams = run.streams
        # None read yet: the latest record again.
        streams.expire("A")
        await run.until(lambda: len(streams.called("GetShardIterator")) == 2)
        streams.write("A", 1)
        await run.delivers([1])
        sequence = streams.shards["A"].records[1]["dynamodb"]["SequenceNumber"]
        streams.expire("A")
        streams.write("A", 2)
        await run.delivers([1, 2])
    assert [
        (r["ShardIteratorType"], r.get("SequenceNumber"))
        for r in streams.called("GetShardIterator")
    ] == [
        ("LATEST", None),
        ("LATEST", None),
        ("AFTER_SEQUENCE_NUMBER", sequence),
    ]
    assert run.failures == []


async def test_trimmed_records_are_told_and_reading_goes_on_at_the_trim_horizon(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with running(one_open_shard) as run:
        streams = run.streams
        streams.write("A", 1)
        await run.delivers([1])
        for n in (2, 3, 4):
            streams.write("A", n)
        streams.shards["A"].trimmed = 3  # records 1 and 2 of the shard lost unread
        await run.delivers([1, 3, 4])
    assert streams.called("GetShardIterator")[-1]["ShardIteratorType"] == "TRIM_HORIZON"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "stream records of shard A were trimmed before they were read (lost);"
        " reading on from its oldest record"
    ]


async def test_idle_rounds_wait_longer_and_longer_until_a_record_comes() -> None:
    async with running(one_open_shard, refresh=1e9) as run:
        await run.until(lambda: len(run.clock.sleeps) == 6)
        run.streams.write("A", 1)
        await run.until(lambda: len(run.delivered) == 1)
        await run.until(lambda: len(run.clock.sleeps) == 9)
    # A record resets the wait (the round that read it does not wait at all).
    assert run.clock.sleeps == [0.05, 0.1, 0.2, 0.4, 0.5, 0.5, 0.05, 0.1, 0.2]


async def test_a_table_without_a_stream_is_told_once_and_looked_at_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with running(refresh=3.0, stream=None) as run:
        await run.until(lambda: run.table.looks == 4)
        assert set(run.clock.sleeps) == {3.0}
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert warnings == [
            "the table has no stream: subscriptions hear of no change, the read cache answers"
            " nothing and persisted documents are read from the table until `dynagate"
            " create-table --enable-stream` turns it on"
        ]
        assert run.reader is not None and run.reader.streamless  # `/readyz` names it
        # Turned on: the new stream is read from its oldest record.
        run.streams.shard("A")
        run.streams.write("A", 7)
        run.table.stream = ARN
        await run.delivers([7])
        assert not run.reader.streamless
    assert run.streams.called("GetShardIterator")[0]["ShardIteratorType"] == "TRIM_HORIZON"


async def test_a_failing_call_is_tried_again_from_the_same_place(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with running(one_open_shard, refresh=1e9) as run:
        streams = run.streams
        streams.write("A", 1)
        await run.delivers([1])
        streams.failures["GetRecords"] = [
            refused("InternalServerError", 500),
            refused("ThrottlingException"),
            EndpointConnectionError(endpoint_url="http://dynamodb"),
        ]
        waited = len(run.clock.sleeps)
        before = len(streams.called("GetRecords"))
        streams.write("A", 2)
        await run.delivers([1, 2])
    assert run.failures == ["InternalServerError", "ThrottlingException", "unreachable"]
    backoff = run.clock.sleeps[waited : waited + 3]
    for pause, (low, high) in zip(backoff, [(0.25, 0.5), (0.5, 1.0), (1.0, 2.0)], strict=True):
        assert low <= pause <= high
    polls = [r["ShardIterator"] for r in streams.called("GetRecords")][before : before + 4]
    assert len(set(polls)) == 1  # three failed tries and the good one: one iterator
    assert len(streams.called("GetShardIterator")) == 1
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert warnings[0].startswith("reading the table's stream failed (InternalServerError:")
    assert warnings[1] == "reading the table's stream again after 3 failed calls"


async def test_a_failed_look_for_children_is_made_again() -> None:
    async with running(one_open_shard, refresh=1e9) as run:
        streams = run.streams
        streams.failures["DescribeStream"] = [refused("InternalServerError", 500)]
        streams.shards["A"].closed = True
        streams.shard("B", parent="A")
        streams.write("B", 1)
        await run.delivers([1])
    assert run.failures == ["InternalServerError"]


async def test_a_stream_that_is_gone_is_looked_for_again(caplog: pytest.LogCaptureFixture) -> None:
    async with running(one_open_shard, refresh=1e9) as run:
        streams = run.streams
        streams.gone.add(ARN)
        streams.shard("B", stream="arn:stream/2")
        streams.write("B", 1)
        run.table.stream = "arn:stream/2"
        await run.delivers([1])
    assert run.failures == []
    assert run.table.looks == 2
    assert f"the table's stream {ARN} no longer exists" in caplog.messages


async def test_a_failing_delivery_is_logged_and_reading_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with running(one_open_shard) as run:

        def deliver(records: Sequence[StreamRecord]) -> None:
            if not caplog.records:
                raise RuntimeError("a bug above the store")
            run.batches.append(list(records))

        run.deliver = deliver  # type: ignore[method-assign]
        run.streams.write("A", 1)
        await run.until(lambda: bool(caplog.records))
        run.streams.write("A", 2)
        await run.delivers([2])
    assert caplog.messages == ["delivering 1 stream records failed"]


# ---- the lineage alone


def test_a_new_stream_is_read_once_every_shard_of_the_old_one_is() -> None:
    lineage = Lineage()
    lineage.add("old", [{"ShardId": "A", "SequenceNumberRange": {}}], at_start=True)
    lineage.add(
        "new",
        [
            {"ShardId": "B", "SequenceNumberRange": {}},
            {"ShardId": "C", "ParentShardId": "B", "SequenceNumberRange": {}},
        ],
        at_start=False,
    )
    assert [s.id for s in lineage.readable()] == ["A"]
    (a,) = lineage.readable()
    lineage.close(a)
    assert [s.id for s in lineage.readable()] == ["B"]
    assert [s.start for s in lineage.open] == ["TRIM_HORIZON", "TRIM_HORIZON"]
    lineage.drop("new")
    assert lineage.readable() == []
