"""A record written with a request's first write (`store.witness.Intent`): when another
request wrote it first, every write path refuses in the words of the intent's maker, and
nothing of the request is written. Against DynamoDB Local."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from errors.vocabulary import Conflict
from keys.table import TABLE
from store.client import Store
from store.requests import (
    WRITE_TOKEN,
    put_request,
    transaction_put,
    update_request,
)
from store.witness import Intent, Witness
from tests.table import scan_all

RECORD = {"PK": "RECORD#k", "SK": "RECORD#k"}
REFUSAL = "someone else holds this record"
Write = Callable[[Store, str], Awaitable[Any]]


def intent(table: str, token: str) -> Intent:
    item = {**RECORD, WRITE_TOKEN: token}
    return Intent(transaction_put(table, item, new_on=TABLE), Witness(RECORD, token), REFUSAL)


async def put(store: Store, table: str) -> None:
    await store.put(put_request(table, {"PK": "A#1", "SK": "A#1"}, new_on=TABLE))


async def update(store: Store, table: str) -> None:
    await store.update(update_request(table, {"PK": "A#1", "SK": "A#1"}, add={"n": 1}))


async def transact(store: Store, table: str) -> None:
    await store.transact([transaction_put(table, {"PK": "A#1", "SK": "A#1"}, new_on=TABLE)])


@pytest.mark.parametrize("write", [put, update, transact])
async def test_a_record_written_first_by_another_is_refused_in_its_makers_words(
    client: Any, table: str, write: Write
) -> None:
    await client.put_item(TableName=table, Item={k: {"S": v} for k, v in RECORD.items()})
    store = Store(client, table, intent=intent(table, "mine"))
    with pytest.raises(Conflict) as refused:
        await write(store, table)
    assert str(refused.value) == REFUSAL
    assert store.intent is not None and not store.intent.landed
    assert [i["PK"] for i in await scan_all(client, table)] == [RECORD["PK"]]


async def test_of_two_requests_racing_for_one_record_one_writes(client: Any, table: str) -> None:
    stores = [Store(client, table, intent=intent(table, f"t{n}")) for n in range(2)]
    outcomes = await asyncio.gather(*(put(s, table) for s in stores), return_exceptions=True)
    refusals = [o for o in outcomes if isinstance(o, Exception)]
    assert len(refusals) == 1 and isinstance(refusals[0], Conflict), outcomes
    assert str(refusals[0]) == REFUSAL
    assert sum(s.intent is not None and s.intent.landed for s in stores) == 1
    items = {i["PK"]: i for i in await scan_all(client, table)}
    assert set(items) == {"A#1", RECORD["PK"]}
    winner = next(s for s in stores if s.intent is not None and s.intent.landed)
    assert winner.intent is not None
    assert items[RECORD["PK"]][WRITE_TOKEN] == winner.intent.witness.token
