"""Customers and orders: validation, item shapes, records, and the writes that keep
indexes right."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from data import validation
from data.clock import new_ksuid, new_token, now
from data.creates import put_new, put_under
from keys import orders as order_keys
from keys.codecs import format_timestamp, parse_timestamp
from keys.errors import BadUserInput, Conflict, NotFound
from keys.orders import OrderStatus as OrderStatus
from keys.orders import TimeRange as TimeRange
from keys.table import GSI2
from store.client import TRANSACT_CALLS, Store
from store.cost import worst_case
from store.cursors import Binding
from store.errors import ConditionFailed
from store.loaders import ItemLoader
from store.pagination import Page, PageArgs, Paginator
from store.requests import (
    Item,
    update_request,
)

# Allowed status moves; anything else is a client error.
TRANSITIONS: dict[OrderStatus, frozenset[OrderStatus]] = {
    OrderStatus.PLACED: frozenset({OrderStatus.SHIPPED, OrderStatus.CANCELLED}),
    OrderStatus.SHIPPED: frozenset({OrderStatus.DELIVERED}),
}
MAX_LINES = 50
SKU_MAX = 64
# An order holds its lines: a SKU and three numbers each.
ORDER_BYTES = validation.stored_bytes(*[SKU_MAX + 16] * MAX_LINES)
# `totalCents` is a GraphQL Int: a signed 32-bit number.
MAX_TOTAL_CENTS = 2**31 - 1


@dataclass(frozen=True)
class OrderLine:
    sku: str
    quantity: int
    unit_price_cents: int


@dataclass(frozen=True)
class Customer:
    id: str
    name: str
    email: str
    created_at: datetime

    @classmethod
    def from_item(cls, item: Item) -> Customer:
        return cls(item["id"], item["name"], item["email"], parse_timestamp(item["createdAt"]))


@dataclass(frozen=True)
class Order:
    id: str
    customer_id: str
    status: OrderStatus
    placed_at: datetime
    updated_at: datetime
    total_cents: int
    # In the order given, numbered from 1.
    lines: list[OrderLine]

    @classmethod
    def from_item(cls, item: Item) -> Order:
        return cls(
            id=item["id"],
            customer_id=item["customerId"],
            status=OrderStatus(item["status"]),
            placed_at=parse_timestamp(item["placedAt"]),
            updated_at=parse_timestamp(item["updatedAt"]),
            total_cents=item["totalCents"],
            lines=[
                OrderLine(line["sku"], line["quantity"], line["unitPriceCents"])
                for line in item["items"]
            ],
        )


def validate_lines(lines: Sequence[OrderLine]) -> None:
    validation.number(len(lines), "items (count)", 1, MAX_LINES)
    for position, line in enumerate(lines, start=1):
        validation.text(line.sku, f"items[{position}].sku", SKU_MAX)
        validation.number(line.quantity, f"items[{position}].quantity", 1, 1_000)
        validation.number(line.unit_price_cents, f"items[{position}].unitPriceCents", 0, 10**9)
    total = sum(line.quantity * line.unit_price_cents for line in lines)
    if total > MAX_TOTAL_CENTS:
        raise BadUserInput(f"items: the order total {total:,} cents is over {MAX_TOTAL_CENTS:,}")


def customer_item(customer_id: str, name: str, email: str, created_at: datetime) -> Item:
    return {
        **order_keys.customer_key(customer_id),
        "type": "CUSTOMER",
        "id": customer_id,
        "name": name,
        "email": email,
        "createdAt": format_timestamp(created_at),
    }


def order_item(
    order_id: str,
    customer_id: str,
    lines: Sequence[OrderLine],
    placed_at: datetime,
    updated_at: datetime,
) -> Item:
    return {
        **order_keys.order_key(order_id),
        **order_keys.order_index_attributes(customer_id, order_id, "PLACED", placed_at),
        "type": "ORDER",
        "id": order_id,
        "customerId": customer_id,
        "status": "PLACED",
        "placedAt": format_timestamp(placed_at),
        "updatedAt": format_timestamp(updated_at),
        "totalCents": sum(line.quantity * line.unit_price_cents for line in lines),
        "items": [
            {
                "position": position,
                "sku": line.sku,
                "quantity": line.quantity,
                "unitPriceCents": line.unit_price_cents,
            }
            for position, line in enumerate(lines, start=1)
        ],
    }


@worst_case(requests=1)
async def create_customer(store: Store, customer_id: str, name: str, email: str) -> Customer:
    item = customer_item(
        validation.ident(customer_id),
        validation.text(name, "name"),
        validation.email(email),
        now(),
    )
    await put_new(store, item, f"customer {customer_id!r} already exists")
    return Customer.from_item(item)


@worst_case(requests=TRANSACT_CALLS)
async def place_order(
    store: Store, customer_id: str, lines: Sequence[OrderLine], placed_at: datetime | None
) -> Order:
    validation.ident(customer_id, "customerId")
    validate_lines(lines)
    current = now()
    placed = current if placed_at is None else validation.past_time(placed_at, "placedAt", current)
    item = order_item(new_ksuid(placed), customer_id, lines, placed, current)
    await put_under(
        store,
        order_keys.customer_key(customer_id),
        f"customer {customer_id!r} does not exist",
        item,
        retry="the order could not be placed; try again",
    )
    return Order.from_item(item)


@worst_case(requests=2, items=1)
async def set_order_status(
    store: Store, items: ItemLoader, order_id: str, status: OrderStatus
) -> Order:
    """Move an order to `status` if the move is allowed and nobody moved it meanwhile.

    The decision rests on a strongly consistent read, not on the request's loader cache,
    so moves made one after another (even within one request) see each other. A move whose
    answer was lost is resent by botocore and refused by its own condition; the order that
    comes back with the refusal carries this call's token, so the move is known to be done.
    """
    validation.ident(order_id)
    key = validation.key_or_none(order_keys.order_key, order_id)
    order = None if key is None else await store.get(key, consistent=True)
    if key is None or order is None:
        raise NotFound(f"order {order_id!r} does not exist")
    current = OrderStatus(order["status"])
    if status not in TRANSITIONS.get(current, frozenset()):
        raise BadUserInput(f"status: an order cannot move from {current} to {status}")
    placed_at = parse_timestamp(order["placedAt"])
    attributes = order_keys.order_index_attributes(order["customerId"], order_id, status, placed_at)
    token = new_token()
    request = update_request(
        store.table,
        key,
        set_values={
            "status": status,
            "updatedAt": format_timestamp(now()),
            GSI2.sort_key: attributes[GSI2.sort_key],
        },
        # Leaving PLACED drops the order out of the sparse open-orders index.
        remove=[a for a in order_keys.OPEN_ORDER_ATTRIBUTES if a not in attributes],
        condition="#status = :current",
        condition_values={":current": current},
        token=token,
    )
    try:
        updated = await store.update(request)
    except ConditionFailed as exc:
        done = exc.written_by(token)
        if done is None:
            raise Conflict(f"order {order_id!r} was changed by another request; reload it") from exc
        updated = done
    items.refresh(key, updated)
    return Order.from_item(updated)


async def load_order(items: ItemLoader, order_id: str) -> Order | None:
    """The order, or None when there is none."""
    key = validation.key_or_none(order_keys.order_key, validation.ident(order_id))
    item = None if key is None else await items.load_item(key)
    return None if item is None else Order.from_item(item)


async def load_customer(items: ItemLoader, customer_id: str) -> Customer | None:
    item = await items.load_item(order_keys.customer_key(validation.ident(customer_id)))
    return None if item is None else Customer.from_item(item)


async def customer_orders_page(
    pages: Paginator,
    customer_id: str,
    args: PageArgs,
    *,
    status: OrderStatus | None,
    placed: TimeRange | None,
    ascending: bool,
) -> Page[Order]:
    """A page of a customer's orders: by time (GSI1) or by status then time (GSI2)."""
    condition = order_keys.customer_orders(customer_id, status, placed)
    binding = Binding(
        "Customer.orders",
        customer_id,
        {
            "status": status,
            "placed": None if placed is None else [placed.start, placed.end],
            "ascending": ascending,
        },
    )
    page = await pages.page(condition, binding, args, forward=ascending)
    return page.map(Order.from_item)


async def open_orders_page(pages: Paginator, args: PageArgs) -> Page[Order]:
    """PLACED orders of every customer, oldest first, from the sparse index."""
    page = await pages.page(order_keys.open_orders(), Binding("Query.openOrders", "", {}), args)
    return page.map(Order.from_item)
