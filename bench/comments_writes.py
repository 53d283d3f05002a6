"""What DynamoDB Local reports for the writes of postComment (TransactWriteItems)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bench.comments_model import BODY_LENGTHS, POST_LANGUAGE, POST_RATING, body, comment
from bench.comments_sizes import item_size, write_units
from data.comments import post_comment
from keys.comments import RatingStyle
from keys.products import product_key
from store.client import Store
from store.requests import Item, condition_check, put_request

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient
else:
    DynamoDBClient = Any


def post_actions(table: str, items: list[Item], product_id: str) -> list[dict[str, Any]]:
    """The actions data.comments.post_comment sends, for a layout of any style."""
    primary, *copies = items
    return [
        condition_check(table, product_key(product_id), exists=True),
        {"Put": put_request(table, primary, must_be_new=True)},
        *({"Put": put_request(table, copy)} for copy in copies),
    ]


def reported(response: Mapping[str, Any]) -> dict[str, float]:
    """Table, per-index and total write units of a response (ReturnConsumedCapacity INDEXES)."""
    result = {"table": 0.0, "indexes": 0.0, "total": 0.0}
    for entry in response.get("ConsumedCapacity") or []:
        result["table"] += float(entry.get("Table", {}).get("CapacityUnits", 0.0))
        indexes = entry.get("GlobalSecondaryIndexes", {}).values()
        result["indexes"] += sum(float(i.get("CapacityUnits", 0.0)) for i in indexes)
        result["total"] += float(entry.get("CapacityUnits", 0.0))
    return result


async def transact(client: DynamoDBClient, actions: list[dict[str, Any]]) -> dict[str, float]:
    request: dict[str, Any] = {"TransactItems": actions, "ReturnConsumedCapacity": "INDEXES"}
    return reported(await client.transact_write_items(**request))


async def local_post_costs(
    client: DynamoDBClient, table: str, product_id: str, style: RatingStyle
) -> list[dict[str, Any]]:
    """Per body length: what Local reports for one postComment transaction in `style`."""
    rows = []
    for length in BODY_LENGTHS:
        items = comment(POST_LANGUAGE, POST_RATING, length, style, product_id)
        units = await transact(client, post_actions(table, items, product_id))
        rows.append({"body_chars": length, "style": style, **units})
    return rows


async def gateway_post_cost(
    client: DynamoDBClient, table: str, product_id: str, length: int
) -> float:
    """WCU (TOTAL) that the gateway's own post_comment reports, bitmask style."""
    store = Store(client, table)
    await post_comment(store, product_id, POST_LANGUAGE, POST_RATING, body(length), None)
    return store.cost.write_capacity_units


async def local_controls(client: DynamoDBClient, table: str) -> dict[str, dict[str, float]]:
    """Plain transactions without index entries: Local's WCU beside AWS's 2 per KB per item."""
    cases = {
        "1 Put of 100 B": (1, 100),
        "10 Puts of 100 B": (10, 100),
        "1 Put of 10 KB": (1, 10_000),
    }
    results = {}
    for name, (count, length) in cases.items():
        items = [
            {"PK": f"CONTROL#{count}x{length}#{n}", "SK": "X", "v": "x" * length}
            for n in range(count)
        ]
        local = await transact(client, [{"Put": put_request(table, item)} for item in items])
        model = sum(2 * write_units(item_size(item)) for item in items)
        results[name] = {"local": local["total"], "model": model}
    return results
