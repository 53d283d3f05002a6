"""Queues and tickets (`data/tickets.py`) called straight against DynamoDB Local: a ticket's
place in its queue (GSI1) moves with every update, whatever this process's clock says."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from data import tickets as data
from data.callers import Caller
from data.tickets import TicketStatus
from keys.codecs import format_timestamp
from store.client import Store
from store.loaders import ItemLoader
from tests.data.patterns_helpers import within_declared
from tests.table import scan_all


async def ticket_of(client: Any, table: str) -> dict[str, Any]:
    [ticket] = [i for i in await scan_all(client, table) if i["type"] == "TICKET"]
    return ticket


def place(ticket: data.Ticket) -> str:
    """The ticket's sort key in its queue's list (GSI1)."""
    return f"#TICKET#{format_timestamp(ticket.updated_at)}#{ticket.id}"


async def test_updates_move_a_ticket_up_even_from_a_clock_behind(
    store: Store, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = Caller("Alice")
    await data.create_queue(store, "q1", "Support")
    opened, spent = await within_declared(store, data.open_ticket, "q1", "Jam", caller=alice)
    assert spent.requests == 1
    stored = await ticket_of(client, store.table)
    assert data.Ticket.from_item(stored) == opened
    assert (stored["GSI1PK"], stored["GSI1SK"]) == ("QUEUE#q1", place(opened))
    assert (stored["author"], stored["authorKey"]) == ("Alice", "alice")

    items = ItemLoader(store)
    later = opened.updated_at + timedelta(seconds=1)
    monkeypatch.setattr(data, "now", lambda: later)
    retitled, spent = await within_declared(
        store, data.update_ticket, items, opened.id, "Paper jam", None, caller=alice
    )
    assert (spent.requests, retitled.updated_at) == (1, later)

    # Another process's clock, a minute behind: written again 1 ms after the stored time.
    monkeypatch.setattr(data, "now", lambda: later - timedelta(minutes=1))
    closed, spent = await within_declared(
        store, data.update_ticket, items, opened.id, None, TicketStatus.CLOSED, caller=alice
    )
    assert spent.requests == 2
    assert closed.updated_at == retitled.updated_at + timedelta(milliseconds=1)
    stored = await ticket_of(client, store.table)
    assert data.Ticket.from_item(stored) == closed
    assert (stored["title"], stored["status"], stored["GSI1SK"]) == (
        "Paper jam",
        "CLOSED",
        place(closed),
    )
