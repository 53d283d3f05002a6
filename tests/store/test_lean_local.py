"""Real answers of DynamoDB Local through the lean client (`open_client`'s default): each
one read exactly as botocore's parser reads the same HTTP answer, and each read returning
what the plain client (`lean=False`) returns for the same call."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest
from aiobotocore.parsers import AioResponseParserFactory

from store.client import DynamoDBClient
from store.transport.connection import open_client
from store.transport.responses import LEAN_OPERATIONS
from tests.store.test_lean import typed

_PARTITION = {"S": "LEAN#1"}


def _item(number: int) -> dict[str, Any]:
    """An item with a value of every type, binaries and nesting included (~1 KB)."""
    return {
        "PK": _PARTITION,
        "SK": {"S": f"ITEM#{number:03d}"},
        "text": {"S": "é🙂 " * 4},
        "whole": {"N": str(number)},
        "fraction": {"N": "-1.25E-3"},
        "binary": {"B": bytes([0, number, 255])},
        "strings": {"SS": ["a", "b"]},
        "numbers": {"NS": ["1", "2.5"]},
        "binaries": {"BS": [b"\x00", b"\xff\xfe"]},
        "nested": {
            "M": {
                "list": {
                    "L": [
                        {"N": "1"},
                        {"B": b"\x02"},
                        {"NULL": True},
                        {"M": {"deep": {"BOOL": False}, "bytes": {"BS": [b"\x03"]}}},
                    ]
                }
            }
        },
        "nothing": {"NULL": True},
        "flag": {"BOOL": True},
        "padding": {"S": "x" * 800},
    }


def _key(number: int) -> dict[str, Any]:
    return {"PK": _PARTITION, "SK": {"S": f"ITEM#{number:03d}"}}


@pytest.fixture
async def lean_client(endpoint: str) -> AsyncIterator[tuple[DynamoDBClient, list[Any]]]:
    """The lean client, and for each answer it heard: the operation, its lean reading and
    botocore's reading of the same HTTP answer."""
    readings: list[Any] = []
    botocore = AioResponseParserFactory().create_parser("json")
    async with open_client(endpoint, "us-east-1", local=True, env={}) as client:
        model = client.meta.service_model

        async def compare(response_dict: Any, parsed_response: Any, **_: Any) -> None:
            if response_dict is None:
                return
            operation = response_dict["context"]["operation_name"]
            shape = model.operation_model(operation).output_shape
            assert shape is not None
            plain = await botocore.parse(response_dict, shape)
            readings.append((operation, typed(parsed_response), typed(plain)))

        client.meta.events.register("response-received.dynamodb", compare)
        yield client, readings


@pytest.fixture
async def plain_client(endpoint: str) -> AsyncIterator[DynamoDBClient]:
    async with open_client(endpoint, "us-east-1", local=True, env={}, lean=False) as client:
        yield client


def _comparable(answer: Mapping[str, Any]) -> Any:
    """`answer` without what differs from one answer to the next: its request id and date."""
    metadata = dict(answer["ResponseMetadata"])
    del metadata["RequestId"]
    metadata["HTTPHeaders"] = {
        name: value
        for name, value in metadata["HTTPHeaders"].items()
        if name not in ("x-amzn-requestid", "date")
    }
    return typed({**answer, "ResponseMetadata": metadata})


async def test_reads_and_writes_are_read_as_botocore_and_the_plain_client_read_them(
    lean_client: tuple[DynamoDBClient, list[Any]], plain_client: DynamoDBClient, table: str
) -> None:
    client, readings = lean_client
    writes: dict[str, Any] = {
        "TransactItems": [{"Put": {"TableName": table, "Item": _item(n)}} for n in range(1, 4)],
        "ReturnConsumedCapacity": "INDEXES",
        "ReturnItemCollectionMetrics": "SIZE",
    }
    written = await client.transact_write_items(**writes)
    # The same items again: the same answer (capacity included).
    assert _comparable(written) == _comparable(await plain_client.transact_write_items(**writes))

    calls: list[tuple[str, dict[str, Any]]] = [
        ("get_item", {"TableName": table, "Key": _key(1), "ReturnConsumedCapacity": "TOTAL"}),
        ("get_item", {"TableName": table, "Key": _key(9)}),
        (
            "batch_get_item",
            {
                "RequestItems": {table: {"Keys": [_key(1), _key(2), _key(9)]}},
                "ReturnConsumedCapacity": "INDEXES",
            },
        ),
        (
            "query",
            {
                "TableName": table,
                "KeyConditionExpression": "PK = :pk",
                "ExpressionAttributeValues": {":pk": _PARTITION},
                "ReturnConsumedCapacity": "INDEXES",
            },
        ),
        (
            "query",
            {
                "TableName": table,
                "KeyConditionExpression": "PK = :pk",
                "ExpressionAttributeValues": {":pk": _PARTITION},
                "Limit": 2,
                "ScanIndexForward": False,
            },
        ),
        ("scan", {"TableName": table, "ConsistentRead": True}),
        (
            "transact_get_items",
            {"TransactItems": [{"Get": {"TableName": table, "Key": _key(n)}} for n in (2, 9)]},
        ),
    ]
    for method, request in calls:
        lean = await getattr(client, method)(**request)
        plain = await getattr(plain_client, method)(**request)
        assert _comparable(lean) == _comparable(plain), method

    # Writes that answer with items: once, through the lean client only.
    await client.put_item(TableName=table, Item=_item(5), ReturnValues="ALL_OLD")
    await client.put_item(TableName=table, Item=_item(5), ReturnValues="ALL_OLD")
    await client.update_item(
        TableName=table,
        Key=_key(5),
        UpdateExpression="SET extra = :b",
        ExpressionAttributeValues={":b": {"BS": [b"\x09"]}},
        ReturnValues="ALL_NEW",
    )
    await client.delete_item(TableName=table, Key=_key(5), ReturnValues="ALL_OLD")
    await client.batch_write_item(
        RequestItems={table: [{"PutRequest": {"Item": _item(6)}}]},
        ReturnConsumedCapacity="TOTAL",
    )

    operations = {operation for operation, _, _ in readings}
    # Every lean operation of DynamoDB itself (GetRecords is the stream's).
    assert LEAN_OPERATIONS - {"GetRecords"} <= operations
    for operation, lean_reading, botocore_reading in readings:
        assert lean_reading == botocore_reading, operation
    # Binaries came back as bytes, nested ones too.
    item = (await client.get_item(TableName=table, Key=_key(1)))["Item"]
    assert item["binary"] == {"B": b"\x00\x01\xff"}
    assert item["nested"]["M"]["list"]["L"][3]["M"]["bytes"] == {"BS": [b"\x03"]}
