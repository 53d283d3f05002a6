"""Helpers for the Relay pagination tests: documents, test data and connection reads."""

from __future__ import annotations

from typing import Any

from tests.client import Api, Result

CREATE = """mutation ($input: CreateCustomerInput!) {
  createCustomer(input: $input) { id } }"""
PLACE = """mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id } }"""
CONNECTION = """edges { cursor node { id placedAt } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }"""
ORDERS = f"""query ($id: ID!, $status: OrderStatus, $placed: DateTimeRange,
                  $direction: SortDirection, $first: Int, $after: String,
                  $last: Int, $before: String) {{
  customer(id: $id) {{ orders(status: $status, placed: $placed, direction: $direction,
                             first: $first, after: $after, last: $last, before: $before) {{
    {CONNECTION} }} }} }}"""
OPEN_ORDERS = f"""query ($first: Int, $after: String, $last: Int, $before: String) {{
  openOrders(first: $first, after: $after, last: $last, before: $before) {{ {CONNECTION} }} }}"""

Connection = dict[str, Any]


async def customer(api: Api, customer_id: str = "alice") -> None:
    (await api(CREATE, input={"id": customer_id, "name": "A", "email": f"{customer_id}@x.io"})).ok()


async def order(api: Api, customer_id: str, placed_at: str) -> str:
    items = [{"sku": "A", "quantity": 1, "unitPriceCents": 100}]
    result = await api(
        PLACE, input={"customerId": customer_id, "items": items, "placedAt": placed_at}
    )
    order_id: str = result.ok()["placeOrder"]["id"]
    return order_id


async def seven_orders(api: Api, customer_id: str = "alice") -> list[str]:
    """A customer with 7 orders; their ids oldest first."""
    await customer(api, customer_id)
    return [await order(api, customer_id, f"2021-03-0{day}T12:00:00Z") for day in range(1, 8)]


def given(variables: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in variables.items() if v is not None}


async def orders_result(api: Api, customer_id: str = "alice", **args: Any) -> Result:
    return await api(ORDERS, id=customer_id, **given(args))


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


def check_shape(connection: Connection) -> None:
    """Every edge has its own cursor; start and end cursors are the first and last edge's."""
    cursors = [e["cursor"] for e in connection["edges"]]
    assert len(set(cursors)) == len(cursors)
    info = connection["pageInfo"]
    assert info["startCursor"] == (cursors[0] if cursors else None)
    assert info["endCursor"] == (cursors[-1] if cursors else None)
