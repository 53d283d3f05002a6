"""`dynagate migrate plan|apply` against DynamoDB Local: a table written by an older model
(`tests/model/library_v1.py`) brought to the library model (`tests/model/library.py`) — an
index added, keys and a default given, keys removed, copies written — and every item then
checked one by one; killed with SIGKILL at random points and started again; raced by a
gateway serving the new model; its answers lost on the way back."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from data.migration.items import ItemChange, Unmigrated, change_of, entity_labels, fingerprint
from data.migration.passes import WriteBudget, index_attributes
from model import GSI1, TABLE, Index, Layout, Model, ModelError, Number, Text
from store.errors import DynamoDBFailure
from store.tables import create_table, describe
from tests.client import Api, settings_for
from tests.conftest import new_table
from tests.data.migration_setup import (
    EDGES,
    V2,
    assert_items_are_the_models,
    cli_env,
    written_by_v1,
)
from tests.gateway.test_cli import run as run_cli
from tests.model import library, library_v1
from tests.table import scan_all

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


async def test_create_table_makes_the_model_s_indexes(client: Any) -> None:
    name = f"model-{random.Random().randrange(10**9)}"
    await create_table(client, name, layout=library_v1.MODEL.table_layout, stream=False)
    try:
        described = await describe(client, name) or {}
        assert sorted(i["IndexName"] for i in described["GlobalSecondaryIndexes"]) == [
            "GSI1",
            "GSI2",
        ]
    finally:
        await client.delete_table(TableName=name)


@pytest.mark.parametrize("option", ["--segments", "--max-wcu"])
def test_a_pass_of_no_segments_or_no_budget_is_refused(option: str) -> None:
    refused = run_cli("migrate", "apply", option, "0", env={})
    assert refused.returncode == 2
    assert "above 0" in refused.stderr


def test_an_entity_may_not_be_typed_as_the_engine_s_items() -> None:
    entity = replace(library.SHELF, name="Migration")
    with pytest.raises(ModelError, match="the engine's own"):
        Model((entity,), ())


async def test_create_table_refuses_an_index_whose_keys_the_model_changed(client: Any) -> None:
    async with new_table(client, "keys") as name:
        moved = Index("GSI2", "GSI2PK", "GSI9SK")
        with pytest.raises(
            DynamoDBFailure, match=r"index GSI2 is global on GSI2PK \(S\) \+ GSI2SK"
        ):
            await create_table(client, name, layout=Layout(TABLE, (GSI1, moved)), stream=False)


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
