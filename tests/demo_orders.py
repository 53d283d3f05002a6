"""The demo's customers and orders, derived from their declarations
(`demo/model/orders.py`), called as the tests call each area's access patterns; and their
keys, as the key tests look at them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from data import entities, entity_lists
from data.callers import OPEN, Caller
from data.writes import entities as entity_writes
from demo.model import MODEL
from demo.model.orders import CUSTOMER, ORDER, OrderStatus
from keys.conditions import KeyCondition
from keys.table import GSI1, GSI2, GSI3, TABLE
from model import Lines, ListOf, Update
from store.client import Store
from store.cost import worst_case
from store.loaders import ItemLoader
from store.pagination import PageArgs
from store.requests import Item
from tests.records import Fields, RecordOf
from tests.writes import moved

[ORDERS, OPEN_ORDERS_LIST] = [p for p in MODEL.of_kind(ListOf) if p.entity is ORDER]
[SET_STATUS] = [p for p in MODEL.of_kind(Update) if p.entity is ORDER]
_LINES = ORDER.attributes["items"]
assert isinstance(_LINES, Lines)
MAX_LINES = _LINES.most
SKU_MAX = 64
ORDER_BYTES = entities.most_bytes(ORDER)


@dataclass(frozen=True)
class OrderLine:
    sku: str
    quantity: int
    unit_price_cents: int

    def given(self) -> dict[str, Any]:
        return {"sku": self.sku, "quantity": self.quantity, "unitPriceCents": self.unit_price_cents}


def _given(
    customer_id: str, lines: Sequence[OrderLine], placed_at: datetime | None
) -> dict[str, Any]:
    return {
        "customerId": customer_id,
        "items": [line.given() for line in lines],
        "placedAt": placed_at,
    }


Customer = RecordOf(CUSTOMER)
Order = RecordOf(ORDER)


@worst_case(requests=entity_writes.create_calls(MODEL, CUSTOMER))
async def create_customer(
    store: Store, customer_id: str, name: str, email: str, *, caller: Caller = OPEN
) -> Fields:
    given = {"id": customer_id, "name": name, "email": email}
    return Customer.of(await entity_writes.create(store, MODEL, CUSTOMER, given, caller=caller))


@worst_case(requests=entity_writes.create_calls(MODEL, ORDER))
async def place_order(
    store: Store, customer_id: str, lines: Sequence[OrderLine], placed_at: datetime | None
) -> Fields:
    given = _given(customer_id, lines, placed_at)
    return Order.of(
        await entity_writes.create(store, MODEL, ORDER, given, done="placed", caller=OPEN)
    )


_MOVE, _MOVE_ITEMS = entity_writes.update_calls(ORDER, SET_STATUS.changes)


@worst_case(requests=_MOVE, items=_MOVE_ITEMS)
async def set_order_status(
    store: Store, items: ItemLoader, order_id: str, status: OrderStatus
) -> Fields:
    arguments, changes = {"id": order_id}, {"status": status}
    return Order.of(
        await moved(store, items, SET_STATUS, arguments, changes, caller=OPEN, writer_only=False)
    )


def validate_lines(lines: Sequence[OrderLine]) -> None:
    """BAD_USER_INPUT for lines an order cannot hold (nothing is written)."""
    order_item("2Zb1s7wWQf3ArXcCjpM3zLq1mTu", "c", lines, None, None)


def order_item(
    order_id: str,
    customer_id: str,
    lines: Sequence[OrderLine],
    placed_at: datetime | None,
    updated_at: datetime | None,
) -> Item:
    """The item of an order as a create writes it, with this id and these times."""
    at = placed_at or datetime.now().astimezone()
    values, _, _ = entity_writes.new_items(
        ORDER, _given(customer_id, lines, None), caller=OPEN, created=at, current=at
    )
    values = {**values, "id": order_id, "updatedAt": updated_at or at}
    return {**ORDER.item_keys(values), "type": ORDER.label, **entities.stored(ORDER, values)}


async def load_order(items: ItemLoader, order_id: str) -> Fields | None:
    found = await entities.load(items, ORDER, {"id": order_id})
    return None if found is None else Order.of(found)


# ---- keys, as the key tests look at them -------------------------------------------------

CUSTOMER_TEMPLATE = CUSTOMER.templates[TABLE.partition_key]
ORDER_TEMPLATE = ORDER.templates[TABLE.partition_key]
ORDER_BY_TIME = ORDER.templates[GSI1.sort_key]
ORDER_BY_STATUS = ORDER.templates[GSI2.sort_key]
OPEN_ORDERS = ORDER.templates[GSI3.partition_key]
ORDER_STATUSES = frozenset(OrderStatus)
OPEN_STATUS = OrderStatus.PLACED
OPEN_ORDER_ATTRIBUTES = GSI3.attributes


@dataclass(frozen=True)
class TimeRange:
    """Both ends inclusive, checked as `Customer.orders(placed:)` checks them."""

    start: datetime | None
    end: datetime | None

    def __post_init__(self) -> None:
        entity_lists.narrowed(ORDERS, {}, (self.start, self.end))


def customer_key(customer_id: str) -> dict[str, str]:
    return CUSTOMER.primary_key({"id": customer_id})


def order_key(order_id: str) -> dict[str, str]:
    return ORDER.primary_key({"id": order_id})


def order_index_attributes(
    customer_id: str, order_id: str, status: str, placed_at: datetime
) -> dict[str, str]:
    values = {"id": order_id, "customerId": customer_id, "status": status, "placedAt": placed_at}
    keys = ORDER.item_keys(values)
    return {name: value for name, value in keys.items() if name not in TABLE.attributes}


def customer_orders(
    customer_id: str, status: str | None = None, placed: TimeRange | None = None
) -> KeyCondition:
    span = None if placed is None else (placed.start, placed.end)
    narrowing = entity_lists.narrowed(ORDERS, {"status": status}, span)
    read = entity_lists.list_read(ORDERS, CUSTOMER, {"id": customer_id}, _PAGE, narrowing)
    return read.condition


def open_orders() -> KeyCondition:
    return entity_lists.list_read(OPEN_ORDERS_LIST, None, {}, _PAGE).condition


_PAGE = PageArgs(1, False, None)


def order_changes(
    customer_id: str, status: OrderStatus | None
) -> tuple[tuple[str, str], Callable[[Any], bool]]:
    """The topic `orderChanges` follows for these arguments, and which states match."""
    narrowed = entity_lists.narrowed(ORDERS, {"status": status})
    return ("orderChanges", customer_id), lambda state: narrowed.contains(ORDERS, state)
