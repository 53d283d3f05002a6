"""A migration under faults, against DynamoDB Local: killed with SIGKILL at random points
and started again, two runs at once, raced by a gateway serving the new model (which also
serves the items not migrated yet, and answers a list on an index not added yet), its
answers lost on the way back; every item then checked one by one."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
from typing import Any

import pytest

from data.migration.items import ItemChange, change_of, entity_labels
from data.migration.passes import Pass, index_attributes, run
from keys.migrations import checkpoint_key
from keys.table import TABLE
from store.client import Store
from store.transport.connection import open_client
from tests.client import Api, settings_for
from tests.data.migration_setup import (
    EDGES,
    GENRES,
    V2,
    assert_items_are_the_models,
    cli_env,
    killed_and_resumed,
    written_by_v1,
)
from tests.faults import FaultProxy, without_backoff
from tests.gateway.test_cli import DYNAGATE
from tests.gateway.test_cli import run as run_cli
from tests.model import library
from tests.table import scan_all

# ---- against DynamoDB Local, under faults


async def test_killed_at_random_points_it_resumes_and_loses_and_duplicates_nothing(
    client: Any, old_table: str, endpoint: str
) -> None:
    books, reviews = 40, 24
    await written_by_v1(client, old_table, books=books, reviews=reviews)
    command = [DYNAGATE, "migrate", "apply", "--model", V2, "--max-wcu", "150"]
    killed_midway = 0

    async def checkpoint_kept() -> None:
        nonlocal killed_midway
        kept = await client.get_item(
            TableName=old_table,
            Key={k: {"S": v} for k, v in checkpoint_key(TABLE).items()},
            ConsistentRead=True,
        )
        killed_midway += "Item" in kept

    await killed_and_resumed(
        command, cli_env(endpoint, old_table), seed=11, after_kill=checkpoint_kept
    )
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
    key = {k: {"S": v} for k, v in checkpoint_key(TABLE).items()}
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
