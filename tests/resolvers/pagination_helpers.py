"""Helpers of the orders and Relay pagination tests: customers, orders, connection reads."""

from __future__ import annotations

from typing import Any

from tests.client import Api, Result
from tests.documents import CREATE_CUSTOMER, CUSTOMER_ORDERS, OPEN_ORDERS, PLACE_ORDER
from tests.resolvers.connections import Connection, check_shape, given


async def customer(api: Api, customer_id: str = "alice") -> None:
    new = {"id": customer_id, "name": "Alice", "email": f"{customer_id}@x.io"}
    (await api(CREATE_CUSTOMER, input=new)).ok()


async def order(api: Api, customer_id: str, placed_at: str, *lines: tuple[str, int, int]) -> str:
    """An order of `lines` (sku, quantity, unit price), by default one line of 100 cents."""
    items = [{"sku": s, "quantity": q, "unitPriceCents": p} for s, q, p in lines or [("A", 1, 100)]]
    result = await api(
        PLACE_ORDER, input={"customerId": customer_id, "items": items, "placedAt": placed_at}
    )
    order_id: str = result.ok()["placeOrder"]["id"]
    return order_id


async def seven_orders(api: Api, customer_id: str = "alice") -> list[str]:
    """A customer with 7 orders; their ids oldest first."""
    await customer(api, customer_id)
    return [await order(api, customer_id, f"2021-03-0{day}T12:00:00Z") for day in range(1, 8)]


async def orders_result(api: Api, customer_id: str = "alice", **args: Any) -> Result:
    return await api(CUSTOMER_ORDERS, id=customer_id, **given(args))


async def orders(api: Api, customer_id: str = "alice", **args: Any) -> Connection:
    connection: Connection = (await orders_result(api, customer_id, **args)).ok()["customer"][
        "orders"
    ]
    check_shape(connection)
    return connection


async def open_orders(api: Api, **args: Any) -> Connection:
    connection: Connection = (await api(OPEN_ORDERS, **given(args))).ok()["openOrders"]
    check_shape(connection)
    return connection
