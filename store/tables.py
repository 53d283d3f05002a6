"""The table's life cycle: create it with every declared index and its stream, wait for it,
check it."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from botocore.exceptions import BotoCoreError, ClientError

from keys.idempotency import EXPIRES
from keys.table import CLASSIC, Index, Layout
from store.errors import NO_CREDENTIALS, DynamoDBFailure, error_code

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb.type_defs import StreamSpecificationTypeDef

    from store.client import DynamoDBClient


# What subscriptions read (`store.stream.reader`): each change with the item before and after it.
STREAM: StreamSpecificationTypeDef = {
    "StreamEnabled": True,
    "StreamViewType": "NEW_AND_OLD_IMAGES",
}


async def create_table(
    client: DynamoDBClient,
    table: str,
    *,
    layout: Layout = CLASSIC,
    wait_seconds: float = 300.0,
    stream: bool = True,
    enable_stream: bool = False,
    add_indexes: bool = False,
    enable_ttl: bool = False,
) -> str:
    """Create the table of `layout` (the model's) with its stream and time to live.
    `stream=False` (tests of everything but subscriptions) leaves the stream out: DynamoDB
    Local writes each change twice with one.

    A table that exists is compared with the layout and changed only as asked: a key
    schema or an index that differs, or an index it lacks, is `LayoutMismatch` naming both
    sides; `add_indexes` adds the global indexes it lacks (DynamoDB fills them from the
    items), `enable_stream` turns its stream on (new and old images) where it is off,
    `enable_ttl` its time to live on `expiresAt` where it has none.
    Returns what was done, for the CLI to print. A stream of another view type is
    `DynamoDBFailure`.
    """
    description = await describe(client, table)
    if description is None:
        request: dict[str, Any] = create_table_request(table, layout)
        if not stream:
            del request["StreamSpecification"]
        await client.create_table(**request)
        await wait_until_active(client, table, wait_seconds)
        await enable_expiry(client, table)
        indexes = len(layout.indexes)
        if not stream:
            return f"created table {table!r} with {indexes} indexes"
        return f"created table {table!r} with {indexes} indexes and its stream (new and old images)"
    missing = [i for i in missing_indexes(description, layout.indexes) if not i.local]
    problems = layout_differences(description, layout, addable=add_indexes)
    if problems:
        raise LayoutMismatch(table, problems)
    if add_indexes and missing:
        for index in missing:
            await add_index(client, table, index, wait_seconds)
        await wait_until_active(client, table, wait_seconds)
    streamed = enable_stream and await turn_stream_on(client, table, wait_seconds=wait_seconds)
    expiring = enable_ttl and await enable_expiry(client, table)
    added = f"; added indexes {[i.name for i in missing]}" if add_indexes and missing else ""
    if expiring:
        added += "; turned its time to live on (expiresAt)"
    if streamed:
        return f"table {table!r} existed{added}; turned its stream on"
    if added:
        return f"table {table!r} existed{added}"
    if stream_problem(description) is not None:
        return (
            f"table {table!r} already exists as the model declares it; changed nothing. Its"
            " stream is off or keeps other images: subscriptions, the read cache and the news"
            " of persisted documents are off until `dynagate create-table --enable-stream`"
        )
    return f"table {table!r} already exists as the model declares it, with its stream"


class LayoutMismatch(DynamoDBFailure):
    """The live table is not laid out as the model declares: each problem names both."""

    def __init__(self, table: str, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(
            f"table {table!r} is not the model's layout: {'; '.join(problems)}. Nothing was"
            " changed: declare the table as it is (docs/model.md, the table's layout)"
        )


def layout_differences(
    description: Mapping[str, Any], layout: Layout, *, addable: bool = False
) -> list[str]:
    """How the described table differs from `layout`: its key schema and types, each
    index's keys, types and projection, and the indexes it lacks (a local one cannot be
    added after the table is made; a global one can, and is no difference if `addable`)."""
    found = []
    table_keys = _described_keys(description.get("KeySchema", []), _types(description))
    wanted = _declared_keys(layout.table)
    if table_keys != wanted:
        found.append(f"the table is keyed {_said(table_keys)}, the model declares {_said(wanted)}")
    for index in missing_indexes(description, layout.indexes):
        if index.local:
            found.append(
                f"it lacks the local index {index.name} (a local index is made with the table only)"
            )
        elif not addable:
            found.append(
                f"it lacks the global index {index.name} (`dynagate create-table"
                " --add-indexes` adds it, or `dynagate migrate apply`, which also gives the"
                " items their keys there)"
            )
    return found + differing_indexes(description, layout.indexes)


def missing_indexes(description: Mapping[str, Any], indexes: Sequence[Index]) -> list[Index]:
    """Those of `indexes` the described table lacks."""
    existing = _described_indexes(description)
    return [index for index in indexes if index.name not in existing]


def differing_indexes(description: Mapping[str, Any], indexes: Sequence[Index]) -> list[str]:
    """Each of `indexes` the table has under its name otherwise (global or local, keys,
    their types, projection), said in a line naming both: DynamoDB changes no index's
    keys in place."""
    described = _described_indexes(description)
    types = _types(description)
    differing = []
    for index in indexes:
        existing = described.get(index.name or "")
        if existing is None:
            continue
        their_kind, their = existing
        projection = their.get("Projection", {})
        theirs = (
            their_kind,
            _described_keys(their["KeySchema"], types),
            projection.get("ProjectionType"),
            tuple(sorted(projection.get("NonKeyAttributes", []))),
        )
        mine = (
            "local" if index.local else "global",
            _declared_keys(index),
            index.projection,
            tuple(sorted(index.included)),
        )
        if theirs != mine:
            differing.append(
                f"index {index.name} is {_index_said(*theirs)}, the model declares"
                f" {_index_said(*mine)}"
            )
    return differing


def stream_problem(description: Mapping[str, Any]) -> str | None:
    """What keeps the described table's stream from serving subscriptions and the read
    cache, or None."""
    stream = description.get("StreamSpecification") or {}
    if not stream.get("StreamEnabled"):
        return "it has no stream"
    if stream.get("StreamViewType") != STREAM["StreamViewType"]:
        return f"its stream keeps {stream.get('StreamViewType')}, not new and old images"
    return None


def _described_keys(
    schema: Sequence[Mapping[str, Any]], types: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    ordered = sorted(schema, key=lambda k: k["KeyType"] != "HASH")
    return tuple((k["AttributeName"], types.get(k["AttributeName"], "?")) for k in ordered)


def _declared_keys(index: Index) -> tuple[tuple[str, str], ...]:
    return tuple(zip(index.attributes, index.types, strict=True))


def _described_indexes(description: Mapping[str, Any]) -> dict[str, tuple[str, Any]]:
    """The table's indexes by name: whether global or local, and their description."""
    return {
        **{i["IndexName"]: ("global", i) for i in description.get("GlobalSecondaryIndexes", [])},
        **{i["IndexName"]: ("local", i) for i in description.get("LocalSecondaryIndexes", [])},
    }


def _types(description: Mapping[str, Any]) -> dict[str, str]:
    return {
        a["AttributeName"]: a["AttributeType"] for a in description.get("AttributeDefinitions", [])
    }


def _said(keys: tuple[tuple[str, str], ...]) -> str:
    return " + ".join(f"{name} ({kind})" for name, kind in keys) or "nothing"


def _index_said(
    kind: str, keys: tuple[tuple[str, str], ...], projection: str | None, included: tuple[str, ...]
) -> str:
    shown = projection if not included else f"{projection} {list(included)}"
    return f"{kind} on {_said(keys)}, projecting {shown}"


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


async def enable_expiry(client: DynamoDBClient, table: str) -> bool:
    """DynamoDB's time to live on `expiresAt` (seconds since the epoch): the records of
    Idempotency-Keys are deleted a day after they are written, at no cost. False when the
    table has a time to live already (on whatever attribute: it is the table's)."""
    found = await client.describe_time_to_live(TableName=table)
    if found["TimeToLiveDescription"].get("TimeToLiveStatus") in ("ENABLED", "ENABLING"):
        return False
    await client.update_time_to_live(
        TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": EXPIRES}
    )
    return True


async def turn_stream_on(
    client: DynamoDBClient, table: str, *, wait_seconds: float = 300.0
) -> bool:
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


def create_table_request(table_name: str, layout: Layout = CLASSIC) -> dict[str, Any]:
    """The CreateTable parameters of a table of `layout` (on-demand capacity)."""
    request: dict[str, Any] = {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": _attribute_definitions(layout.all),
        "KeySchema": _key_schema(layout.table),
        "StreamSpecification": STREAM,
    }
    global_indexes = [global_index_request(i) for i in layout.indexes if not i.local]
    local_indexes = [global_index_request(i) for i in layout.indexes if i.local]
    if global_indexes:  # DynamoDB refuses an empty list
        request["GlobalSecondaryIndexes"] = global_indexes
    if local_indexes:
        request["LocalSecondaryIndexes"] = local_indexes
    return request


def _attribute_definitions(indexes: Sequence[Index]) -> list[dict[str, str]]:
    types = {a: t for i in indexes for a, t in zip(i.attributes, i.types, strict=True)}
    return [{"AttributeName": a, "AttributeType": types[a]} for a in sorted(types)]


def global_index_request(index: Index) -> dict[str, Any]:
    """An index as CreateTable and UpdateTable declare it (a local one the same way)."""
    projection: dict[str, Any] = {"ProjectionType": index.projection}
    if index.included:
        projection["NonKeyAttributes"] = list(index.included)
    return {"IndexName": index.name, "KeySchema": _key_schema(index), "Projection": projection}


def _key_schema(index: Index) -> list[dict[str, str]]:
    return [
        {"AttributeName": index.partition_key, "KeyType": "HASH"},
        {"AttributeName": index.sort_key, "KeyType": "RANGE"},
    ]
