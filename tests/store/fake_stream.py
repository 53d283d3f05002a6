"""A fake DynamoDB Streams, table and clock for the stream reader's pure tests
(`test_stream_shards.py`).

DynamoDB Local has one shard per table and neither splits nor trims: here shards split,
close, expire their iterators and lose records on cue, and DescribeStream honours
`ShardFilter` and pages at two shards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

ARN = "arn:stream/1"
START = 1_000_000.0


def refused(code: str, status: int = 400) -> ClientError:
    response: Any = {"Error": {"Code": code, "Message": code}, "ResponseMetadata": {}}
    response["ResponseMetadata"]["HTTPStatusCode"] = status
    return ClientError(response, "Call")


@dataclass
class FakeShard:
    stream: str
    id: str
    parent: str | None
    records: list[dict[str, Any]] = field(default_factory=list)
    closed: bool = False
    # Records before this index are past the trim horizon.
    trimmed: int = 0


class FakeStreams:
    """DynamoDB Streams over shards held in memory; iterators are "shard@index#serial"."""

    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now
        self.shards: dict[str, FakeShard] = {}
        self.gone: set[str] = set()
        self.issued: list[str] = []
        self.expired: set[str] = set()
        # Exceptions the next calls of an operation raise, in turn.
        self.failures: dict[str, list[Exception]] = {}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.page = 2
        # False: every shard whatever the ShardFilter, as DynamoDB Local answers.
        self.filters = True
        self.sequence = 0
        # Seconds a record's time is rounded down to (DynamoDB Local's: to the minute).
        self.time_precision: float | None = None

    def shard(self, shard_id: str, parent: str | None = None, stream: str = ARN) -> FakeShard:
        self.shards[shard_id] = FakeShard(stream, shard_id, parent)
        return self.shards[shard_id]

    def write(self, shard_id: str, n: int) -> None:
        self.sequence += 1
        self.shards[shard_id].records.append(
            {
                "eventName": "INSERT",
                "dynamodb": {
                    "Keys": {"PK": {"S": f"P#{n}"}, "SK": {"S": "S"}},
                    "NewImage": {"PK": {"S": f"P#{n}"}, "SK": {"S": "S"}, "n": {"N": str(n)}},
                    "SequenceNumber": f"{self.sequence:021d}",
                    "ApproximateCreationDateTime": datetime.fromtimestamp(self._time(), UTC),
                },
            }
        )

    def _time(self) -> float:
        step = self.time_precision
        return self.now() if step is None else self.now() // step * step

    def iterator(self, shard_id: str, index: int) -> str:
        self.issued.append(f"{shard_id}@{index}#{len(self.issued)}")
        return self.issued[-1]

    def expire(self, shard_id: str) -> None:
        """Every iterator of the shard given so far is expired."""
        self.expired.update(i for i in self.issued if i.startswith(f"{shard_id}@"))

    def _called(self, operation: str, request: dict[str, Any]) -> None:
        self.calls.append((operation, request))
        queued = self.failures.get(operation)
        if queued:
            raise queued.pop(0)

    def called(self, operation: str) -> list[dict[str, Any]]:
        return [request for name, request in self.calls if name == operation]

    async def describe_stream(self, **request: Any) -> Any:
        self._called("DescribeStream", request)
        if request["StreamArn"] in self.gone:
            raise refused("ResourceNotFoundException")
        shards = [s for s in self.shards.values() if s.stream == request["StreamArn"]]
        if "ShardFilter" in request and self.filters:
            shards = [s for s in shards if s.parent == request["ShardFilter"]["ShardId"]]
        ids = [s.id for s in shards]
        first = (
            ids.index(request["ExclusiveStartShardId"]) + 1
            if "ExclusiveStartShardId" in request
            else 0
        )
        page = shards[first : first + self.page]
        description: dict[str, Any] = {"Shards": [_described(s) for s in page]}
        if first + self.page < len(shards):
            description["LastEvaluatedShardId"] = page[-1].id
        return {"StreamDescription": description}

    async def get_shard_iterator(self, **request: Any) -> Any:
        self._called("GetShardIterator", request)
        shard = self.shards[request["ShardId"]]
        kind = request["ShardIteratorType"]
        if kind == "LATEST":
            index = len(shard.records)
        elif kind == "TRIM_HORIZON":
            index = shard.trimmed
        else:
            sequences = [r["dynamodb"]["SequenceNumber"] for r in shard.records]
            index = sequences.index(request["SequenceNumber"]) + 1
        return {"ShardIterator": self.iterator(shard.id, index)}

    async def get_records(self, **request: Any) -> Any:
        self._called("GetRecords", request)
        iterator = request["ShardIterator"]
        if iterator in self.expired:
            raise refused("ExpiredIteratorException")
        shard_id, _, at = iterator.partition("@")
        shard, index = self.shards[shard_id], int(at.partition("#")[0])
        if shard.stream in self.gone:
            raise refused("ResourceNotFoundException")
        if index < shard.trimmed:
            raise refused("TrimmedDataAccessException")
        records = shard.records[index : index + request["Limit"]]
        response: dict[str, Any] = {"Records": records}
        end = index + len(records)
        if not (shard.closed and end == len(shard.records)):
            response["NextShardIterator"] = self.iterator(shard.id, end)
        return response


def _described(shard: FakeShard) -> dict[str, Any]:
    numbers: dict[str, str] = {"StartingSequenceNumber": "0"}
    if shard.closed:
        numbers["EndingSequenceNumber"] = "9"
    described: dict[str, Any] = {"ShardId": shard.id, "SequenceNumberRange": numbers}
    if shard.parent is not None:
        described["ParentShardId"] = shard.parent
    return described


class FakeTable:
    """DescribeTable of a table whose stream is `stream` (None: it has none)."""

    def __init__(self) -> None:
        self.stream: str | None = ARN
        self.looks = 0

    async def describe_table(self, **request: Any) -> Any:
        self.looks += 1
        if self.stream is None:
            return {"Table": {"TableName": request["TableName"]}}
        spec = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
        return {"Table": {"StreamSpecification": spec, "LatestStreamArn": self.stream}}


class Clock:
    """Time that passes only when the reader sleeps."""

    def __init__(self) -> None:
        self.now = START
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)
