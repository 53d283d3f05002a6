"""Ticket queues sorted on a changing attribute (seed 001)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry

from data import tickets as data
from data.collections import Prefetched, page_for
from keys.codecs import parse_timestamp
from resolvers import lookahead
from resolvers.context import Context
from resolvers.relay import NOT_GIVEN, Connection, connection_field, given
from store.pagination import PageArgs
from store.requests import Item

Info = strawberry.Info[Context, None]


@strawberry.enum
class TicketStatus(Enum):
    OPEN = "OPEN"
    IN_PROGRESS = "IN_PROGRESS"
    CLOSED = "CLOSED"


@strawberry.type
class Ticket:
    id: strawberry.ID
    title: str
    status: TicketStatus
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_item(cls, item: Item) -> Ticket:
        return cls(
            id=strawberry.ID(item["id"]),
            title=item["title"],
            status=TicketStatus(item["status"]),
            created_at=parse_timestamp(item["createdAt"]),
            updated_at=parse_timestamp(item["updatedAt"]),
        )


@strawberry.type
class Queue:
    id: strawberry.ID
    name: str
    prefetched: strawberry.Private[Prefetched]

    @classmethod
    def from_item(cls, item: Item, prefetched: Prefetched | None = None) -> Queue:
        return cls(id=strawberry.ID(item["id"]), name=item["name"], prefetched=prefetched or {})

    @connection_field
    async def tickets(
        self,
        info: Info,
        page: PageArgs,
    ) -> Connection[Ticket]:
        """Most recently updated first."""
        read = data.tickets_read(str(self.id), page)
        found = await page_for(self.prefetched, str(info.path.key), read, info.context.pages)
        return Connection.from_page(found, Ticket.from_item)


@strawberry.input
class CreateQueueInput:
    id: strawberry.ID
    name: str


@strawberry.input
class OpenTicketInput:
    queue_id: strawberry.ID
    title: str


@strawberry.input(description="Give `title`, `status` or both.")
class UpdateTicketInput:
    id: strawberry.ID
    title: str | None = NOT_GIVEN
    status: TicketStatus | None = NOT_GIVEN


@strawberry.type
class TicketsQuery:
    @strawberry.field
    async def queue(self, info: Info, id: strawberry.ID) -> Queue | None:
        """With `tickets` selected, the queue and the first page are one Query on GSI1."""
        reads = lookahead.child_reads(
            info, {"tickets": lambda a: data.tickets_read(id, lookahead.page_args(a))}
        )
        item, prefetched = await data.load_queue(info.context.items, info.context.pages, id, reads)
        return None if item is None else Queue.from_item(item, prefetched)

    @strawberry.field
    async def ticket(self, info: Info, id: strawberry.ID) -> Ticket | None:
        item = await data.load_ticket(info.context.items, id)
        return None if item is None else Ticket.from_item(item)


@strawberry.type
class TicketsMutation:
    @strawberry.mutation
    async def create_queue(self, info: Info, input: CreateQueueInput) -> Queue:
        return Queue.from_item(await data.create_queue(info.context.store, input.id, input.name))

    @strawberry.mutation
    async def open_ticket(self, info: Info, input: OpenTicketInput) -> Ticket:
        item = await data.open_ticket(info.context.store, input.queue_id, input.title)
        return Ticket.from_item(item)

    @strawberry.mutation
    async def update_ticket(self, info: Info, input: UpdateTicketInput) -> Ticket:
        status = given(input.status)
        item = await data.update_ticket(
            info.context.store,
            info.context.items,
            input.id,
            given(input.title),
            None if status is None else status.value,
        )
        return Ticket.from_item(item)
