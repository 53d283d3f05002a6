"""What several test modules need of the table itself: a scan, bulk writes, transactions
made to fail at their last action, and plain boto3 as an app outside dynagate sets it up."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aioboto3
import pytest
from aiobotocore.config import AioConfig

from gateway.settings import Settings
from store.client import Store
from store.requests import (
    WRITE_TOKEN,
    Item,
    Key,
    condition_check,
    from_attributes,
    to_attributes,
)
from store.transport.connection import CLIENT_CONFIG, LOCAL_CREDENTIALS


def plain_boto3(endpoint: str) -> dict[str, Any]:
    """What plain boto3 is given for DynamoDB Local at `endpoint` (`boto3.client("dynamodb",
    **plain_boto3(endpoint))`), as an app outside dynagate sets it up."""
    return {"endpoint_url": endpoint, "region_name": "us-east-1", **LOCAL_CREDENTIALS}


async def scan_all(client: Any, table: str) -> list[dict[str, Any]]:
    """Every item of a test table (a Scan: tests only, to prove what was or was not written)."""
    items: list[dict[str, Any]] = []
    request: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        page = await client.scan(**request)
        items.extend(from_attributes(i) for i in page.get("Items", []))
        if "LastEvaluatedKey" not in page:
            return items
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


# ---- bulk writes -----------------------------------------------------------------------

BULK_BATCH = 25  # BatchWriteItem's most
BULK_CONCURRENCY = 8


def without_token(item: dict[str, Any]) -> dict[str, Any]:
    """`item` without the write token its last write stamped on it (`store.witness`)."""
    return {name: value for name, value in item.items() if name != WRITE_TOKEN}


@asynccontextmanager
async def bulk_client(endpoint: str) -> AsyncIterator[Any]:
    """A client like the tests' own, minus botocore's parameter validation: checking
    thousands of items field by field would be half a seed's time."""
    settings = Settings(endpoint=endpoint)
    config = CLIENT_CONFIG.merge(AioConfig(parameter_validation=False))
    async with aioboto3.Session().client(
        "dynamodb",
        endpoint_url=settings.endpoint,
        region_name=settings.region,
        config=config,
        aws_access_key_id=LOCAL_CREDENTIALS["aws_access_key_id"],
        aws_secret_access_key=LOCAL_CREDENTIALS["aws_secret_access_key"],
    ) as client:
        yield client


async def bulk_write(
    client: Any, table: str, items: Sequence[Item], *, concurrency: int = BULK_CONCURRENCY
) -> None:
    """BatchWriteItem, 25 items a call, `concurrency` calls at once, unprocessed ones
    retried with backoff."""
    gate = asyncio.Semaphore(concurrency)

    async def one(chunk: Sequence[Item]) -> None:
        pending: dict[str, Any] = {
            table: [{"PutRequest": {"Item": to_attributes(i)}} for i in chunk]
        }
        async with gate:
            for attempt in range(10):
                response = await client.batch_write_item(RequestItems=pending)
                pending = response.get("UnprocessedItems") or {}
                if not pending:
                    return
                await asyncio.sleep(0.05 * 2**attempt)
        raise AssertionError(f"items left unprocessed: {pending}")

    await asyncio.gather(
        *(one(items[i : i + BULK_BATCH]) for i in range(0, len(items), BULK_BATCH))
    )


# ---- failures half way through a transaction --------------------------------------------

NOWHERE: Key = {"PK": "NOWHERE", "SK": "NOWHERE"}


def fail_every_transaction_last(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Append a failing ConditionCheck (on a key that does not exist) to every transaction;
    returns the action counts. Had any part been written by a separate call, it would remain."""
    original = Store.transact
    sizes: list[int] = []

    async def doomed(self: Store, actions: Sequence[dict[str, Any]]) -> None:
        sizes.append(len(actions))
        await original(self, [*actions, condition_check(self.table, NOWHERE, exists=True)])

    monkeypatch.setattr(Store, "transact", doomed)
    return sizes
