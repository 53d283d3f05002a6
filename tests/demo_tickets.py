"""The demo's ticket writes, derived from its declarations (`demo/model/tickets.py`), called
as the tests call each area's access patterns."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from data import entities, entity_lists
from data.callers import OPEN, Caller
from data.collections import PageRead, Prefetched
from data.entities import Record
from data.writes import entities as entity_writes
from demo.model import MODEL
from demo.model.tickets import QUEUE, TICKET, TicketStatus
from keys.conditions import KeyCondition
from keys.table import GSI1
from model import ListOf
from store.client import Store
from store.loaders import ItemLoader
from store.pagination import PageArgs, Paginator


async def create_queue(store: Store, queue_id: str, name: str) -> Record:
    given = {"id": queue_id, "name": name}
    return await entity_writes.create(store, MODEL, QUEUE, given, caller=OPEN)


async def open_ticket(store: Store, queue_id: str, title: str, *, caller: Caller = OPEN) -> Record:
    given = {"queueId": queue_id, "title": title}
    return await entity_writes.create(store, MODEL, TICKET, given, done="opened", caller=caller)


async def update_ticket(
    store: Store,
    items: ItemLoader,
    ticket_id: str,
    title: str | None,
    status: TicketStatus | None,
    *,
    caller: Caller = OPEN,
) -> Record:
    changes: dict[str, Any] = {"title": title, "status": status}
    return await entity_writes.update(
        store, items, TICKET, {"id": ticket_id}, changes, caller=caller, writer_only=True
    )


[TICKETS] = [p for p in MODEL.of_kind(ListOf) if p.entity is TICKET]


def tickets_read(queue_id: str, args: PageArgs) -> PageRead[Record]:
    return entity_lists.list_read(TICKETS, QUEUE, {"id": queue_id}, args)


async def load_queue(
    items: ItemLoader, pages: Paginator, queue_id: str, reads: Mapping[str, PageRead[Any]]
) -> tuple[Record | None, Prefetched]:
    return await entities.load_with_lists(items, pages, QUEUE, {"id": queue_id}, reads)


# ---- keys, as the key tests look at them -------------------------------------------------


def queue_key(queue_id: str) -> dict[str, str]:
    return QUEUE.primary_key({"id": queue_id})


def ticket_key(ticket_id: str) -> dict[str, str]:
    return TICKET.primary_key({"id": ticket_id})


def queue_index_attributes(queue_id: str) -> dict[str, str]:
    return QUEUE.key_values({"id": queue_id}, only=GSI1.attributes)


def ticket_index_attributes(queue_id: str, ticket_id: str, at: datetime) -> dict[str, str]:
    values = {"id": ticket_id, "queueId": queue_id, "updatedAt": at}
    return TICKET.key_values(values, only=GSI1.attributes)


def queue_tickets(queue_id: str) -> KeyCondition:
    return tickets_read(queue_id, PageArgs(1, False, None)).condition
