"""The stream reader and the table's stream switch, against DynamoDB Local (directly, and
through the fault proxy)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from store.errors import DynamoDBFailure
from store.requests import to_attributes
from store.stream.reader import StreamReader, StreamRecord
from store.tables import create_table, create_table_request, turn_stream_on
from store.transport.connection import open_streams_client
from tests.faults import FaultProxy, Mode, without_backoff

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

pytestmark = pytest.mark.streamed


@pytest.fixture(scope="module")
async def streams(endpoint: str) -> AsyncIterator[Any]:
    async with open_streams_client(endpoint, "us-east-1", local=True, env={}) as client:
        yield client


@dataclass
class Observed:
    reads: list[tuple[int, float | None]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def read(self, records: int, lag_seconds: float | None) -> None:
        self.reads.append((records, lag_seconds))

    def failed(self, reason: str) -> None:
        self.failures.append(reason)


@asynccontextmanager
async def reading(
    client: DynamoDBClient, streams: Any, table: str, observer: Observed | None = None
) -> AsyncIterator[list[StreamRecord]]:
    """The records a running reader delivers, from when it is ready."""
    delivered: list[StreamRecord] = []
    reader = StreamReader(
        client,
        streams,
        table,
        delivered.extend,
        observer=observer,
        idle=(0.01, 0.05),
        backoff=(0.01, 0.05),
        refresh=0.2,
    )
    task = asyncio.create_task(reader.run())
    try:
        await asyncio.wait_for(reader.ready.wait(), 10)
        yield delivered
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def until(done: Callable[[], bool], seconds: float = 15.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the reader never got there")


async def put(client: DynamoDBClient, table: str, item: dict[str, Any]) -> None:
    await client.put_item(TableName=table, Item=to_attributes(item))


def key(n: int) -> dict[str, Any]:
    return {"PK": f"P#{n}", "SK": "S"}


async def test_put_update_and_delete_are_delivered_with_both_images(
    client: DynamoDBClient, streams: Any, table: str
) -> None:
    await put(client, table, {**key(0), "before": "the reader"})
    observer = Observed()
    async with reading(client, streams, table, observer) as delivered:
        item = {**key(1), "blob": b"\x00\xff", "tags": {"a", "b"}, "n": 1}
        await put(client, table, item)
        await client.update_item(
            TableName=table,
            Key=to_attributes(key(1)),
            UpdateExpression="SET n = :two ADD tags :c",
            ExpressionAttributeValues=to_attributes({":two": 2, ":c": {"c"}}),
        )
        await client.delete_item(TableName=table, Key=to_attributes(key(1)))
        await until(lambda: len(delivered) >= 3)
        await asyncio.sleep(0.1)

    updated = {**item, "n": 2, "tags": {"a", "b", "c"}}
    assert [(r.event, r.keys, r.old, r.new) for r in delivered] == [
        ("INSERT", key(1), None, item),
        ("MODIFY", key(1), item, updated),
        ("REMOVE", key(1), updated, None),
    ]
    assert delivered[0].new is not None and delivered[0].new["blob"] == b"\x00\xff"
    sequences = [int(r.sequence) for r in delivered]
    assert sequences == sorted(sequences)
    assert len({r.shard for r in delivered}) == 1
    assert all(r.created > 0 for r in delivered)
    assert sum(n for n, _ in observer.reads) == 3
    assert all(lag is not None and lag >= 0 for _, lag in observer.reads)
    assert observer.failures == []


async def test_a_transaction_is_delivered_action_by_action(
    client: DynamoDBClient, streams: Any, table: str
) -> None:
    async with reading(client, streams, table) as delivered:
        await put(client, table, {**key(2), "n": 1})
        await client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": table, "Item": to_attributes({**key(3), "n": 3})}},
                {
                    "Update": {
                        "TableName": table,
                        "Key": to_attributes(key(2)),
                        "UpdateExpression": "SET n = :n",
                        "ExpressionAttributeValues": to_attributes({":n": 2}),
                    }
                },
            ]
        )
        await until(lambda: len(delivered) >= 3)

    changes = {(r.event, r.keys["PK"]): (r.old, r.new) for r in delivered[1:]}
    assert changes == {
        ("INSERT", "P#3"): (None, {**key(3), "n": 3}),
        ("MODIFY", "P#2"): ({**key(2), "n": 1}, {**key(2), "n": 2}),
    }


async def test_a_table_without_a_stream_gets_one_only_when_asked(
    client: DynamoDBClient, streams: Any
) -> None:
    name = f"test-{uuid.uuid4().hex[:12]}"
    request = create_table_request(name)
    del request["StreamSpecification"]
    await client.create_table(**request)
    try:
        said = await create_table(client, name)
        assert "changed nothing" in said and "--enable-stream" in said
        described = (await client.describe_table(TableName=name))["Table"]
        assert not described.get("StreamSpecification", {}).get("StreamEnabled")
        assert await create_table(client, name, enable_stream=True) == (
            f"table {name!r} existed; turned its stream on"
        )
        described = (await client.describe_table(TableName=name))["Table"]
        assert described.get("StreamSpecification") == {
            "StreamEnabled": True,
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        }
        assert await turn_stream_on(client, name) is False
        assert await create_table(client, name) == (
            f"table {name!r} already exists as the model declares it, with its stream"
        )
        async with reading(client, streams, name) as delivered:
            await put(client, name, key(4))
            await until(lambda: len(delivered) == 1)
    finally:
        await client.delete_table(TableName=name)


async def test_create_table_turns_the_stream_on_once(client: DynamoDBClient) -> None:
    name = f"test-{uuid.uuid4().hex[:12]}"
    first = await create_table(client, name)
    try:
        arn = (await client.describe_table(TableName=name))["Table"]["LatestStreamArn"]
        second = await create_table(client, name)
        again = (await client.describe_table(TableName=name))["Table"]["LatestStreamArn"]
    finally:
        await client.delete_table(TableName=name)
    assert first.startswith(f"created table {name!r} with ")
    assert first.endswith("indexes and its stream (new and old images)")
    assert second == f"table {name!r} already exists as the model declares it, with its stream"
    assert again == arn


async def test_a_stream_of_another_view_type_is_refused_with_the_fix(
    client: DynamoDBClient,
) -> None:
    name = f"test-{uuid.uuid4().hex[:12]}"
    request = create_table_request(name)
    request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    await client.create_table(**request)
    try:
        with pytest.raises(DynamoDBFailure, match=r"holds KEYS_ONLY.*StreamEnabled=false"):
            await create_table(client, name, enable_stream=True)
    finally:
        await client.delete_table(TableName=name)


async def test_a_stream_turned_off_and_on_is_followed(
    client: DynamoDBClient, streams: Any, table: str
) -> None:
    async with reading(client, streams, table) as delivered:
        await put(client, table, key(5))
        await until(lambda: len(delivered) == 1)
        await client.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
        await put(client, table, key(6))  # no stream: never delivered
        assert await turn_stream_on(client, table) is True
        await put(client, table, key(7))
        await until(lambda: len(delivered) == 2)
        await asyncio.sleep(0.3)
    assert [r.keys for r in delivered] == [key(5), key(7)]


@pytest.mark.parametrize(
    ("mode", "count"),
    # Three attempts a call (`CLIENT_CONFIG`): six faults fail the reader's call twice.
    [("error", 6), ("throttle", 6), ("lose", 3), ("hang", 1)],
)
async def test_an_outage_of_get_records_loses_and_repeats_nothing(
    client: DynamoDBClient,
    table: str,
    proxy: FaultProxy,
    monkeypatch: pytest.MonkeyPatch,
    mode: Mode,
    count: int,
) -> None:
    without_backoff(monkeypatch)
    observer = Observed()
    async with (
        open_streams_client(proxy.url, "us-east-1", local=True, env={}) as faulty,
        reading(client, faulty, table, observer) as delivered,
    ):
        await put(client, table, {**key(10), "n": 0})
        await until(lambda: len(delivered) == 1)
        rule = proxy.inject("GetRecords", mode, count=count)
        for n in range(1, 4):
            await put(client, table, {**key(10), "n": n})
        await until(lambda: rule.hits == count)
        for n in range(4, 7):
            await put(client, table, {**key(10), "n": n})
        await until(lambda: len(delivered) >= 7)
        await asyncio.sleep(0.2)  # time for a record delivered twice to show

    assert [r.new["n"] for r in delivered if r.new is not None] == list(range(7))
    assert len(delivered) == 7
    assert (
        observer.failures
        == {
            "error": ["InternalServerError"] * 2,
            "throttle": ["ThrottlingException"] * 2,
            "lose": ["unreachable"],
            "hang": [],  # the SDK's next attempt was answered
        }[mode]
    )
