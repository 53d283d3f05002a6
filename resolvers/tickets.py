"""Ticket queues sorted on a changing attribute (seed 001)."""

from __future__ import annotations

from datetime import datetime

import strawberry

from data import tickets as data
from data.collections import ENTRY_BYTES, Prefetched, page_for
from data.tickets import TicketStatus
from resolvers import lookahead
from resolvers.access import ADMINS, AUTHOR, SIGNED_IN, Stored
from resolvers.context import Context
from resolvers.cost import entity, field_with_cost, item_read, mutation_with_cost, page_read, writes
from resolvers.records import FromRecord, mirrored, written_by
from resolvers.relay import NOT_GIVEN, Connection, connection_field, given
from store.pagination import PageArgs

Info = strawberry.Info[Context, None]

# The stored statuses are the schema's enum.
strawberry.enum(TicketStatus)


@strawberry.type
class Ticket(FromRecord):
    id: strawberry.ID
    title: str
    status: TicketStatus
    created_at: datetime
    updated_at: datetime
    opened_by: str | None = written_by("opened", "a ticket")


@strawberry.type
class Queue:
    id: strawberry.ID
    name: str
    prefetched: strawberry.Private[Prefetched]

    @classmethod
    def from_record(cls, queue: data.Queue, prefetched: Prefetched | None = None) -> Queue:
        return mirrored(cls, queue, prefetched=prefetched or {})

    @connection_field(page_read(ENTRY_BYTES))
    async def tickets(
        self,
        info: Info,
        page: PageArgs,
    ) -> Connection[Ticket]:
        """Most recently updated first."""
        read = data.tickets_read(str(self.id), page)
        found = await page_for(self.prefetched, str(info.path.key), read, info.context.pages)
        return Connection.from_page(found, Ticket.from_record)


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
    # With its first page selected below, as `Query.repo` does.
    @field_with_cost(item_read(entity("Queue", "id")), SIGNED_IN)
    async def queue(self, info: Info, id: strawberry.ID) -> Queue | None:
        """With `tickets` selected, the queue and the first page are one Query on GSI1."""
        reads = lookahead.child_reads(
            info, {"tickets": lambda a: data.tickets_read(id, lookahead.page_args(a))}
        )
        queue, prefetched = await data.load_queue(info.context.items, info.context.pages, id, reads)
        return None if queue is None else Queue.from_record(queue, prefetched)

    @field_with_cost(item_read(entity("Ticket", "id")), SIGNED_IN)
    async def ticket(self, info: Info, id: strawberry.ID) -> Ticket | None:
        ticket = await data.load_ticket(info.context.items, id)
        return None if ticket is None else Ticket.from_record(ticket)


@strawberry.type
class TicketsMutation:
    @mutation_with_cost(writes(data.create_queue), ADMINS)
    async def create_queue(self, info: Info, input: CreateQueueInput) -> Queue:
        queue = await data.create_queue(info.context.store, input.id, input.name)
        return Queue.from_record(queue)

    @mutation_with_cost(writes(data.open_ticket), AUTHOR)
    async def open_ticket(self, info: Info, input: OpenTicketInput) -> Ticket:
        context = info.context
        ticket = await data.open_ticket(
            context.store, input.queue_id, input.title, caller=context.caller
        )
        return Ticket.from_record(ticket)

    @mutation_with_cost(writes(data.update_ticket), Stored("the ticket's opener"))
    async def update_ticket(self, info: Info, input: UpdateTicketInput) -> Ticket:
        context = info.context
        ticket = await data.update_ticket(
            context.store,
            context.items,
            input.id,
            given(input.title),
            given(input.status),
            caller=context.caller,
        )
        return Ticket.from_record(ticket)
