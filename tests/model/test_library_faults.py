"""The derived writes of a model of the tests' own (`tests/model/library.py`) when
DynamoDB's answer is lost after it applied the write, or two requests race: each write
happens once, the resend recognised as its own, and the table holds what was asked."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from data.callers import Caller
from data.writes import entities as entity_writes
from errors.vocabulary import Conflict, NotFound
from keys.codecs import format_timestamp
from store.client import Store
from store.loaders import ItemLoader
from tests.data.test_faults import lost_once, of_type
from tests.faults import FaultProxy
from tests.model.library import BOOK, MODEL, SHELF

pytestmark = pytest.mark.usefixtures("no_pauses")
ANN = Caller("Ann")


async def shelved(store: Store) -> dict[str, Any]:
    await entity_writes.create(store, MODEL, SHELF, {"id": "s1", "label": "One"}, caller=ANN)
    given = {"shelfId": "s1", "title": "Once", "genre": "NOVEL", "year": 2000}
    return dict(await entity_writes.create(store, MODEL, BOOK, given, caller=ANN))


async def test_a_create_whose_answer_was_lost_is_written_once(
    proxy: FaultProxy, faulty: Store, client: Any, table: str
) -> None:
    direct = Store(client, table)
    await entity_writes.create(direct, MODEL, SHELF, {"id": "s1", "label": "One"}, caller=ANN)
    given = {"shelfId": "s1", "title": "Once", "genre": "NOVEL", "year": 2000}
    creating = entity_writes.create(faulty, MODEL, BOOK, given, caller=ANN)
    book = await lost_once(proxy, "TransactWriteItems", creating)
    assert [i["id"] for i in await of_type(direct, "BOOK")] == [book["id"]]


async def test_an_update_and_a_delete_whose_answers_were_lost_happen_once(
    proxy: FaultProxy, faulty: Store, client: Any, table: str
) -> None:
    direct = Store(client, table)
    book = await shelved(direct)
    changes = {"title": "Twice?", "loan": "ON_LOAN"}
    updating = entity_writes.update(
        faulty, ItemLoader(faulty), BOOK, {"id": book["id"]}, changes, caller=ANN, writer_only=True
    )
    updated = await lost_once(proxy, "UpdateItem", updating)
    [stored] = await of_type(direct, "BOOK")
    assert (stored["title"], stored["GSI3PK"]) == ("Twice?", "LOANS")
    # Written once: the resend did not move it a millisecond further.
    assert stored["updatedAt"] == format_timestamp(updated["updatedAt"])
    removing = entity_writes.delete(
        faulty, ItemLoader(faulty), BOOK, {"id": book["id"]}, caller=ANN, writer_only=True
    )
    assert await lost_once(proxy, "TransactWriteItems", removing) is True
    assert await of_type(direct, "BOOK") == []
    with pytest.raises(NotFound):
        await entity_writes.delete(
            direct, ItemLoader(direct), BOOK, {"id": book["id"]}, caller=ANN, writer_only=True
        )


async def test_racing_updates_all_land_and_the_book_keeps_its_latest_place(
    client: Any, table: str
) -> None:
    """Ten updates at once from clocks that agree: each either lands, moving the book up,
    or is refused as busy; the stored sort key is the stored time's."""
    direct = Store(client, table)
    book = await shelved(direct)

    async def retitle(n: int) -> str:
        try:
            await entity_writes.update(
                direct,
                ItemLoader(direct),
                BOOK,
                {"id": book["id"]},
                {"title": f"t{n}"},
                caller=ANN,
                writer_only=True,
            )
        except Conflict:
            return "busy"
        return "done"

    outcomes = await asyncio.gather(*(retitle(n) for n in range(10)))
    assert "done" in outcomes
    [stored] = await of_type(direct, "BOOK")
    assert stored["GSI1SK"] == f"#BOOK#{stored['updatedAt']}#{book['id']}"
