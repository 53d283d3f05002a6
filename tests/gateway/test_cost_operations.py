"""`extensions.cost.operations`: each DynamoDB operation a request made, by name, counted
as `requests` counts calls (a retried or paged call as often as it was sent), so that they
always add up to `requests`; a read the cache answers is no operation."""

from __future__ import annotations

import pytest

from tests.caching import CUSTOMER, ask, caching, customer_with_order, hot
from tests.client import Api, settings_for

NEW_CUSTOMER = 'mutation { createCustomer(input: {id: "c1", name: "Ada", email: "a@x.io"}) { id } }'
NEW_ORDER = (
    'mutation { placeOrder(input: {customerId: "c1",'
    ' items: [{sku: "s", quantity: 1, unitPriceCents: 5}]}) { id } }'
)
SHIPPED = "mutation ($id: ID!) { setOrderStatus(id: $id, status: SHIPPED) { status } }"
OPEN_ORDERS = "{ openOrders(first: 5) { edges { node { id } } } }"
LOOKUP_AND_LIST = '{ product(id: "p1") { name } openOrders(first: 5) { edges { node { id } } } }'


async def test_each_write_names_its_operation(api: Api) -> None:
    created = await api(NEW_CUSTOMER)
    assert created.ok() and created.cost["operations"] == {"PutItem": 1}
    # Under its customer: the order and the customer's check in one transaction.
    placed = await api(NEW_ORDER)
    assert placed.cost["operations"] == {"TransactWriteItems": 1}
    shipped = await api(SHIPPED, id=placed.ok()["placeOrder"]["id"])
    assert shipped.ok() == {"setOrderStatus": {"status": "SHIPPED"}}
    # The by-status key holds placedAt, which the update does not give: read first.
    assert shipped.cost["operations"] == {"GetItem": 1, "UpdateItem": 1}


async def test_reads_name_theirs(api: Api) -> None:
    await api(NEW_CUSTOMER)
    await api(NEW_ORDER)
    lookup = await api('{ customer(id: "c1") { name } }')
    assert lookup.ok() and lookup.cost["operations"] == {"BatchGetItem": 1}
    listed = await api(OPEN_ORDERS)
    assert len(listed.ok()["openOrders"]["edges"]) == 1
    assert listed.cost["operations"] == {"Query": 1}
    both = await api(LOOKUP_AND_LIST)
    assert both.ok()["product"] is None
    assert both.cost["operations"] == {"BatchGetItem": 1, "Query": 1}
    # A page narrowed by status does not begin at the customer: two reads.
    narrowed = await api(CUSTOMER, id="c1")
    assert narrowed.ok()["customer"]["name"] == "Ada"
    assert narrowed.cost["operations"] == {"BatchGetItem": 1, "Query": 1}
    assert narrowed.cost["requests"] == 2


async def test_a_request_that_reads_nothing_names_nothing(api: Api) -> None:
    result = await api("{ __typename }")
    assert result.cost["operations"] == {} and result.cost["requests"] == 0


@pytest.mark.streamed
async def test_a_read_the_cache_answers_is_no_operation(endpoint: str, table: str) -> None:
    async with caching(settings_for(endpoint, table)) as gateway:
        await customer_with_order(gateway)
        first = await ask(gateway, CUSTOMER, id="c1")
        assert sum(first.cost["operations"].values()) == first.cost["requests"] > 0
        again = await hot(gateway, CUSTOMER, id="c1")
        assert again.cost["operations"] == {} and again.cost["cachedRequests"] > 0
