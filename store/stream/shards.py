"""Which shards of the table's stream to read, and from where: pure bookkeeping.

A stream is a tree of shards. DynamoDB closes a shard after a few hours or when its
partition splits, and an item's later records go on in a child; so a child is read only
once its parent has been read to its end, and the records of one item stay in order. A
stream turned off and on again is a new stream, read once every shard of the old one is.
Shard ids are unique across streams (they carry their creation time and a random part).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Start = Literal["LATEST", "TRIM_HORIZON"]


@dataclass
class Shard:
    stream: str
    id: str
    parent: str | None
    # Where reading begins while no record has been read.
    start: Start
    iterator: str | None = None
    # The sequence number of the last record read.
    last: str | None = None

    def position(self) -> dict[str, str]:
        """GetShardIterator's arguments for going on where reading stopped."""
        if self.last is not None:
            return {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": self.last}
        return {"ShardIteratorType": self.start}


class Lineage:
    """The shards being read, and those read to their end (or skipped), per stream."""

    def __init__(self) -> None:
        self._open: dict[str, Shard] = {}
        self._done: dict[str, set[str]] = {}

    def add(
        self, stream: str, shards: Iterable[Mapping[str, Any]], *, at_start: bool
    ) -> list[Shard]:
        """Take in DescribeStream's `Shards` of `stream`; returns those new to it.

        At start, an open shard is read from its latest record and a closed one is skipped:
        its records were written before the reader started. A shard found later is read
        from its oldest record, since all of them were written after that.
        """
        done = self._done.setdefault(stream, set())
        found: list[Shard] = []
        for description in shards:
            shard_id: str = description["ShardId"]
            if shard_id in self._open or shard_id in done:
                continue
            closed = "EndingSequenceNumber" in description.get("SequenceNumberRange", {})
            if at_start and closed:
                done.add(shard_id)
                continue
            start: Start = "LATEST" if at_start else "TRIM_HORIZON"
            shard = Shard(stream, shard_id, description.get("ParentShardId"), start)
            self._open[shard_id] = shard
            found.append(shard)
        return found

    @property
    def open(self) -> list[Shard]:
        return list(self._open.values())

    def readable(self) -> list[Shard]:
        """The shards to poll now: of the oldest stream with shards left, those whose parent
        is read to its end or unknown here (older than the stream's trim horizon)."""
        left = {shard.stream for shard in self._open.values()}
        oldest = next((stream for stream in self._done if stream in left), None)
        return [
            shard
            for shard in self._open.values()
            if shard.stream == oldest and (shard.parent is None or shard.parent not in self._open)
        ]

    def close(self, shard: Shard) -> None:
        """`shard` was read to its end: its children may be read."""
        self._open.pop(shard.id, None)
        self._done.setdefault(shard.stream, set()).add(shard.id)

    def drop(self, stream: str) -> None:
        """Forget `stream`: it no longer exists."""
        self._open = {i: s for i, s in self._open.items() if s.stream != stream}
        self._done.pop(stream, None)
