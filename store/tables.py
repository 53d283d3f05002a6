"""The table's life cycle: create it with every declared index, wait for it, check it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from botocore.exceptions import BotoCoreError, ClientError

from keys.table import SECONDARY_INDEXES, TABLE, Index
from store.errors import NO_CREDENTIALS, error_code

if TYPE_CHECKING:
    from store.client import DynamoDBClient


async def create_table(client: DynamoDBClient, table: str, *, wait_seconds: float = 300.0) -> str:
    """Create the table and every declared index; add indexes a table lacks. Idempotent.

    Returns what was done, for the CLI to print.
    """
    description = await describe(client, table)
    if description is None:
        request: dict[str, Any] = create_table_request(table)
        await client.create_table(**request)
        await wait_until_active(client, table, wait_seconds)
        return f"created table {table!r} with {len(SECONDARY_INDEXES)} indexes"
    existing = {i["IndexName"] for i in description.get("GlobalSecondaryIndexes", [])}
    missing = [i for i in SECONDARY_INDEXES if i.name not in existing]
    for index in missing:
        # DynamoDB adds one index per UpdateTable call.
        await wait_until_active(client, table, wait_seconds)
        update: dict[str, Any] = {
            "TableName": table,
            "AttributeDefinitions": create_table_request(table)["AttributeDefinitions"],
            "GlobalSecondaryIndexUpdates": [{"Create": global_index_request(index)}],
        }
        await client.update_table(**update)
    await wait_until_active(client, table, wait_seconds)
    if missing:
        return f"table {table!r} existed; added indexes {[i.name for i in missing]}"
    return f"table {table!r} already exists with every index"


async def describe(client: DynamoDBClient, table: str) -> dict[str, Any] | None:
    """DescribeTable's description of `table`, or None when it does not exist; botocore's
    other errors are raised (the command line maps them with `admin_failures`)."""
    try:
        response = await client.describe_table(TableName=table)
    except ClientError as exc:
        if error_code(exc) != "ResourceNotFoundException":
            raise
        return None
    description: dict[str, Any] = dict(response["Table"])
    return description


@dataclass(frozen=True)
class NotReady:
    """Why the table cannot serve yet: `kind` says what fixes it, `reason` says it to a person."""

    kind: Literal["unreachable", "no-credentials", "missing", "not-active", "refused"]
    reason: str


async def table_status(client: DynamoDBClient, table: str) -> NotReady | None:
    """None when the table and all its indexes are ACTIVE, else why it is not ready."""
    try:
        description = await describe(client, table)
    except ClientError as exc:
        return NotReady("refused", f"DynamoDB answered {error_code(exc)}")
    except NO_CREDENTIALS:
        return NotReady("no-credentials", "no AWS credentials were found")
    except BotoCoreError:
        return NotReady("unreachable", "DynamoDB is unreachable")
    if description is None:
        return NotReady("missing", f"table {table!r} does not exist")
    if description.get("TableStatus") != "ACTIVE":
        return NotReady("not-active", f"table {table!r} is {description.get('TableStatus')}")
    for index in description.get("GlobalSecondaryIndexes", []):
        if index.get("IndexStatus") != "ACTIVE":
            return NotReady(
                "not-active", f"index {index['IndexName']} is {index.get('IndexStatus')}"
            )
    return None


async def wait_until_active(client: DynamoDBClient, table: str, wait_seconds: float) -> None:
    deadline = asyncio.get_running_loop().time() + wait_seconds
    while (reason := await table_status(client, table)) is not None:
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"table not ready after {wait_seconds:.0f} s: {reason.reason}")
        await asyncio.sleep(0.5)


def create_table_request(table_name: str) -> dict[str, Any]:
    """The CreateTable parameters for this declaration (on-demand capacity)."""
    attributes = sorted({a for i in (TABLE, *SECONDARY_INDEXES) for a in i.attributes})
    return {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in attributes],
        "KeySchema": _key_schema(TABLE),
        "GlobalSecondaryIndexes": [global_index_request(i) for i in SECONDARY_INDEXES],
    }


def global_index_request(index: Index) -> dict[str, Any]:
    return {
        "IndexName": index.name,
        "KeySchema": _key_schema(index),
        "Projection": {"ProjectionType": index.projection},
    }


def _key_schema(index: Index) -> list[dict[str, str]]:
    return [
        {"AttributeName": index.partition_key, "KeyType": "HASH"},
        {"AttributeName": index.sort_key, "KeyType": "RANGE"},
    ]
