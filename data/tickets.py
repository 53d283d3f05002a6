"""Ticket queues and tickets as records, ordered by each ticket's `updatedAt` through GSI1."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from data import validation
from data.callers import AUTHOR_KEY, OPEN, Caller, author_of, wrote
from data.clock import new_ksuid, new_token, now
from data.collections import PageRead, Prefetched, load_with_pages
from data.creates import put_new, put_under
from keys import tickets as ticket_keys
from keys.codecs import format_timestamp, parse_timestamp
from keys.errors import BadUserInput, Conflict, Forbidden, NotFound
from keys.table import GSI1
from keys.tickets import TicketStatus as TicketStatus
from store.client import TRANSACT_CALLS, Store
from store.cost import worst_case
from store.cursors import Binding
from store.errors import ConditionFailed
from store.loaders import ItemLoader
from store.pagination import PageArgs, Paginator
from store.requests import Item, update_request

# updatedAt has millisecond precision: the smallest step that still moves a ticket up.
_TICK = timedelta(milliseconds=1)
UPDATE_ATTEMPTS = 5


@dataclass(frozen=True)
class Queue:
    id: str
    name: str

    @classmethod
    def from_item(cls, item: Item) -> Queue:
        return cls(item["id"], item["name"])


@dataclass(frozen=True)
class Ticket:
    id: str
    title: str
    status: TicketStatus
    created_at: datetime
    updated_at: datetime
    # Who opened it; None for a ticket opened in open mode.
    opened_by: str | None

    @classmethod
    def from_item(cls, item: Item) -> Ticket:
        return cls(
            id=item["id"],
            title=item["title"],
            status=TicketStatus(item["status"]),
            created_at=parse_timestamp(item["createdAt"]),
            updated_at=parse_timestamp(item["updatedAt"]),
            opened_by=author_of(item),
        )


@worst_case(requests=1)
async def create_queue(store: Store, queue_id: str, name: str) -> Queue:
    item = {
        **ticket_keys.queue_key(validation.ident(queue_id)),
        **ticket_keys.queue_index_attributes(queue_id),
        "type": "QUEUE",
        "id": queue_id,
        "name": validation.text(name, "name"),
        "createdAt": format_timestamp(now()),
    }
    await put_new(store, item, f"queue {queue_id!r} already exists")
    return Queue.from_item(item)


@worst_case(requests=TRANSACT_CALLS)
async def open_ticket(store: Store, queue_id: str, title: str, *, caller: Caller = OPEN) -> Ticket:
    validation.ident(queue_id, "queueId")
    created = now()
    ticket_id = new_ksuid(created)
    ticket = {
        **ticket_keys.ticket_key(ticket_id),
        **ticket_keys.ticket_index_attributes(queue_id, ticket_id, created),
        "type": "TICKET",
        "id": ticket_id,
        "queueId": queue_id,
        "title": validation.text(title, "title"),
        "status": TicketStatus.OPEN,
        "createdAt": format_timestamp(created),
        "updatedAt": format_timestamp(created),
        **caller.authored(),
    }
    await put_under(
        store,
        ticket_keys.queue_key(queue_id),
        f"queue {queue_id!r} does not exist",
        ticket,
        retry="the ticket could not be opened; try again",
    )
    return Ticket.from_item(ticket)


@worst_case(requests=UPDATE_ATTEMPTS)
async def update_ticket(
    store: Store,
    items: ItemLoader,
    ticket_id: str,
    title: str | None,
    status: TicketStatus | None,
    *,
    caller: Caller = OPEN,
) -> Ticket:
    """Change a ticket and move it to the top of its queue.

    The new `updatedAt` and the GSI1 sort key built from it are set by the same UpdateItem,
    so DynamoDB moves the ticket within the index with no delete. The write is conditional
    on the stored `updatedAt` being earlier, so a clock running behind or two updates in
    one millisecond never move a ticket down: then it is written again 1 ms later than the
    stored item, which comes back with the refusal. A refusal that brings back this call's
    own token is a resend of an attempt that was applied, its answer lost: the update is done.
    Only the ticket's opener may change it, which the same condition checks; a refusal that
    brings back a ticket someone else opened (or one opened in open mode) is FORBIDDEN, at once.
    """
    validation.ident(ticket_id)
    if title is None and status is None:
        raise BadUserInput("give `title`, `status` or both")
    changes: dict[str, str] = {}
    if title is not None:
        changes["title"] = validation.text(title, "title")
    if status is not None:
        changes["status"] = status
    key = validation.key_or_none(ticket_keys.ticket_key, ticket_id)
    if key is None:
        raise NotFound(f"ticket {ticket_id!r} does not exist")
    opener = _opener_required(caller)
    updated = now()
    token = new_token()
    for _ in range(UPDATE_ATTEMPTS):
        stamp = format_timestamp(updated)
        moved = ticket_keys.TICKET_BY_UPDATE.render(updated_at=updated, ticket_id=ticket_id)
        request = update_request(
            store.table,
            key,
            set_values={**changes, "updatedAt": stamp, GSI1.sort_key: moved},
            condition="#updatedAt < :stamp",
            condition_values={":stamp": stamp},
            expect=None if opener is None else {AUTHOR_KEY: opener},
            token=token,
        )
        try:
            ticket = await store.update(request)
        except ConditionFailed as exc:
            if exc.item is None:
                raise NotFound(f"ticket {ticket_id!r} does not exist") from None
            done = exc.written_by(token)
            if done is None:
                if not wrote(exc.item, caller):
                    raise Forbidden(f"ticket {ticket_id!r} was opened by someone else") from None
                # Changed meanwhile, or this clock is behind: write again just after it.
                updated = max(now(), parse_timestamp(exc.item["updatedAt"]) + _TICK)
                continue
            ticket = done
        items.refresh(key, ticket)
        return Ticket.from_item(ticket)
    raise Conflict(f"ticket {ticket_id!r} is being changed by other requests; try again")


def _opener_required(caller: Caller) -> str | None:
    """The opener key a ticket must hold for `caller` to change it; None when any will do."""
    return caller.restriction("sign in to change a ticket")


async def load_ticket(items: ItemLoader, ticket_id: str) -> Ticket | None:
    key = validation.key_or_none(ticket_keys.ticket_key, validation.ident(ticket_id))
    item = None if key is None else await items.load_item(key)
    return None if item is None else Ticket.from_item(item)


def tickets_read(queue_id: str, args: PageArgs) -> PageRead[Ticket]:
    """Most recently updated first."""
    condition = ticket_keys.queue_tickets(validation.ident(queue_id))
    binding = Binding("Queue.tickets", condition.partition, {})
    parent = ticket_keys.queue_index_attributes(queue_id)[GSI1.sort_key]
    return PageRead(condition, binding, args, forward=False, record=Ticket.from_item, parent=parent)


async def load_queue(
    items: ItemLoader, pages: Paginator, queue_id: str, reads: Mapping[str, PageRead[Any]]
) -> tuple[Queue | None, Prefetched]:
    """The queue, with the first pages of `reads` read in the same Queries (on GSI1)."""
    key = ticket_keys.queue_key(validation.ident(queue_id))
    item, prefetched = await load_with_pages(items, key, pages, reads)
    return (None if item is None else Queue.from_item(item)), prefetched
