"""Queues and tickets, declared (`demo/model/tickets.py`) and written by the derived writes
(`data/writes/entities.py`) straight against DynamoDB Local: a ticket's place in its queue
(GSI1) moves with every update, whatever this process's clock says."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import pytest

from data import entities
from data.callers import Caller
from data.writes import entities as entity_writes
from data.writes import plain
from demo.model import MODEL
from demo.model.tickets import QUEUE, TICKET, TicketStatus
from keys.codecs import format_timestamp
from store.client import Store
from store.cost import Cost
from store.loaders import ItemLoader
from tests.table import scan_all


async def ticket_of(client: Any, table: str) -> dict[str, Any]:
    [ticket] = [i for i in await scan_all(client, table) if i["type"] == "TICKET"]
    return ticket


def place(ticket: Mapping[str, Any]) -> str:
    """The ticket's sort key in its queue's list (GSI1)."""
    return f"#TICKET#{format_timestamp(ticket['updatedAt'])}#{ticket['id']}"


async def update(store: Store, items: ItemLoader, ticket_id: str, **changes: Any) -> Any:
    """An update by Alice, and the calls it made, which must be within the declared most."""
    store.cost = Cost()
    updated = await entity_writes.update(
        store,
        items,
        TICKET,
        {"id": ticket_id},
        {"title": None, "status": None, **changes},
        caller=Caller("Alice"),
        writer_only=True,
    )
    assert store.cost.requests <= entity_writes.update_calls(TICKET, ("title", "status"))[0]
    return updated, store.cost.requests


async def test_updates_move_a_ticket_up_even_from_a_clock_behind(
    store: Store, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = Caller("Alice")
    await entity_writes.create(store, MODEL, QUEUE, {"id": "q1", "name": "Support"}, caller=alice)
    store.cost = Cost()
    given = {"queueId": "q1", "title": "Jam"}
    opened = await entity_writes.create(store, MODEL, TICKET, given, caller=alice)
    assert store.cost.requests == 1 <= entity_writes.create_calls(MODEL, TICKET)
    stored = await ticket_of(client, store.table)
    assert entities.record(TICKET, stored) == opened
    assert opened["status"] is TicketStatus.OPEN
    assert (stored["GSI1PK"], stored["GSI1SK"]) == ("QUEUE#q1", place(opened))
    assert (stored["author"], stored["authorKey"]) == ("Alice", "alice")

    items = ItemLoader(store)
    later = opened["updatedAt"] + timedelta(seconds=1)
    monkeypatch.setattr(plain, "now", lambda: later)  # the clock an update reads
    retitled, requests = await update(store, items, opened["id"], title="Paper jam")
    assert (requests, retitled["updatedAt"]) == (1, later)

    # Another process's clock, a minute behind: written again 1 ms after the stored time.
    monkeypatch.setattr(plain, "now", lambda: later - timedelta(minutes=1))
    closed, requests = await update(store, items, opened["id"], status=TicketStatus.CLOSED)
    assert requests == 2
    assert closed["updatedAt"] == retitled["updatedAt"] + timedelta(milliseconds=1)
    stored = await ticket_of(client, store.table)
    assert entities.record(TICKET, stored) == closed
    assert (stored["title"], stored["status"], stored["GSI1SK"]) == (
        "Paper jam",
        "CLOSED",
        place(closed),
    )
