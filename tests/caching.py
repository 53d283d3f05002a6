"""The read cache's tests' helpers (`tests/gateway/test_read_cache*.py`): a gateway with
the cache on, once it follows the stream; questions and their cost; the demo's writes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import httpx

from gateway.settings import Settings
from store.cache.reads import CachedReads
from tests.identity import token
from tests.live import Served, served
from tests.subscribing import until

CUSTOMER = (
    "query C($id: ID!) { customer(id: $id) { name"
    " orders(status: PLACED) { edges { node { id status } } } } }"
)
OPEN_ORDERS = "{ openOrders(first: 50) { edges { node { id status } } } }"


@dataclass
class Answer:
    data: Any
    errors: list[dict[str, Any]]
    cost: dict[str, Any]

    @property
    def cached(self) -> bool:
        """Answered wholly from the cache: no DynamoDB call, at least one cached read."""
        return self.cost["requests"] == 0 and self.cost["cachedRequests"] > 0


async def ask(gateway: Served, query: str, user: str | None = None, **variables: Any) -> Answer:
    headers = {} if user is None else {"Authorization": f"Bearer {token(user)}"}
    async with httpx.AsyncClient(timeout=30) as http:
        response = await http.post(
            f"{gateway.url}/graphql", json={"query": query, "variables": variables}, headers=headers
        )
    body = response.json()
    return Answer(body.get("data"), body.get("errors") or [], body["extensions"]["cost"])


async def hot(gateway: Served, query: str, user: str | None = None, **variables: Any) -> Answer:
    """The read once answered from the cache: the stream's records of the writes before it
    (which drop it) may come in after the first read."""
    deadline = time.monotonic() + 10
    while not (answer := await ask(gateway, query, user, **variables)).cached:
        assert time.monotonic() < deadline, answer.cost
        await asyncio.sleep(0.05)
    return answer


def cache_of(gateway: Served) -> CachedReads:
    cache = gateway.runtime.cache
    assert cache is not None
    return cache


@asynccontextmanager
async def caching(settings: Settings) -> AsyncIterator[Served]:
    """The gateway with the cache on, once the stream is followed."""
    async with served(replace(settings, cache=True)) as gateway:
        await until(cache_of(gateway).followed, within=20)
        yield gateway


async def rename_in_table(client: Any, table: str, name: str) -> None:
    """Customer c1 renamed straight in the table, as another service would write: the
    gateway hears of it from the stream only."""
    await client.update_item(
        TableName=table,
        Key={"PK": {"S": "CUSTOMER#c1"}, "SK": {"S": "CUSTOMER#c1"}},
        UpdateExpression="SET #n = :n",
        ExpressionAttributeNames={"#n": "name"},
        ExpressionAttributeValues={":n": {"S": name}},
    )


async def customer_with_order(gateway: Served, name: str = "c1") -> str:
    created = await ask(
        gateway,
        "mutation { createCustomer(input:"
        f' {{id: "{name}", name: "Ada", email: "a@x.io"}}) {{ id }} }}',
    )
    assert not created.errors, created.errors
    placed = await ask(
        gateway,
        f'mutation {{ placeOrder(input: {{customerId: "{name}",'
        ' items: [{sku: "s", quantity: 1, unitPriceCents: 5}]}) { id } }',
    )
    assert not placed.errors, placed.errors
    order: str = placed.data["placeOrder"]["id"]
    return order


ORDERS_OF_C1 = 'query { customer(id: "c1") { orders(first: 100) { edges { node { id } } } } }'


def order_ids(answer: Answer) -> set[str]:
    return {e["node"]["id"] for e in answer.data["customer"]["orders"]["edges"]}


NEW_CUSTOMER = 'mutation { createCustomer(input: {id: "c9", name: "Cy", email: "c@x.io"}) { id } }'
NEW_ORDER = (
    'mutation { placeOrder(input: {customerId: "c1",'
    ' items: [{sku: "t", quantity: 1, unitPriceCents: 5}]}) { id } }'
)
CUSTOMER_C9 = '{ customer(id: "c9") { name } }'
