"""The Strawberry server's reads of the demo table: one aioboto3 client, the per-request
DataLoaders, cursors and page sizes, as a team writes them beside its resolvers."""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from typing import Any

from aiodataloader import DataLoader
from boto3.dynamodb.types import TypeDeserializer

TABLE = os.environ.get("PEER_TABLE", "peers")
DEFAULT_PAGE, MAX_PAGE = 20, 100

# An item as DynamoDB sends it ({"S": …}), and as Python values.
Item = dict[str, Any]
Row = dict[str, Any]

_deserializer = TypeDeserializer()


def unmarshal(item: Item) -> Row:
    return {k: _deserializer.deserialize(v) for k, v in item.items()}


def s(value: str) -> dict[str, str]:
    return {"S": value}


def encode_cursor(key: Row) -> str:
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str) -> Item:
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except ValueError as exc:
        raise ValueError("bad cursor") from exc
    return {k: s(v) for k, v in key.items()}


def page_size(first: int | None) -> int:
    if first is None:
        return DEFAULT_PAGE
    if not 1 <= first <= MAX_PAGE:
        raise ValueError(f"`first` must be 1 to {MAX_PAGE}, not {first}")
    return first


class Dynamo:
    """The process's one aioboto3 client, opened in the application's lifespan."""

    client: Any = None

    @classmethod
    async def query(cls, **kw: Any) -> dict[str, Any]:
        found: dict[str, Any] = await cls.client.query(TableName=TABLE, **kw)
        return found

    @classmethod
    async def query_all(cls, **kw: Any) -> list[Item]:
        items: list[Item] = []
        start = None
        while True:
            r = await cls.query(**kw, **({"ExclusiveStartKey": start} if start else {}))
            items += r["Items"]
            start = r.get("LastEvaluatedKey")
            if not start:
                return items

    @classmethod
    async def batch_get(cls, keys: list[Item], projection: Row | None = None) -> list[Item]:
        request: dict[str, Any] | None = {TABLE: {"Keys": keys, **(projection or {})}}
        found: list[Item] = []
        while request:
            r = await cls.client.batch_get_item(RequestItems=request)
            found += r["Responses"].get(TABLE, [])
            request = r.get("UnprocessedKeys") or None
        return found


def between(pk: str, low: str, high: str, **kw: Any) -> dict[str, Any]:
    """The arguments of a Query of one partition's sort keys from `low` to `high`."""
    return dict(
        KeyConditionExpression="PK = :pk AND SK BETWEEN :low AND :high",
        ExpressionAttributeValues={":pk": s(pk), ":low": s(low), ":high": s(high)},
        ScanIndexForward=True,
        **kw,
    )


class HeadLoader(DataLoader[str, Row | None]):
    """Items that head their own collection (PK = SK = `<TYPE>#<id>`), by that key."""

    def __init__(self) -> None:
        super().__init__(max_batch_size=100)

    async def batch_load_fn(self, keys: list[str]) -> list[Row | None]:
        found = await Dynamo.batch_get([{"PK": s(k), "SK": s(k)} for k in keys])
        by_key = {i["PK"]["S"]: unmarshal(i) for i in found}
        return [by_key.get(k) for k in keys]


class OrderLinesLoader(DataLoader[str, list[Row]]):
    """An order's lines by order id. A page of orders read from GSI1 (projection ALL) has
    the lines already, so this reads only for an order reached without them."""

    def __init__(self) -> None:
        super().__init__(max_batch_size=100)

    async def batch_load_fn(self, ids: list[str]) -> list[list[Row]]:
        keys = [{"PK": s(f"ORDER#{i}"), "SK": s(f"ORDER#{i}")} for i in ids]
        projection = {
            "ProjectionExpression": "id, #items",
            "ExpressionAttributeNames": {"#items": "items"},
        }
        found = await Dynamo.batch_get(keys, projection)
        by_id = {i["id"]["S"]: unmarshal(i)["items"] for i in found}
        return [by_id.get(i, []) for i in ids]


@dataclass
class Loaders:
    """The context of one request: its own DataLoaders."""

    heads: HeadLoader = field(default_factory=HeadLoader)
    order_lines: OrderLinesLoader = field(default_factory=OrderLinesLoader)
