"""Customers and orders (seeds 000 and 004).

    customer  PK = SK = CUSTOMER#<id>
    order     PK = SK = ORDER#<ksuid>
              GSI1  CUSTOMER#<id>  ORDER#<t>#<ksuid>           orders of a customer by time
              GSI2  CUSTOMER#<id>  ORDER#<STATUS>#<t>#<ksuid>  by status, then time
              GSI3  ORDERS#PLACED  ORDER#<t>#<ksuid>           sparse: only PLACED orders

`<t>` is `placedAt` at millisecond precision, so a date range is one sort-key interval
that is exact to the millisecond; the KSUID after it breaks ties and keeps keys unique.
An order's lines are immutable and at most 50, so they live inside the order item:
an order with its items is one read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from keys.codecs import ChoiceCodec, IdentifierCodec, KsuidCodec, TimestampCodec
from keys.conditions import KeyCondition, within
from keys.errors import BadUserInput
from keys.table import GSI1, GSI2, GSI3, Index, entity_key
from keys.template import KeyTemplate, Segment


class OrderStatus(StrEnum):
    """Every status an order can be in: the one list the keys, rules and schema share."""

    PLACED = "PLACED"
    SHIPPED = "SHIPPED"
    DELIVERED = "DELIVERED"
    CANCELLED = "CANCELLED"


ORDER_STATUSES: frozenset[str] = frozenset(OrderStatus)
OPEN_STATUS = OrderStatus.PLACED

CUSTOMER = KeyTemplate("CUSTOMER", (Segment("customer_id", IdentifierCodec()),))
ORDER = KeyTemplate("ORDER", (Segment("order_id", KsuidCodec()),))
ORDER_BY_TIME = KeyTemplate(
    "ORDER", (Segment("placed_at", TimestampCodec()), Segment("order_id", KsuidCodec()))
)
ORDER_BY_STATUS = KeyTemplate(
    "ORDER",
    (
        Segment("status", ChoiceCodec(ORDER_STATUSES)),
        Segment("placed_at", TimestampCodec()),
        Segment("order_id", KsuidCodec()),
    ),
)
OPEN_ORDERS = KeyTemplate("ORDERS", (Segment("status", ChoiceCodec(ORDER_STATUSES)),))


@dataclass(frozen=True)
class TimeRange:
    """Both ends inclusive, at least one given, `start <= end`."""

    start: datetime | None
    end: datetime | None

    def __post_init__(self) -> None:
        if self.start is None and self.end is None:
            raise BadUserInput("give `from`, `to` or both", field="placed")
        if any(t is not None and t.utcoffset() is None for t in (self.start, self.end)):
            raise BadUserInput("a time needs a time zone", field="placed")
        if self.start is not None and self.end is not None and self.start > self.end:
            raise BadUserInput("`from` is later than `to`", field="placed")


def customer_key(customer_id: str) -> dict[str, str]:
    return entity_key(CUSTOMER.render(customer_id=customer_id))


def order_key(order_id: str) -> dict[str, str]:
    return entity_key(ORDER.render(order_id=order_id))


def order_index_attributes(
    customer_id: str, order_id: str, status: str, placed_at: datetime
) -> dict[str, str]:
    """The secondary-index attributes an order carries in `status`.

    GSI3 attributes exist only while the order is PLACED; a move away from PLACED must
    remove them (see `OPEN_ORDER_ATTRIBUTES`).
    """
    customer = CUSTOMER.render(customer_id=customer_id)
    by_time = ORDER_BY_TIME.render(placed_at=placed_at, order_id=order_id)
    attributes = {
        GSI1.partition_key: customer,
        GSI1.sort_key: by_time,
        GSI2.partition_key: customer,
        GSI2.sort_key: ORDER_BY_STATUS.render(
            status=status, placed_at=placed_at, order_id=order_id
        ),
    }
    if status == OPEN_STATUS:
        attributes[GSI3.partition_key] = OPEN_ORDERS.render(status=OPEN_STATUS)
        attributes[GSI3.sort_key] = by_time
    return attributes


OPEN_ORDER_ATTRIBUTES = GSI3.attributes


def customer_orders(
    customer_id: str, status: str | None = None, placed: TimeRange | None = None
) -> KeyCondition:
    """Orders of one customer, optionally in one status and/or placed within a range."""
    partition = CUSTOMER.render(customer_id=customer_id)
    if status is None:
        return _time_interval(GSI1, partition, ORDER_BY_TIME, {}, placed)
    return _time_interval(GSI2, partition, ORDER_BY_STATUS, {"status": status}, placed)


def open_orders() -> KeyCondition:
    partition = OPEN_ORDERS.render(status=OPEN_STATUS)
    return KeyCondition.prefix(GSI3, partition, ORDER_BY_TIME.prefix())


def _time_interval(
    index: Index,
    partition: str,
    template: KeyTemplate,
    leading: dict[str, str],
    placed: TimeRange | None,
) -> KeyCondition:
    if placed is None:
        return KeyCondition.prefix(index, partition, template.prefix(**leading))
    return within(index, partition, template, leading, "placed_at", placed.start, placed.end)
