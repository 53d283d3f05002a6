"""Customers and orders (seeds 000 and 004), declared.

    customer  PK = SK = CUSTOMER#<id>
    order     PK = SK = ORDER#<ksuid>
              GSI1  CUSTOMER#<id>  ORDER#<t>#<ksuid>           orders of a customer by time
              GSI2  CUSTOMER#<id>  ORDER#<STATUS>#<t>#<ksuid>  by status, then time
              GSI3  ORDERS#PLACED  ORDER#<t>#<ksuid>           sparse: only PLACED orders

`<t>` is `placedAt` at millisecond precision, so a date range is one sort-key interval
that is exact to the millisecond; the KSUID after it breaks ties and keeps keys unique.
An order's lines are immutable and at most 50, so they live inside the order item: an
order with its items is one read.
"""

from __future__ import annotations

from enum import StrEnum

from dynagate import GSI1, GSI2, GSI3
from model import (
    Choice,
    Create,
    Email,
    Entity,
    GeneratedId,
    Identifier,
    Keys,
    Lines,
    ListOf,
    Lookup,
    Number,
    Owner,
    Parent,
    Range,
    Text,
    Timestamp,
    Total,
    Update,
    key,
    moves,
    only,
    same,
)


class OrderStatus(StrEnum):
    """Every status an order can be in: the one list the keys, rules and schema share."""

    PLACED = "PLACED"
    SHIPPED = "SHIPPED"
    DELIVERED = "DELIVERED"
    CANCELLED = "CANCELLED"


CUSTOMER = Entity(
    "Customer",
    {
        "id": Identifier(),
        "name": Text(),
        "email": Email(),
        "createdAt": Timestamp(stamped="create"),
    },
    key=same(key("CUSTOMER", "id")),
    owner=Owner("id", "customer"),
)
BY_TIME = key("ORDER", "placedAt", "id")
ORDER = Entity(
    "Order",
    {
        "id": GeneratedId(),
        "customerId": Identifier(shown=False),
        "status": Choice(values=OrderStatus, initial=OrderStatus.PLACED),
        "placedAt": Timestamp(stamped="create", imported=True),
        "updatedAt": Timestamp(stamped="write"),
        "totalCents": Total(lines="items", of=("quantity", "unitPriceCents"), unit="cents"),
        "items": Lines(
            name="OrderItem",
            fields={
                "sku": Text(max_length=64),
                "quantity": Number(low=1, high=1_000),
                "unitPriceCents": Number(low=0, high=10**9),
            },
        ),
    },
    key=same(key("ORDER", "id")),
    indexes={
        GSI1: Keys(key("CUSTOMER", "customerId"), BY_TIME),
        GSI2: Keys(key("CUSTOMER", "customerId"), key("ORDER", "status", "placedAt", "id")),
        GSI3: Keys(key("ORDERS", "status"), BY_TIME),
    },
    sparse={GSI3: only("status", OrderStatus.PLACED)},
    parent=Parent("Customer", {"customerId": "id"}, field="customer"),
    owner=Owner("customerId", "customer"),
)
ENTITIES = (CUSTOMER, ORDER)
PATTERNS = (
    Lookup(CUSTOMER, "customer", access="owner"),
    Lookup(ORDER, "order", access="owner"),
    ListOf(
        ORDER,
        GSI2,
        "orders",
        equal=("status",),
        range=Range("placedAt", "placed"),
        unnarrowed=GSI1,
        descending=True,
        direction=True,
        subscription="orderChanges",
        subscription_access="owner",
        subscription_range=False,
    ),
    ListOf(
        ORDER,
        GSI3,
        "openOrders",
        root=True,
        at={"status": OrderStatus.PLACED},
        access="admins",
        description="PLACED orders of every customer, oldest first (a sparse index).",
    ),
    Create(CUSTOMER, "createCustomer", access="owner"),
    Create(ORDER, "placeOrder", access="owner", done="placed"),
    Update(
        ORDER,
        "setOrderStatus",
        ("status",),
        access="admins",
        inline=True,
        moves=(
            moves(
                "status",
                {
                    OrderStatus.PLACED: [OrderStatus.SHIPPED, OrderStatus.CANCELLED],
                    OrderStatus.SHIPPED: [OrderStatus.DELIVERED],
                },
            ),
        ),
    ),
)
