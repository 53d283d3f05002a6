"""Ticket queues sorted on a changing attribute (seed 001), declared.

    queue   PK = SK = QUEUE#<id>        GSI1  QUEUE#<id> / QUEUE#<id>
    ticket  PK = SK = TICKET#<ksuid>    GSI1  QUEUE#<queueId> / #TICKET#<updatedAt>#<ksuid>

A ticket's table key never changes; its GSI1 sort key does: every update stamps
`updatedAt` and re-renders the key in the same UpdateItem, so DynamoDB moves the ticket
within the index. The `#` leading a ticket's index key sorts before the queue's, so reading
GSI1 backwards from the queue item returns the queue and then its tickets, most recently
updated first, in one Query.
"""

from __future__ import annotations

from enum import StrEnum

from dynagate import GSI1
from model import (
    Author,
    Choice,
    Create,
    Entity,
    GeneratedId,
    Identifier,
    Keys,
    ListOf,
    Lookup,
    Parent,
    Text,
    Timestamp,
    Update,
    key,
    same,
)


class TicketStatus(StrEnum):
    """Every status a ticket can be in: the one list the data and the schema share."""

    OPEN = "OPEN"
    IN_PROGRESS = "IN_PROGRESS"
    CLOSED = "CLOSED"


QUEUE = Entity(
    "Queue",
    {"id": Identifier(), "name": Text(), "createdAt": Timestamp(stamped="create", shown=False)},
    key=same(key("QUEUE", "id")),
    indexes={GSI1: same(key("QUEUE", "id"))},
)
TICKET = Entity(
    "Ticket",
    {
        "id": GeneratedId(),
        "queueId": Identifier(shown=False),
        "title": Text(),
        "status": Choice(values=TicketStatus, initial=TicketStatus.OPEN),
        "createdAt": Timestamp(stamped="create"),
        "updatedAt": Timestamp(stamped="write"),
        "openedBy": Author(verb="opened", role="opener"),
    },
    key=same(key("TICKET", "id")),
    indexes={GSI1: Keys(key("QUEUE", "queueId"), key("#TICKET", "updatedAt", "id"))},
    parent=Parent("Queue", {"queueId": "id"}),
)
ENTITIES = (QUEUE, TICKET)
PATTERNS = (
    Lookup(QUEUE, "queue"),
    Lookup(TICKET, "ticket"),
    ListOf(
        TICKET,
        GSI1,
        "tickets",
        descending=True,
        description="Most recently updated first.",
        subscription="ticketChanges",
        subscription_description="The queue's tickets.",
    ),
    Create(QUEUE, "createQueue", access="admins"),
    Create(TICKET, "openTicket", done="opened"),
    Update(
        TICKET, "updateTicket", ("title", "status"), description="Give `title`, `status` or both."
    ),
)
