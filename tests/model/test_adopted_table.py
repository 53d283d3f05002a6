"""A table dynagate did not make, served beside the app that made it (`tests/model/adopted.py`):
plain boto3 code creates it keyed `pk`/`sk` with a global index `gsi1`, as existing apps
do, and writes its items; dynagate reads them by key conditions alone, writes items the
app reads back as its own, and compares the table with the model without changing it."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import boto3
import pytest

from gateway.cli.main import main
from tests.client import Api
from tests.programs import serve_refused
from tests.table import plain_boto3

ADOPTED = "tests.model.adopted"
ROOT = Path(__file__).parents[2]
pytestmark = pytest.mark.overrides(model=ADOPTED)
ORG = {"pk": "ORG#acme", "sk": "ORG#acme", "id": "acme", "name": "Acme"}
# What the app keeps that the model does not declare: dynagate leaves it as it is.
KEPT = {"createdBy": "legacy-app", "flags": {"beta": True}}
EVENTS = [
    ("2025-03-01", "e1", "Launch"),
    ("2025-03-01", "e2", "Party"),
    ("2025-04-12", "e3", "Review"),
]
EVENTS_OF_ACME = """query ($first: Int, $after: String) { org(id: "acme") { name
  events(first: $first, after: $after) { edges { node { id day title } }
  pageInfo { hasNextPage endCursor } } } }"""
ON_DAY = """query ($day: String!) { eventsOn(day: $day, first: 10) {
  edges { node { id title } } pageInfo { hasNextPage } } }"""


def event_item(day: str, event_id: str, title: str) -> dict[str, Any]:
    """An event as the app writes it."""
    return {
        "pk": "ORG#acme",
        "sk": f"EVENT#{day}#{event_id}",
        "gsi1pk": f"DAY#{day}",
        "gsi1sk": f"EVENT#acme#{event_id}",
        "orgId": "acme",
        "day": day,
        "id": event_id,
        "title": title,
        **KEPT,
    }


def app_client(endpoint: str) -> Any:
    """The app's own client: plain boto3, as it is set up for DynamoDB Local."""
    return boto3.client("dynamodb", **plain_boto3(endpoint))


def app_table(endpoint: str, name: str) -> Any:
    return boto3.resource("dynamodb", **plain_boto3(endpoint)).Table(name)


def app_created(
    endpoint: str,
    name: str,
    types: Mapping[str, str],
    *,
    global_indexes: Mapping[str, tuple[str, str]] | None = None,
    local_indexes: Mapping[str, str] | None = None,
    stream: bool = False,
) -> None:
    """A table keyed `pk`/`sk` as an app's boto3 code creates it: its key attributes'
    `types`, global indexes by name (partition and sort key), local indexes by name (sort
    key), each projecting everything; a stream of both images if asked."""

    def index(name: str, partition: str, sort: str) -> dict[str, Any]:
        keys = [
            {"AttributeName": partition, "KeyType": "HASH"},
            {"AttributeName": sort, "KeyType": "RANGE"},
        ]
        return {"IndexName": name, "KeySchema": keys, "Projection": {"ProjectionType": "ALL"}}

    made: dict[str, Any] = {
        "TableName": name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": a, "AttributeType": t} for a, t in types.items()
        ],
        "KeySchema": index("", "pk", "sk")["KeySchema"],
    }
    if global_indexes:
        made["GlobalSecondaryIndexes"] = [index(n, *keys) for n, keys in global_indexes.items()]
    if local_indexes:
        made["LocalSecondaryIndexes"] = [index(n, "pk", k) for n, k in local_indexes.items()]
    if stream:
        made["StreamSpecification"] = {
            "StreamEnabled": True,
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        }
    client = app_client(endpoint)
    client.create_table(**made)
    client.get_waiter("table_exists").wait(TableName=name)


@asynccontextmanager
async def app_made(
    endpoint: str, prefix: str, make: Callable[[str, str], None]
) -> AsyncIterator[str]:
    """A table of its own for a test, which `make(endpoint, name)` creates and fills, as
    the app does; deleted after it."""
    name = f"{prefix}-{uuid.uuid4().hex[:12]}"
    await asyncio.to_thread(make, endpoint, name)
    try:
        yield name
    finally:
        await asyncio.to_thread(app_client(endpoint).delete_table, TableName=name)


def table_made_by_the_app(prefix: str, make: Callable[..., None]) -> Any:
    """A test module's fixture (named as the module names it): a table of its own that
    `make(endpoint, name)` creates and fills as the app does (`app_made`)."""

    @pytest.fixture
    async def table(endpoint: str) -> AsyncIterator[str]:
        async with app_made(endpoint, prefix, make) as name:
            yield name

    return table


def made_by_the_app(endpoint: str, name: str, *, stream: bool = False) -> None:
    """The app's table and its items, made as the app makes them (a stream if asked)."""
    types = dict.fromkeys(("pk", "sk", "gsi1pk", "gsi1sk"), "S")
    app_created(endpoint, name, types, global_indexes={"gsi1": ("gsi1pk", "gsi1sk")}, stream=stream)
    table = app_table(endpoint, name)
    table.put_item(Item=ORG)
    for event in EVENTS:
        table.put_item(Item=event_item(*event))


table = table_made_by_the_app("adopted", made_by_the_app)


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, endpoint: str, table: str) -> Iterator[None]:
    monkeypatch.setenv("DYNAGATE_DYNAMODB_ENDPOINT", endpoint)
    monkeypatch.setenv("DYNAGATE_TABLE", table)
    monkeypatch.setenv("DYNAGATE_ENV", "development")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "local")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "local")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    yield


async def test_the_app_s_items_are_served_by_key_conditions(api: Api) -> None:
    first = await api(EVENTS_OF_ACME, first=2)
    org = first.ok()["org"]
    assert org["name"] == "Acme"
    newest = [{"id": "e3", "day": "2025-04-12", "title": "Review"}]
    newest.append({"id": "e2", "day": "2025-03-01", "title": "Party"})
    assert [edge["node"] for edge in org["events"]["edges"]] == newest
    # The org and its first page: one Query of its partition.
    assert first.cost["requests"] == 1, first.cost
    after = org["events"]["pageInfo"]["endCursor"]
    rest = (await api(EVENTS_OF_ACME, first=2, after=after)).ok()["org"]["events"]
    assert [edge["node"]["id"] for edge in rest["edges"]] == ["e1"]
    assert rest["pageInfo"]["hasNextPage"] is False
    on_day = await api(ON_DAY, day="2025-03-01")
    found = on_day.ok()["eventsOn"]
    assert [edge["node"] for edge in found["edges"]] == [
        {"id": "e1", "title": "Launch"},
        {"id": "e2", "title": "Party"},
    ]
    assert on_day.cost["itemsScanned"] == 2, on_day.cost


async def test_what_dynagate_writes_the_app_reads_as_its_own(
    api: Api, endpoint: str, table: str
) -> None:
    added = await api(
        """mutation { addEvent(input: {orgId: "acme", day: "2025-05-05", id: "e4",
        title: "Meetup"}) { id day title } }"""
    )
    assert added.ok()["addEvent"] == {"id": "e4", "day": "2025-05-05", "title": "Meetup"}
    mine = app_table(endpoint, table)
    stored = await asyncio.to_thread(
        mine.get_item, Key={"pk": "ORG#acme", "sk": "EVENT#2025-05-05#e4"}
    )
    item = stored["Item"]
    assert {k: item[k] for k in ("pk", "sk", "gsi1pk", "gsi1sk")} == {
        "pk": "ORG#acme",
        "sk": "EVENT#2025-05-05#e4",
        "gsi1pk": "DAY#2025-05-05",
        "gsi1sk": "EVENT#acme#e4",
    }
    assert not {"PK", "SK", "GSI1PK", "GSI1SK"} & set(item)
    renamed = await api(
        """mutation { renameEvent(input: {orgId: "acme", day: "2025-03-01", id: "e1",
        title: "Launch day"}) { title } }"""
    )
    assert renamed.ok()["renameEvent"] == {"title": "Launch day"}
    kept = await asyncio.to_thread(
        mine.get_item, Key={"pk": "ORG#acme", "sk": "EVENT#2025-03-01#e1"}
    )
    # Only what changed is written: what the model does not declare stays as the app wrote it.
    assert kept["Item"]["title"] == "Launch day"
    assert {k: kept["Item"][k] for k in KEPT} == KEPT
    # What the app writes now is served at once.
    await asyncio.to_thread(mine.put_item, Item=event_item("2025-03-01", "e5", "Late add"))
    on_day = (await api(ON_DAY, day="2025-03-01")).ok()["eventsOn"]
    assert [edge["node"]["id"] for edge in on_day["edges"]] == ["e1", "e2", "e5"]


@pytest.mark.usefixtures("cli_env")
def test_create_table_compares_the_table_and_changes_nothing(
    capsys: pytest.CaptureFixture[str], endpoint: str, table: str
) -> None:
    assert main(["create-table", "--model", ADOPTED]) == 0
    said = capsys.readouterr().out
    assert "as the model declares it; changed nothing" in said, said
    described = app_client(endpoint).describe_table(TableName=table)["Table"]
    assert "StreamSpecification" not in described or not described["StreamSpecification"].get(
        "StreamEnabled"
    )
    # A model of another layout is refused, both sides named, the table left as it is.
    assert main(["create-table", "--model", "tests.model.library"]) == 1
    refused = capsys.readouterr().err
    assert "the table is keyed pk (S) + sk (S), the model declares PK (S) + SK (S)" in refused
    assert "Nothing was changed" in refused
    assert main(["create-table", "--model", ADOPTED, "--enable-stream"]) == 0
    assert "turned its stream on" in capsys.readouterr().out
    described = app_client(endpoint).describe_table(TableName=table)["Table"]
    assert described["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    expiry = app_client(endpoint).describe_time_to_live(TableName=table)
    assert expiry["TimeToLiveDescription"]["TimeToLiveStatus"] == "DISABLED"
    assert main(["create-table", "--model", ADOPTED, "--enable-ttl"]) == 0
    assert "turned its time to live on (expiresAt)" in capsys.readouterr().out
    expiry = app_client(endpoint).describe_time_to_live(TableName=table)
    assert expiry["TimeToLiveDescription"]["AttributeName"] == "expiresAt"


@pytest.mark.usefixtures("cli_env")
def test_check_names_what_differs_and_the_missing_stream(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--model", ADOPTED]) == 1
    said = capsys.readouterr().out
    assert "it has no stream" in said and "--enable-stream" in said, said
    assert main(["check", "--model", "tests.model.library"]) == 1
    said = capsys.readouterr().out
    assert "the table is keyed pk (S) + sk (S), the model declares PK (S) + SK (S)" in said


def test_serve_refuses_a_table_laid_out_otherwise(endpoint: str, table: str) -> None:
    served = serve_refused(
        {
            "PYTHONPATH": str(ROOT),
            "DYNAGATE_DYNAMODB_ENDPOINT": endpoint,
            "DYNAGATE_TABLE": table,
            "DYNAGATE_ENV": "development",
            "DYNAGATE_MODEL": "tests.model.library",
        }
    )
    assert served.returncode == 1, served.stderr
    assert "the table is keyed pk (S) + sk (S), the model declares PK (S) + SK (S)" in (
        served.stderr
    )


async def test_a_table_without_a_stream_is_served_without_what_needs_one(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    said = [r.getMessage() for r in caplog.get_records("setup")]
    assert any("it has no stream; served without what needs one" in s for s in said), said
    ready = await api.http.get("/readyz")
    assert ready.status_code == 200
    degraded = ready.json()["degraded"]
    assert any(d.startswith("the table has no stream") for d in degraded), degraded


@pytest.mark.usefixtures("cli_env")
async def test_model_inspect_holds_the_model_against_the_items(
    capsys: pytest.CaptureFixture[str], endpoint: str, table: str
) -> None:
    assert await asyncio.to_thread(main, ["model", "inspect", "--model", ADOPTED]) == 0
    said = capsys.readouterr().out.splitlines()
    assert "  layout: as declared" in said
    assert "  stream: it has no stream" in said
    assert "  Org: 1 items, 1 read as the model's, 1 whose keys render back" in said
    assert (
        "  Event: 3 items, 3 read as the model's, 3 whose keys render back; attributes not"
        " declared: createdBy (3), flags (3)" in said
    )
    mine = app_table(endpoint, table)
    stale = {**event_item("2025-03-01", "e7", "Stale"), "gsi1pk": "DAY#2025-01-01"}
    note = {"pk": "ORG#acme", "sk": "NOTE#1", "text": "no entity of the model"}
    for item in (stale, note):
        await asyncio.to_thread(mine.put_item, Item=item)
    assert await asyncio.to_thread(main, ["model", "inspect", "--model", ADOPTED]) == 1
    said = capsys.readouterr().out.splitlines()
    assert (
        "    key does not render back: ORG#acme / EVENT#2025-03-01#e7: gsi1pk stored"
        " 'DAY#2025-01-01', rendered 'DAY#2025-03-01'" in said
    )
    assert "  1 items of no declared entity (for example ORG#acme / NOTE#1)" in said
    assert said[-1] == "differs"
    # The budget holds: no more items are read than asked.
    sampled = ["model", "inspect", "--model", ADOPTED, "--sample", "2"]
    await asyncio.to_thread(main, sampled)
    assert "a sample of 2 items:" in capsys.readouterr().out
    assert main(["model", "inspect", "--model", ADOPTED, "--sample", "0"]) == 1
    assert "--sample 0: read 1 to 10,000 items" in capsys.readouterr().err
