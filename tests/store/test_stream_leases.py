"""The stream reader with leases, against a fake stream and leases kept in memory: a shard
another process holds is not read; one it read to its end and gave back leads to its
children; one taken over goes on from its checkpoint, not replaying what is too old."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from store.stream.leased_shards import REPLAY_SECONDS
from store.stream.leases import Lease, Seen, Start
from store.stream.reader import StreamReader, StreamRecord
from tests.store.fake_stream import Clock, FakeStreams, FakeTable


@dataclass
class FakeLeases:
    """`store.stream.leases.ShardLeases` in memory; `others` hold leases on cue."""

    clock: Clock
    owner: str = "me"
    seconds: float = 6.0
    items: dict[str, dict[str, Any]] = field(default_factory=dict)

    async def look(self, stream: str, shard: str) -> Seen | None:
        item = self.items.get(shard)
        return None if item is None else Seen(item["owner"], item["counter"])

    async def take(self, stream: str, shard: str, seen: Seen | None, start: Start) -> Lease | None:
        item = self.items.get(shard)
        if (seen is None) != (item is None) or (item and item["counter"] != seen.counter):  # type: ignore[union-attr]
            return None
        item = item or {"since": self.clock(), "start": start, "checkpoint": None, "ended": False}
        item.update(owner=self.owner, counter=item.get("counter", 0) + 1)
        self.items[shard] = item
        return Lease(
            stream,
            shard,
            item["counter"],
            item["checkpoint"],
            item["since"],
            item["start"],
            item["ended"],
            first=seen is None,
        )

    async def renew(self, lease: Lease) -> bool:
        return self._mine(lease)

    async def checkpoint(self, lease: Lease, sequence: str | None, *, ended: bool) -> bool:
        if not self._mine(lease):
            return False
        self.items[lease.shard].update(checkpoint=sequence, ended=ended)
        return True

    async def release(self, lease: Lease) -> None:
        if self._mine(lease):
            self.items[lease.shard]["owner"] = None

    def hold(self, shard: str, owner: str, **more: Any) -> None:
        item = {"since": self.clock(), "start": "LATEST", "checkpoint": None, "ended": False}
        self.items[shard] = {**item, "owner": owner, "counter": 1, **more}

    def _mine(self, lease: Lease) -> bool:
        item = self.items.get(lease.shard)
        if item is None or item["owner"] != self.owner:
            return False
        item["counter"] += 1
        return True


async def reading(
    streams: FakeStreams, leases: FakeLeases, clock: Clock, batches: list[list[StreamRecord]]
) -> asyncio.Task[None]:
    table = FakeTable()
    table.stream = "arn:stream/1"

    def deliver(records: Sequence[StreamRecord]) -> None:
        batches.append(list(records))

    reader = StreamReader(
        table,  # type: ignore[arg-type]
        streams,
        "dynagate",
        deliver,
        leases=leases,  # type: ignore[arg-type]
        clock=clock,
        sleep=clock.sleep,
    )
    task = asyncio.create_task(reader.run())
    for _ in range(2_000):
        if reader.ready.is_set():
            break
        await asyncio.sleep(0)
    return task


async def until(done: Any) -> None:
    for _ in range(20_000):
        if done():
            return
        await asyncio.sleep(0)
    raise AssertionError("the reader never got there")


def numbers(batches: list[list[StreamRecord]]) -> list[int]:
    return [r.new["n"] for batch in batches for r in batch if r.new is not None]


async def test_a_parent_read_elsewhere_and_given_back_leads_to_its_children() -> None:
    clock = Clock()
    streams = FakeStreams(clock)
    streams.shard("A")
    leases = FakeLeases(clock)
    leases.hold("A", "other")
    batches: list[list[StreamRecord]] = []
    task = await reading(streams, leases, clock, batches)
    try:
        streams.write("A", 1)  # read by the other process (alive: less than 6 s): not here
        await until(lambda: clock.now > 1_000_004)
        assert streams.called("GetRecords") == [] and numbers(batches) == []
        # The other reads A to its end, marks it ended and gives it back; A splits.
        streams.shards["A"].closed = True
        streams.shard("B", parent="A")
        streams.write("B", 2)
        leases.items["A"].update(owner=None, ended=True, counter=5)
        await until(lambda: numbers(batches) == [2])
        assert leases.items["B"]["owner"] == "me"
        assert all(r["ShardIterator"][0] == "B" for r in streams.called("GetRecords"))
    finally:
        task.cancel()


async def test_a_lease_taken_over_goes_on_from_its_checkpoint_within_the_replay_window() -> None:
    clock = Clock()
    streams = FakeStreams(clock)
    streams.shard("A")
    leases = FakeLeases(clock)
    batches: list[list[StreamRecord]] = []
    streams.write("A", 0)
    streams.write("A", 1)
    checkpoint = streams.shards["A"].records[0]["dynamodb"]["SequenceNumber"]
    leases.hold("A", "dead", checkpoint=checkpoint)  # it delivered 0, then died
    task = await reading(streams, leases, clock, batches)
    try:
        # Its counter stands still: taken after a lease's time, read on after 0.
        await until(lambda: numbers(batches) == [1])
        assert leases.items["A"]["owner"] == "me"
        assert clock.now - 1_000_000 < leases.seconds + 3 * 2.0 + REPLAY_SECONDS
    finally:
        task.cancel()


async def test_a_change_whose_time_is_rounded_down_to_the_minute_is_not_taken_for_old() -> None:
    """DynamoDB Local rounds a record's time down to the minute: written in a minute's last
    second and read on by the process that takes the shard over some seconds later, it is
    still within the replay window."""
    clock = Clock()
    streams = FakeStreams(clock)
    streams.time_precision = 60.0
    streams.shard("A")
    leases = FakeLeases(clock)
    batches: list[list[StreamRecord]] = []
    streams.write("A", 0)
    checkpoint = streams.shards["A"].records[0]["dynamodb"]["SequenceNumber"]
    leases.hold("A", "dead", checkpoint=checkpoint)  # it delivered 0, then died
    clock.now += 59 - clock.now % 60  # the last second of a minute
    streams.write("A", 1)
    task = await reading(streams, leases, clock, batches)
    try:
        await until(lambda: numbers(batches) == [1])
        assert leases.items["A"]["owner"] == "me"
    finally:
        task.cancel()
