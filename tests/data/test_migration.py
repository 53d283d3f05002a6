"""`dynagate migrate plan|apply` against DynamoDB Local: a table written by an older model
(`tests/model/library_v1.py`) brought to the library model (`tests/model/library.py`) — an
index added, keys and a default given, keys removed, copies written — and every item then
checked one by one; killed with SIGKILL at random points and started again; raced by a
gateway serving the new model; its answers lost on the way back."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from data.copies_verify import diff, group
from data.entities import record
from data.migration import Pass, WriteBudget, index_attributes, run
from data.migration_items import ItemChange, Unmigrated, change_of, entity_labels, fingerprint
from gateway.cli.seeding import Seeding
from keys.migrations import CHECKPOINT
from model import GSI1, Index, Model, ModelError, Number, Text
from store.client import Store
from store.connection import open_client
from store.errors import DynamoDBFailure
from store.tables import create_table, describe
from tests.client import Api, settings_for
from tests.conftest import new_table
from tests.faults import FaultProxy, without_backoff
from tests.gateway.test_cli import DYNAGATE
from tests.gateway.test_cli import run as run_cli
from tests.model import library, library_v1
from tests.table import scan_all

V1, V2 = "tests.model.library_v1", "tests.model.library"
SHELVES = ("s1", "s2")
ADD = "mutation ($input: AddBookInput!) { addBook(input: $input) { id } }"
POST = "mutation ($input: PostReviewInput!) { postReview(input: $input) { id } }"
GENRES = ("ESSAY", "NOVEL", "POETRY")
EDGES = "edges { node { id } }"


@pytest.fixture
async def old_table(client: Any) -> AsyncIterator[str]:
    """A table as the older model made it: GSI1 and GSI2 only."""
    async with new_table(client, "migrate") as name:
        await client.update_table(
            TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "GSI3"}}]
        )
        for _ in range(100):  # until DynamoDB has deleted it
            indexes = (await describe(client, name) or {}).get("GlobalSecondaryIndexes", [])
            if [i["IndexName"] for i in indexes] == ["GSI1", "GSI2"]:
                break
            await asyncio.sleep(0.1)
        yield name


async def written_by_v1(client: Any, table: str, books: int, reviews: int) -> None:
    """Shelves, books and reviews written through the older model's own API."""
    api = Seeding(client, table, V1)
    draw = random.Random(3)
    for shelf in SHELVES:
        await api.execute(
            'mutation ($id: ID!) { createShelf(input: {id: $id, label: "L"}) { id } }',
            {"id": shelf},
        )

    async def book(n: int) -> None:
        given = {"shelfId": SHELVES[n % 2], "title": f"b{n}", "genre": draw.choice(GENRES)}
        await api.execute(ADD, {"input": {**given, "year": 1900 + draw.randrange(120)}})

    async def review(n: int) -> None:
        given = {"shelfId": SHELVES[n % 2], "stars": draw.randint(1, 4), "text": f"r{n}"}
        await api.execute(POST, {"input": {**given, "form": draw.choice(("PRINT", "AUDIO"))}})

    for n in range(max(books, reviews)):
        if n < books:
            await book(n)
        if n < reviews:
            await review(n)


async def assert_items_are_the_models(client: Any, table: str, books: int, reviews: int) -> None:
    """Item by item: each book holds exactly the keys and default the library model
    derives from it, each review its 16 copies and no list keys of its own; nothing else."""
    items = await scan_all(client, table)
    by_type: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_type.setdefault(str(item.get("type")), []).append(item)
    assert {k: len(v) for k, v in by_type.items()} == {
        "SHELF": len(SHELVES),
        "BOOK": books,
        "REVIEW": reviews,
        "REVIEW_COPY": 16 * reviews,
    }
    for book in by_type["BOOK"]:
        assert book["loan"] == "AVAILABLE"
        keys = library.BOOK.item_keys(record(library.BOOK, book))
        assert {a: book.get(a) for a in keys} == keys
        assert not {"GSI3PK", "GSI3SK"} & set(book)  # the sparse index: not while AVAILABLE
    for review in by_type["REVIEW"]:
        assert not {"GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"} & set(review)
        assert review["version"] == 1
    partitions = group(library.REVIEW, items).values()
    assert all(diff(library.REVIEW, p.primary, p.copies).clean for p in partitions)


def cli_env(endpoint: str, table: str) -> dict[str, str]:
    """The command's environment: the table, and the tests' models importable."""
    root = str(Path(__file__).parents[2])
    return {"DYNAGATE_DYNAMODB_ENDPOINT": endpoint, "DYNAGATE_TABLE": table, "PYTHONPATH": root}


# ---- pure


def test_an_item_needs_what_the_new_model_derives_and_only_that() -> None:
    labels = entity_labels(library.MODEL)
    attributes = {"GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK"}
    old = {
        "PK": "BOOK#0ujsswThIGTUYm2K8FjOOfXtY1K",
        "SK": "BOOK#0ujsswThIGTUYm2K8FjOOfXtY1K",
        "type": "BOOK",
        "id": "0ujsswThIGTUYm2K8FjOOfXtY1K",
        "shelfId": "s1",
        "title": "t",
        "genre": "NOVEL",
        "year": 1999,
        "addedAt": "2026-01-01T00:00:00.000Z",
        "updatedAt": "2026-01-02T00:00:00.000Z",
        "GSI1PK": "SHELF#s1",
        "GSI1SK": "#BOOK#2026-01-02T00:00:00.000Z#0ujsswThIGTUYm2K8FjOOfXtY1K",
    }
    change = change_of(labels, attributes, old)
    assert isinstance(change, ItemChange)
    assert change.sets == {
        "GSI2PK": "SHELF#s1",
        "GSI2SK": "BOOK#NOVEL#1999#0ujsswThIGTUYm2K8FjOOfXtY1K",
        "loan": "AVAILABLE",
    }
    assert change.removes == ()
    # The write insists on what the keys were rendered from, and that they are still absent.
    assert change.expect == {
        "genre": "NOVEL",
        "year": 1999,
        "id": "0ujsswThIGTUYm2K8FjOOfXtY1K",
        "shelfId": "s1",
    } | {
        "GSI2PK": None,
        "GSI2SK": None,
        "loan": None,
    }
    migrated = {**old, **change.sets}
    again = change_of(labels, attributes, migrated)
    assert isinstance(again, ItemChange) and not again.writes
    lent = {**migrated, "loan": "ON_LOAN"}
    entering = change_of(labels, attributes, lent)
    assert isinstance(entering, ItemChange) and set(entering.sets) == {"GSI3PK", "GSI3SK"}
    back = change_of(labels, attributes, {**lent, **entering.sets})
    assert isinstance(back, ItemChange) and not back.writes
    leaving = change_of(labels, attributes, {**migrated, **entering.sets, "loan": "AVAILABLE"})
    assert isinstance(leaving, ItemChange) and leaving.removes == ("GSI3PK", "GSI3SK")


def test_a_checkpoint_is_the_model_s_own() -> None:
    attributes = {"GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"}
    v2 = fingerprint(library.MODEL.entities, attributes)
    assert fingerprint(library_v1.MODEL.entities, attributes) != v2
    assert v2 == fingerprint(library.MODEL.entities, set(attributes))
    assert fingerprint(library.MODEL.entities, attributes | {"GSI3PK"}) != v2
    # A key's codec changed (a wider number renders other keys): another migration.
    wider = replace(
        library.BOOK, attributes={**library.BOOK.attributes, "year": Number(high=99999)}
    )
    assert fingerprint((library.SHELF, wider), attributes) != fingerprint(
        (library.SHELF, library.BOOK), attributes
    )


def test_a_pass_never_empties_an_attribute_an_entity_or_the_engine_keeps() -> None:
    by_type = {"IndexName": "ByType", "KeySchema": [{"AttributeName": "type"}]}
    by_shelf = {"IndexName": "ByShelf", "KeySchema": [{"AttributeName": "shelfId"}]}
    old = {"IndexName": "GSI9", "KeySchema": [{"AttributeName": "GSI9PK"}]}
    names = index_attributes(library.MODEL, [by_type, by_shelf, old])
    assert names == {"GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK", "GSI9PK"}


async def test_the_budget_paces_write_units_a_second() -> None:
    now = [0.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    budget = WriteBudget(10, clock=lambda: now[0], sleep=sleep)
    for _ in range(50):
        await budget.spend(2)
    # 100 units at 10 a second, each write in its slot: the last one 9.8 s after the first.
    assert sum(slept) == pytest.approx(9.8)
    assert budget.spent == 100
    now[0] += 60  # idle: nothing is saved up for a burst
    slept.clear()
    for _ in range(10):
        await budget.spend(2)
    assert sum(slept) == pytest.approx(1.8)


# ---- against DynamoDB Local


async def test_plan_then_apply_bring_every_item_to_the_model(
    client: Any, old_table: str, endpoint: str
) -> None:
    await written_by_v1(client, old_table, books=9, reviews=7)
    env = cli_env(endpoint, old_table)

    before = await scan_all(client, old_table)
    planned = run_cli("migrate", "plan", "--model", V2, env=env)
    assert planned.returncode == 1, planned.stderr
    assert "add index GSI3 (GSI3PK, GSI3SK)" in planned.stdout
    assert "Book: 9 items to write: GSI2PK, GSI2SK, loan given" in planned.stdout
    assert "Review: 7 items to write: GSI2PK, GSI2SK removed" in planned.stdout
    assert "Review: the copies of 7 items differ" in planned.stdout
    assert await scan_all(client, old_table) == before  # a plan only reads

    applied = run_cli("migrate", "apply", "--model", V2, env=env)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "adding index GSI3" in applied.stdout
    assert "the items are the model's" in applied.stdout
    indexes = (await describe(client, old_table) or {})["GlobalSecondaryIndexes"]
    assert sorted(i["IndexName"] for i in indexes) == ["GSI1", "GSI2", "GSI3"]
    await assert_items_are_the_models(client, old_table, books=9, reviews=7)

    again = run_cli("migrate", "plan", "--model", V2, env=env)
    assert (again.returncode, again.stdout.splitlines()[-1]) == (0, "nothing to change")
    verified = run_cli("verify", "--model", V2, env=env)
    assert verified.returncode == 0, verified.stdout


async def test_the_new_model_reads_what_the_migration_wrote(
    client: Any, table: str, endpoint: str
) -> None:
    await written_by_v1(client, table, books=12, reviews=6)
    assert run_cli("migrate", "apply", "--model", V2, env=cli_env(endpoint, table)).returncode == 0
    items = await scan_all(client, table)
    async with Api.serving(settings_for(endpoint, table, model=V2)) as api:
        books = [i for i in items if i.get("type") == "BOOK" and i["shelfId"] == "s1"]
        novels = sorted(
            (b for b in books if b["genre"] == "NOVEL"), key=lambda b: (b["year"], b["id"])
        )
        query = f'query {{ shelf(id: "s1") {{ byGenre(genre: NOVEL, first: 50) {{ {EDGES} }} }} }}'
        found = (await api(query)).ok()["shelf"]["byGenre"]["edges"]
        assert [e["node"]["id"] for e in found] == [b["id"] for b in novels]
        reviews = [i for i in items if i.get("type") == "REVIEW" and i["shelfId"] == "s1"]
        listed = (
            f'query {{ shelf(id: "s1") {{ reviews(stars: [1, 2], first: 50) {{ {EDGES} }} }} }}'
        )
        found = (await api(listed)).ok()["shelf"]["reviews"]["edges"]
        assert sorted(e["node"]["id"] for e in found) == sorted(
            r["id"] for r in reviews if r["stars"] in (1, 2)
        )


async def test_killed_at_random_points_it_resumes_and_loses_and_duplicates_nothing(
    client: Any, old_table: str, endpoint: str
) -> None:
    books, reviews = 40, 24
    await written_by_v1(client, old_table, books=books, reviews=reviews)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
    env = {**clean, **cli_env(endpoint, old_table)}
    command = [DYNAGATE, "migrate", "apply", "--model", V2, "--max-wcu", "150"]
    draw = random.Random(11)
    killed_midway = 0
    for _ in range(12):
        process = await asyncio.create_subprocess_exec(
            *command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            await asyncio.wait_for(process.wait(), timeout=draw.uniform(1.0, 4.0))
        except TimeoutError:
            os.kill(process.pid, signal.SIGKILL)
            await process.wait()
            kept = await client.get_item(
                TableName=old_table,
                Key={k: {"S": v} for k, v in CHECKPOINT.items()},
                ConsistentRead=True,
            )
            killed_midway += "Item" in kept
            continue
        assert process.returncode == 0
        break
    else:
        pytest.fail("the migration never finished")
    assert killed_midway >= 1  # it was stopped with a checkpoint kept, and resumed from it
    await assert_items_are_the_models(client, old_table, books=books, reviews=reviews)


async def test_a_gateway_writing_meanwhile_is_never_overwritten(
    client: Any, table: str, endpoint: str
) -> None:
    await written_by_v1(client, table, books=30, reviews=0)
    items = await scan_all(client, table)
    ids = [i["id"] for i in items if i.get("type") == "BOOK"]
    update = "mutation ($input: UpdateBookInput!) { updateBook(input: $input) { id } }"
    draw = random.Random(5)
    async with Api.serving(settings_for(endpoint, table, model=V2)) as api:
        migration = Pass(
            Store(client, table),
            library.MODEL,
            index_attributes(library.MODEL, []) | {"GSI3PK", "GSI3SK"},
            apply=True,
        )

        codes: list[str | None] = []

        async def clients() -> None:
            for _ in range(40):
                given = {"id": draw.choice(ids), "year": draw.randrange(2000)}
                answer = await api(update, input={**given, "genre": draw.choice(GENRES)})
                codes.extend(answer.codes or [None])
                lent = await api(update, input={"id": draw.choice(ids), "loan": "ON_LOAN"})
                codes.extend(c for c in lent.codes if "cannot move" not in str(lent.body))

        await asyncio.gather(run(migration, 3, lambda _: None), clients())
    # The clients' writes succeed whether or not the migration has reached their book.
    assert set(codes) == {None}, codes
    labels = entity_labels(library.MODEL)
    for item in await scan_all(client, table):
        found = change_of(labels, {"GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK"}, item)
        if isinstance(found, ItemChange) and found.entity is library.BOOK:
            assert not found.writes, (item, found)


async def test_the_new_model_serves_items_the_migration_has_not_reached(
    client: Any, table: str, endpoint: str
) -> None:
    """Deployed before the migration, the new model reads and writes the older items: a
    new choice reads as its initial value and moves from it; a review without copies yet
    is edited, its copies written then."""
    await written_by_v1(client, table, books=2, reviews=1)
    items = await scan_all(client, table)
    book, other = [i["id"] for i in items if i.get("type") == "BOOK"]
    (review,) = [i["id"] for i in items if i.get("type") == "REVIEW"]
    update = "mutation ($input: UpdateBookInput!) { updateBook(input: $input) { id loan } }"
    edit = "mutation ($input: EditReviewInput!) { editReview(input: $input) { id stars } }"
    async with Api.serving(settings_for(endpoint, table, model=V2)) as api:
        read = await api("query ($id: ID!) { book(id: $id) { loan } }", id=book)
        assert read.ok()["book"] == {"loan": "AVAILABLE"}
        retitled = await api(update, input={"id": book, "title": "new"})
        assert retitled.ok()["updateBook"] == {"id": book, "loan": "AVAILABLE"}
        lent = await api(update, input={"id": other, "loan": "ON_LOAN"})
        assert lent.ok()["updateBook"] == {"id": other, "loan": "ON_LOAN"}
        edited = await api(edit, input={"id": review, "stars": 4})
        assert edited.ok()["editReview"] == {"id": review, "stars": 4}
        listed = await api(f'query {{ shelf(id: "s1") {{ reviews(stars: [4]) {{ {EDGES} }} }} }}')
        shelf = next(i["shelfId"] for i in items if i.get("id") == review)
        if shelf == "s1":
            assert listed.ok()["shelf"]["reviews"]["edges"] == [{"node": {"id": review}}]
    on_loan = await client.query(
        TableName=table,
        IndexName="GSI3",
        KeyConditionExpression="GSI3PK = :p",
        ExpressionAttributeValues={":p": {"S": "LOANS"}},
    )
    assert [i["id"]["S"] for i in on_loan["Items"]] == [other]


async def test_lost_answers_are_written_once(
    client: Any,
    table: str,
    proxy: FaultProxy,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_backoff(monkeypatch)
    await written_by_v1(client, table, books=10, reviews=4)
    proxy.inject("UpdateItem", "lose", probability=0.5, per_request=1)
    proxy.inject("TransactWriteItems", "lose", probability=0.5, per_request=1)
    async with open_client(proxy.url, "us-east-1", local=True, env={}) as through:
        store = Store(through, table)
        attributes = index_attributes(library.MODEL, [])
        tally = await run(Pass(store, library.MODEL, attributes, apply=True), 2, lambda _: None)
    assert tally.skipped == 0 and not tally.unmigrated
    await assert_items_are_the_models(client, table, books=10, reviews=4)


async def test_create_table_makes_the_model_s_indexes(client: Any) -> None:
    name = f"model-{random.Random().randrange(10**9)}"
    await create_table(client, name, indexes=library_v1.MODEL.indexes, stream=False)
    try:
        described = await describe(client, name) or {}
        assert sorted(i["IndexName"] for i in described["GlobalSecondaryIndexes"]) == [
            "GSI1",
            "GSI2",
        ]
    finally:
        await client.delete_table(TableName=name)


async def test_one_run_at_a_time_and_a_killed_one_is_taken_over_at_once(
    client: Any, table: str, endpoint: str
) -> None:
    await written_by_v1(client, table, books=30, reviews=4)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
    env = {**clean, **cli_env(endpoint, table)}
    apply = [DYNAGATE, "migrate", "apply", "--model", V2]
    slow = await asyncio.create_subprocess_exec(
        *apply, "--max-wcu", "10", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    key = {k: {"S": v} for k, v in CHECKPOINT.items()}
    for _ in range(200):  # until it holds the checkpoint
        if "Item" in await client.get_item(TableName=table, Key=key, ConsistentRead=True):
            break
        await asyncio.sleep(0.1)
    second = run_cli("migrate", "apply", "--model", V2, env=cli_env(endpoint, table))
    assert second.returncode == 1
    assert "another `migrate apply` runs on this table" in second.stderr
    os.kill(slow.pid, signal.SIGKILL)
    await slow.wait()
    third = run_cli("migrate", "apply", "--model", V2, env=cli_env(endpoint, table))
    assert third.returncode == 0, third.stderr
    await assert_items_are_the_models(client, table, books=30, reviews=4)


@pytest.mark.parametrize("option", ["--segments", "--max-wcu"])
def test_a_pass_of_no_segments_or_no_budget_is_refused(option: str) -> None:
    refused = run_cli("migrate", "apply", option, "0", env={})
    assert refused.returncode == 2
    assert "above 0" in refused.stderr


def test_an_entity_may_not_be_typed_as_the_engine_s_items() -> None:
    entity = replace(library.SHELF, name="Migration")
    with pytest.raises(ModelError, match="the engine's own"):
        Model((entity,), ())


async def test_a_list_on_an_index_not_added_yet_is_unavailable_not_an_internal_error(
    client: Any, old_table: str, endpoint: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with Api.serving(settings_for(endpoint, old_table, model=V2)) as api:
        answer = await api(f"query {{ onLoan(first: 5) {{ {EDGES} }} }}")
    # Serving began with a warning naming the index and the fix.
    assert "lacks the indexes ['GSI3'] that the model" in caplog.text
    assert "`dynagate migrate apply`" in caplog.text
    assert answer.codes == ["UNAVAILABLE"], answer.body
    assert "not available yet" in str(answer.body)


async def test_create_table_refuses_an_index_whose_keys_the_model_changed(client: Any) -> None:
    async with new_table(client, "keys") as name:
        moved = Index("GSI2", "GSI2PK", "GSI9SK")
        with pytest.raises(DynamoDBFailure, match="changes no index's keys in place"):
            await create_table(client, name, indexes=(GSI1, moved), stream=False)


def test_an_attribute_added_without_a_default_is_named_not_guessed() -> None:
    isbn = replace(library.BOOK, attributes={**library.BOOK.attributes, "isbn": Text()})
    item = {
        "PK": "BOOK#0ujsswThIGTUYm2K8FjOOfXtY1K",
        "SK": "BOOK#0ujsswThIGTUYm2K8FjOOfXtY1K",
        "type": "BOOK",
        "id": "0ujsswThIGTUYm2K8FjOOfXtY1K",
    }
    whole = {
        **item,
        "shelfId": "s1",
        "title": "t",
        "genre": "NOVEL",
        "year": 1999,
        "loan": "AVAILABLE",
        "addedAt": "2026-01-01T00:00:00.000Z",
        "updatedAt": "2026-01-02T00:00:00.000Z",
    }
    lacking = change_of({"BOOK": isbn}, set(), whole)
    assert isinstance(lacking, Unmigrated)
    assert lacking.reason.startswith("it lacks 'isbn', which has no default")
