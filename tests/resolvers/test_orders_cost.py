"""Cost targets of the orders access patterns, read from `extensions.cost`.

Counts are deterministic, so they are asserted; speed lives in `make bench`.
"""

from __future__ import annotations

import asyncio

from tests.client import Api
from tests.documents import PLACE_ORDER, SET_ORDER_STATUS
from tests.resolvers.pagination_helpers import customer

ITEMS = [
    {"sku": "A", "quantity": 1, "unitPriceCents": 5},
    {"sku": "B", "quantity": 2, "unitPriceCents": 7},
]


async def place(api: Api, customer: str, count: int, *moves: str, day: int = 1) -> list[str]:
    async def one(n: int) -> str:
        placed = f"2021-{1 + n % 12:02d}-{day:02d}T{n % 24:02d}:{n % 60:02d}:00Z"
        new = {"customerId": customer, "placedAt": placed, "items": ITEMS}
        order_id: str = (await api(PLACE_ORDER, input=new)).ok()["placeOrder"]["id"]
        for status in moves:
            (await api(SET_ORDER_STATUS, id=order_id, status=status)).ok()
        return order_id

    return list(await asyncio.gather(*(one(n) for n in range(count))))


async def test_customer_with_orders_and_items_is_at_most_three_requests(api: Api) -> None:
    await customer(api)
    await place(api, "alice", 45)
    result = await api(
        '{ customer(id: "alice") { name orders(first: 20) '
        "{ edges { node { id status items { sku } } } } } }"
    )
    assert len(result.ok()["customer"]["orders"]["edges"]) == 20
    assert result.cost["requests"] <= 3


async def test_status_and_range_is_one_query_reading_only_the_page(api: Api) -> None:
    await customer(api)
    await place(api, "alice", 40, "SHIPPED")
    await place(api, "alice", 40, "CANCELLED", day=2)
    await place(api, "alice", 20, day=3)
    result = await api(
        """{ customer(id: "alice") { orders(status: SHIPPED,
              placed: {from: "2021-01-01", to: "2021-12-31T23:59:59Z"}, first: 20) {
              edges { node { status } } pageInfo { hasNextPage } } } }"""
    )
    orders = result.ok()["customer"]["orders"]
    assert {e["node"]["status"] for e in orders["edges"]} == {"SHIPPED"}
    assert len(orders["edges"]) == 20 and orders["pageInfo"]["hasNextPage"]
    # One BatchGetItem for the customer (1 item) and one Query for the orders.
    assert result.cost["requests"] == 2
    assert result.cost["itemsScanned"] <= 1 + 21
    # No FilterExpression: everything read was returned.
    assert result.cost["itemsScanned"] == result.cost["itemsReturned"]


async def test_open_orders_reads_one_page_however_many_orders_moved_on(api: Api) -> None:
    await customer(api)
    await place(api, "alice", 100, "SHIPPED", "DELIVERED")
    open_ids = await place(api, "alice", 30, day=9)
    result = await api(
        "{ openOrders(first: 20) { edges { node { id } } pageInfo { hasNextPage } } }"
    )
    page = result.ok()["openOrders"]
    assert {e["node"]["id"] for e in page["edges"]} <= set(open_ids)
    assert len(page["edges"]) == 20 and page["pageInfo"]["hasNextPage"]
    assert result.cost["requests"] == 1
    assert result.cost["itemsScanned"] <= 21
