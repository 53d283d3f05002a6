"""Ticket queues sorted on a changing attribute, `updatedAt` (seed 001).

    queue   PK = SK = QUEUE#<id>        GSI1  QUEUE#<id> / QUEUE#<id>
    ticket  PK = SK = TICKET#<ksuid>    GSI1  QUEUE#<id> / #TICKET#<updatedAt>#<ksuid>

A ticket's table key never changes; its GSI1 sort key does. An update rewrites `updatedAt`
and the GSI1 sort key in the same UpdateItem, and DynamoDB moves the ticket within the
index: no delete and re-insert. The `#` leading a ticket's index key sorts before the
queue's, so reading GSI1 backwards from the queue item returns the queue and then its
tickets, most recently updated first, in one Query.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from keys.codecs import IdentifierCodec, KsuidCodec, TimestampCodec
from keys.conditions import KeyCondition
from keys.table import GSI1, entity_key
from keys.template import DELIMITER, KeyTemplate, Segment


class TicketStatus(StrEnum):
    """Every status a ticket can be in: the one list the data and the schema share."""

    OPEN = "OPEN"
    IN_PROGRESS = "IN_PROGRESS"
    CLOSED = "CLOSED"


QUEUE = KeyTemplate("QUEUE", (Segment("queue_id", IdentifierCodec()),))
TICKET = KeyTemplate("TICKET", (Segment("ticket_id", KsuidCodec()),))
TICKET_BY_UPDATE = KeyTemplate(
    DELIMITER + "TICKET",
    (Segment("updated_at", TimestampCodec()), Segment("ticket_id", KsuidCodec())),
)


def queue_key(queue_id: str) -> dict[str, str]:
    return entity_key(QUEUE.render(queue_id=queue_id))


def queue_index_attributes(queue_id: str) -> dict[str, str]:
    """The queue item heads its tickets in GSI1."""
    key = QUEUE.render(queue_id=queue_id)
    return {GSI1.partition_key: key, GSI1.sort_key: key}


def ticket_key(ticket_id: str) -> dict[str, str]:
    return entity_key(TICKET.render(ticket_id=ticket_id))


def ticket_index_attributes(queue_id: str, ticket_id: str, updated_at: datetime) -> dict[str, str]:
    return {
        GSI1.partition_key: QUEUE.render(queue_id=queue_id),
        GSI1.sort_key: TICKET_BY_UPDATE.render(updated_at=updated_at, ticket_id=ticket_id),
    }


def queue_tickets(queue_id: str) -> KeyCondition:
    """The tickets of a queue (read descending for most recently updated first)."""
    return KeyCondition.prefix(GSI1, QUEUE.render(queue_id=queue_id), TICKET_BY_UPDATE.prefix())
