"""The table's life cycle: create it with every declared index and its stream, wait for it,
check it."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from botocore.exceptions import BotoCoreError, ClientError

from keys.idempotency import EXPIRES
from keys.table import SECONDARY_INDEXES, TABLE, Index
from store.errors import NO_CREDENTIALS, DynamoDBFailure, error_code

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb.type_defs import StreamSpecificationTypeDef

    from store.client import DynamoDBClient


# What subscriptions read (`store.stream`): each change with the item before and after it.
STREAM: StreamSpecificationTypeDef = {
    "StreamEnabled": True,
    "StreamViewType": "NEW_AND_OLD_IMAGES",
}


async def create_table(
    client: DynamoDBClient,
    table: str,
    *,
    indexes: Sequence[Index] = SECONDARY_INDEXES,
    wait_seconds: float = 300.0,
    stream: bool = True,
) -> str:
    """Create the table with `indexes` (the model's) and its stream; add the indexes and
    turn on the stream a table lacks. Idempotent. `stream=False` (tests of everything but
    subscriptions) leaves the stream out: DynamoDB Local writes each change twice with one.

    Returns what was done, for the CLI to print. A stream of another view type is
    `DynamoDBFailure` (`enable_stream`).
    """
    description = await describe(client, table)
    if description is None:
        request: dict[str, Any] = create_table_request(table, indexes)
        if not stream:
            del request["StreamSpecification"]
        await client.create_table(**request)
        await wait_until_active(client, table, wait_seconds)
        await enable_expiry(client, table)
        if not stream:
            return f"created table {table!r} with {len(indexes)} indexes"
        return (
            f"created table {table!r} with {len(indexes)} indexes and its stream"
            " (new and old images)"
        )
    differing = differing_indexes(description, indexes)
    if differing:
        raise DynamoDBFailure(
            f"table {table!r}: {'; '.join(differing)}. DynamoDB changes no index's keys in"
            " place: declare a new index, `dynagate migrate apply`, then drop the old one"
        )
    missing = missing_indexes(description, indexes)
    for index in missing:
        await add_index(client, table, index, wait_seconds)
    await wait_until_active(client, table, wait_seconds)
    await enable_expiry(client, table)
    streamed = stream and await enable_stream(client, table, wait_seconds=wait_seconds)
    turned_on = "; turned its stream on (new and old images)" if streamed else ""
    if missing:
        return f"table {table!r} existed; added indexes {[i.name for i in missing]}{turned_on}"
    if streamed:
        return f"table {table!r} already exists with every index{turned_on}"
    return f"table {table!r} already exists with every index and its stream"


def missing_indexes(description: Mapping[str, Any], indexes: Sequence[Index]) -> list[Index]:
    """Those of `indexes` the described table lacks."""
    existing = {i["IndexName"] for i in description.get("GlobalSecondaryIndexes", [])}
    return [index for index in indexes if index.name not in existing]


def differing_indexes(description: Mapping[str, Any], indexes: Sequence[Index]) -> list[str]:
    """Each of `indexes` the table has under its name with other keys, said in a line:
    DynamoDB changes no index's keys in place."""
    found = {i["IndexName"]: i for i in description.get("GlobalSecondaryIndexes", [])}
    differing = []
    for index in indexes:
        existing = found.get(index.name or "")
        if existing is None:
            continue
        keys = tuple(k["AttributeName"] for k in existing["KeySchema"])
        projection = existing.get("Projection", {}).get("ProjectionType")
        if keys != index.attributes or projection != index.projection:
            differing.append(
                f"index {index.name} has keys {keys} and projection {projection}; the model"
                f" needs {index.attributes} and {index.projection}"
            )
    return differing


async def add_index(client: DynamoDBClient, table: str, index: Index, wait_seconds: float) -> None:
    """Add one index and wait until it is ACTIVE (backfilled): DynamoDB adds one index per
    UpdateTable call, and refuses another while one is being built."""
    await wait_until_active(client, table, wait_seconds)
    update: dict[str, Any] = {
        "TableName": table,
        "AttributeDefinitions": _attribute_definitions((index,)),
        "GlobalSecondaryIndexUpdates": [{"Create": global_index_request(index)}],
    }
    await client.update_table(**update)
    await wait_until_active(client, table, wait_seconds)


async def enable_expiry(client: DynamoDBClient, table: str) -> None:
    """DynamoDB's time to live on `expiresAt` (seconds since the epoch): the records of
    Idempotency-Keys are deleted a day after they are written, at no cost."""
    found = await client.describe_time_to_live(TableName=table)
    if found["TimeToLiveDescription"].get("TimeToLiveStatus") in ("ENABLED", "ENABLING"):
        return
    await client.update_time_to_live(
        TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": EXPIRES}
    )


async def enable_stream(client: DynamoDBClient, table: str, *, wait_seconds: float = 300.0) -> bool:
    """Turn the table's stream on with new and old images; False when it already was.

    DynamoDB cannot change the view type of a stream in place, and turning it off and on
    would cut off whoever reads the old one, so a stream of another view type is
    `DynamoDBFailure` with the fix.
    """
    description = await describe(client, table) or {}
    stream = description.get("StreamSpecification") or {}
    view = stream.get("StreamViewType")
    if stream.get("StreamEnabled") and view == STREAM["StreamViewType"]:
        return False
    if stream.get("StreamEnabled"):
        raise DynamoDBFailure(
            f"the stream of table {table!r} holds {view}, and subscriptions need"
            " NEW_AND_OLD_IMAGES: DynamoDB cannot change a stream's view type in place. Turn"
            f" the stream off (`aws dynamodb update-table --table-name {table}"
            " --stream-specification StreamEnabled=false`), move any other reader of it to"
            " the new stream, and run `dynagate create-table` again"
        )
    await client.update_table(TableName=table, StreamSpecification=STREAM)
    await wait_until_active(client, table, wait_seconds)
    return True


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


def create_table_request(
    table_name: str, indexes: Sequence[Index] = SECONDARY_INDEXES
) -> dict[str, Any]:
    """The CreateTable parameters of a table with `indexes` (on-demand capacity)."""
    request: dict[str, Any] = {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": _attribute_definitions((TABLE, *indexes)),
        "KeySchema": _key_schema(TABLE),
        "StreamSpecification": STREAM,
    }
    if indexes:  # DynamoDB refuses an empty list
        request["GlobalSecondaryIndexes"] = [global_index_request(i) for i in indexes]
    return request


def _attribute_definitions(indexes: Sequence[Index]) -> list[dict[str, str]]:
    attributes = sorted({a for i in indexes for a in i.attributes})
    return [{"AttributeName": a, "AttributeType": "S"} for a in attributes]


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
