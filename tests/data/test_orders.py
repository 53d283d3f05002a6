"""Customers and orders (`demo/model/orders.py`) called straight against DynamoDB Local: the
items written, the lists they join and leave, and what each write spends."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest

from demo.model.orders import OrderStatus
from errors.vocabulary import BadUserInput
from store.client import Store
from store.cost import Cost
from store.loaders import ItemLoader
from tests import demo_orders as data
from tests.data.patterns_helpers import stored_kib, within_declared
from tests.demo_orders import OrderLine
from tests.table import scan_all

PLACED_AT = datetime(2024, 5, 1, 12, tzinfo=UTC)
LINES = [OrderLine("BOOK", 2, 1500), OrderLine("PEN", 3, 0)]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([], "items (count): 0 is outside 1 to 50"),
        (
            [OrderLine("A", 1, 1), OrderLine("B", 0, 1)],
            "items[2].quantity: 0 is outside 1 to 1,000",
        ),
        ([OrderLine(" ", 1, 1)], "items[1].sku: must not be empty"),
        ([OrderLine("A", 1_000, 10**6)] * 3, "items: the order total 3,000,000,000 cents is over"),
    ],
)
def test_lines_are_refused_naming_the_one_at_fault(lines: list[OrderLine], message: str) -> None:
    with pytest.raises(BadUserInput, match=f"^{re.escape(message)}"):
        data.validate_lines(lines)


async def orders_of(client: Any, table: str) -> list[dict[str, Any]]:
    return [i for i in await scan_all(client, table) if i["type"] == "ORDER"]


async def test_an_order_joins_its_lists_and_a_move_takes_it_out_of_the_open_ones(
    store: Store, client: Any
) -> None:
    await data.create_customer(store, "alice", "Alice", "a@x.io")
    order, spent = await within_declared(store, data.place_order, "alice", LINES, PLACED_AT)
    assert spent.requests == 1
    [stored] = await orders_of(client, store.table)
    assert data.Order.from_item(stored) == order
    assert (stored["totalCents"], stored["items"][1]) == (
        3000,
        {"position": 2, "sku": "PEN", "quantity": 3, "unitPriceCents": 0},
    )
    by_time = f"ORDER#2024-05-01T12:00:00.000Z#{order.id}"
    assert {k: v for k, v in stored.items() if k.startswith("GSI")} == {
        "GSI1PK": "CUSTOMER#alice",
        "GSI1SK": by_time,
        "GSI2PK": "CUSTOMER#alice",
        "GSI2SK": f"ORDER#PLACED#2024-05-01T12:00:00.000Z#{order.id}",
        "GSI3PK": "ORDERS#PLACED",
        "GSI3SK": by_time,
    }

    items = ItemLoader(store)
    moved, spent = await within_declared(
        store, data.set_order_status, items, order.id, OrderStatus.SHIPPED
    )
    assert (spent.requests, moved.status) == (2, OrderStatus.SHIPPED)
    [stored] = await orders_of(client, store.table)
    assert data.Order.from_item(stored) == moved
    assert "GSI3PK" not in stored and "GSI3SK" not in stored  # out of openOrders
    assert (stored["GSI1SK"], stored["GSI2SK"]) == (by_time, by_time.replace("#", "#SHIPPED#", 1))
    # The request's loader holds the order as moved: reading it again makes no call.
    store.cost = Cost()
    assert await data.load_order(items, order.id) == moved
    assert store.cost.requests == 0


async def test_the_largest_order_fits_the_size_its_reads_are_costed_for(store: Store) -> None:
    widest = "\U0010ffff" * data.SKU_MAX  # four bytes in UTF-8 each
    lines = [OrderLine(widest, 1, 1)] * data.MAX_LINES
    item = data.order_item("2Zb1s7wWQf3ArXcCjpM3zLq1mTu", "c" * 64, lines, PLACED_AT, PLACED_AT)
    # The widest numbers each field allows (their total refused, their size still bounded).
    for line in item["items"]:
        line.update(quantity=1_000, unitPriceCents=10**9)
    item["totalCents"] = 2**31 - 1
    assert await stored_kib(store, item) * 1024 <= data.ORDER_BYTES
