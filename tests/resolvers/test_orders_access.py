"""Who may read and change customers, orders and products (docs/identity.md): rules that
depend only on the token, decided before any DynamoDB call."""

from __future__ import annotations

from typing import Any

import pytest

from tests.client import Api, Result
from tests.documents import (
    CREATE_CUSTOMER,
    CREATE_PRODUCT,
    OPEN_ORDERS,
    PLACE_ORDER,
    SET_ORDER_STATUS,
)
from tests.identity import SECURED, token
from tests.table import scan_all

CUSTOMER = "query ($id: ID!) { customer(id: $id) { id orders { edges { node { id } } } } }"
ORDER = "query ($id: ID!) { order(id: $id) { id customer { id } } }"
PRODUCT = 'query { product(id: "p1") { id comments { edges { node { id } } } } }'


pytestmark = pytest.mark.overrides(**SECURED)


def refused(result: Result, code: str) -> None:
    assert result.codes == [code], result.body
    assert result.data is None or set(result.data.values()) == {None}
    assert result.cost["requests"] == 0  # decided from the token alone


async def place(api: Api, customer_id: str) -> str:
    items = [{"sku": "A", "quantity": 1, "unitPriceCents": 100}]
    placed = await api.signed_in(token(customer_id))(
        PLACE_ORDER, input={"customerId": customer_id, "items": items}
    )
    order_id: str = placed.ok()["placeOrder"]["id"]
    return order_id


async def create_customer(api: Api, customer_id: str) -> None:
    created = await api.signed_in(token(customer_id))(
        CREATE_CUSTOMER, input={"id": customer_id, "name": "N", "email": f"{customer_id}@x.io"}
    )
    created.ok()


async def test_customers_are_created_and_read_by_themselves_only(
    api: Api, client: Any, table: str
) -> None:
    new = {"id": "alice", "name": "Alice", "email": "a@x.io"}
    refused(await api(CREATE_CUSTOMER, input=new), "UNAUTHENTICATED")
    refused(await api.signed_in(token("bob"))(CREATE_CUSTOMER, input=new), "FORBIDDEN")
    # Customer ids are ids, not usernames: they compare exactly.
    refused(await api.signed_in(token("Alice"))(CREATE_CUSTOMER, input=new), "FORBIDDEN")
    assert await scan_all(client, table) == []
    await create_customer(api, "alice")
    await create_customer(api, "carol")
    alice = api.signed_in(token("alice"))
    assert (await alice(CUSTOMER, id="alice")).ok()["customer"]["id"] == "alice"
    refused(await alice(CUSTOMER, id="carol"), "FORBIDDEN")
    refused(await api(CUSTOMER, id="alice"), "UNAUTHENTICATED")
    admin = api.signed_in(token("root", admin=True))
    assert (await admin(CUSTOMER, id="carol")).ok()["customer"]["id"] == "carol"
    assert (await admin(CREATE_CUSTOMER, input={**new, "id": "dave"})).ok()


async def test_orders_are_placed_and_read_by_their_customer_only(
    api: Api, client: Any, table: str
) -> None:
    await create_customer(api, "alice")
    await create_customer(api, "bob")
    items = [{"sku": "A", "quantity": 1, "unitPriceCents": 100}]
    stored = len(await scan_all(client, table))
    as_bob = api.signed_in(token("bob"))
    refused(await as_bob(PLACE_ORDER, input={"customerId": "alice", "items": items}), "FORBIDDEN")
    refused(
        await api(PLACE_ORDER, input={"customerId": "alice", "items": items}), "UNAUTHENTICATED"
    )
    assert len(await scan_all(client, table)) == stored
    order_id = await place(api, "alice")
    mine = await api.signed_in(token("alice"))(ORDER, id=order_id)
    assert mine.ok()["order"] == {"id": order_id, "customer": {"id": "alice"}}
    # Whose order it is is stored data: read, then refused.
    theirs = await as_bob(ORDER, id=order_id)
    assert theirs.codes == ["FORBIDDEN"] and theirs.data == {"order": None}
    refused(await api(ORDER, id=order_id), "UNAUTHENTICATED")
    assert (await as_bob(ORDER, id="2NxhQnGSJWKxVXzCZd0VAaZ40mX")).ok() == {"order": None}
    admin = await api.signed_in(token("root", admin=True))(ORDER, id=order_id)
    assert admin.ok()["order"]["id"] == order_id


async def test_admins_alone_list_open_orders_move_them_and_create_products(
    api: Api, client: Any, table: str
) -> None:
    await create_customer(api, "alice")
    order_id = await place(api, "alice")
    stored = await scan_all(client, table)
    alice = api.signed_in(token("alice"))
    calls: list[tuple[str, dict[str, Any]]] = [
        (OPEN_ORDERS, {}),
        (SET_ORDER_STATUS, {"id": order_id, "status": "SHIPPED"}),
        (CREATE_PRODUCT, {"input": {"id": "p1", "name": "Widget"}}),
    ]
    for document, variables in calls:
        refused(await alice(document, **variables), "FORBIDDEN")
        refused(await api(document, **variables), "UNAUTHENTICATED")
    assert await scan_all(client, table) == stored
    admin = api.signed_in(token("root", admin=True))
    listed = (await admin(OPEN_ORDERS)).ok()["openOrders"]["edges"]
    assert [e["node"]["id"] for e in listed] == [order_id]
    moved = await admin(SET_ORDER_STATUS, id=order_id, status="SHIPPED")
    assert moved.ok()["setOrderStatus"]["status"] == "SHIPPED"
    assert (await admin(CREATE_PRODUCT, input={"id": "p1", "name": "Widget"})).ok()
    # Products and their comments are anyone's to read.
    assert (await api(PRODUCT)).ok()["product"]["id"] == "p1"


async def test_rules_from_the_token_add_no_dynamodb_request(api: Api, opened: Api) -> None:
    await create_customer(api, "alice")
    order_id = await place(api, "alice")
    alice = api.signed_in(token("alice"))
    admin = api.signed_in(token("root", admin=True))
    secured = [
        (await alice(CUSTOMER, id="alice")).cost,
        (await alice(ORDER, id=order_id)).cost,
        (await admin(OPEN_ORDERS)).cost,
    ]
    open_mode = [
        (await opened(CUSTOMER, id="alice")).cost,
        (await opened(ORDER, id=order_id)).cost,
        (await opened(OPEN_ORDERS)).cost,
    ]
    assert [c["requests"] for c in secured] == [c["requests"] for c in open_mode]
    assert [c["readCapacityUnits"] for c in secured] == [c["readCapacityUnits"] for c in open_mode]
