"""The requests of the read cache's benchmark (`bench/cache.py`) and what it knows of
every write: what a read sent at a given time must show."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.raw_http import RawClient

if TYPE_CHECKING:
    from store.client import DynamoDBClient

READ = "query ($id: ID!) { customer(id: $id) { name orders(first: 5) { edges { node { id } } } } }"
CREATE = (
    'mutation ($id: ID!) { createCustomer(input: {id: $id, name: "v0", email: "b@x.io"}) { id } }'
)
PLACE = (
    "mutation ($id: ID!) { placeOrder(input: {customerId: $id,"
    ' items: [{sku: "A", quantity: 1, unitPriceCents: 5}]}) { id } }'
)
DEADLINE = 30.0  # seconds for a read to be answered from memory, or to show a write


@dataclass(frozen=True)
class Request:
    """One gateway request of the mix; perf_counter times."""

    kind: str  # "read" or "place"
    customer: str
    sent: float
    answered: float
    calls: int  # DynamoDB calls made
    cached: int  # calls answered from memory
    name: str = ""  # a read's
    orders: tuple[str, ...] = ()  # a read's, newest first; a placeOrder's new order

    @property
    def from_memory(self) -> bool:
        return self.calls == 0 and self.cached > 0


@dataclass(frozen=True)
class Placed:
    id: str
    sent: float
    answered: float


@dataclass
class History:
    """Every write to each customer and when it happened: what a read sent at a given
    time must show."""

    customers: list[str]
    names: dict[str, list[tuple[int, float]]] = field(default_factory=dict)  # version, end
    orders: dict[str, dict[str, Placed]] = field(default_factory=dict)

    def placed(self, request: Request) -> None:
        (order,) = request.orders
        self.orders[request.customer][order] = Placed(order, request.sent, request.answered)

    def stale(self, read: Request, window: float) -> bool:
        settled = [v for v, ended in self.names[read.customer] if ended < read.sent - window]
        if settled and int(read.name.removeprefix("v")) < max(settled):
            return True
        placed = self.orders[read.customer]
        answered = [o for o in placed.values() if o.answered < read.sent]
        if not read.orders:
            return bool(answered)
        newest = placed.get(read.orders[0])
        # Only an order placed wholly after the newest listed is surely newer: two placed
        # at once may be stamped in either order.
        return newest is not None and any(o.sent > newest.answered for o in answered)


def _cost(body: Any) -> tuple[int, int]:
    cost = body["extensions"]["cost"]
    return int(cost["requests"]), int(cost.get("cachedRequests", 0))


async def ask(http: RawClient, url: str, query: str, **variables: Any) -> Any:
    """The response body; RuntimeError on an HTTP or GraphQL error."""
    response = await http.post(url, json={"query": query, "variables": variables})
    body: Any = response.json()
    if response.status_code != 200 or body.get("errors"):
        raise RuntimeError(f"{url} answered {response.status_code}: {body}")
    return body


async def read(http: RawClient, url: str, customer: str) -> Request:
    sent = time.perf_counter()
    body = await ask(http, f"{url}/graphql", READ, id=customer)
    answered = time.perf_counter()
    found = body["data"]["customer"]
    orders = tuple(edge["node"]["id"] for edge in found["orders"]["edges"])
    return Request("read", customer, sent, answered, *_cost(body), found["name"], orders)


async def place(http: RawClient, url: str, customer: str) -> Request:
    sent = time.perf_counter()
    body = await ask(http, f"{url}/graphql", PLACE, id=customer)
    answered = time.perf_counter()
    order = (body["data"]["placeOrder"]["id"],)
    return Request("place", customer, sent, answered, *_cost(body), orders=order)


async def rename(
    client: DynamoDBClient, table: str, customer: str, history: History, lock: asyncio.Lock
) -> tuple[int, float]:
    """Another writer's change of the customer's name to its next version; the version
    and when the write ended."""
    key = f"CUSTOMER#{customer}"
    # One change of a customer at a time, so that versions reach the table in order.
    async with lock:
        version = history.names[customer][-1][0] + 1
        await client.update_item(
            TableName=table,
            Key={"PK": {"S": key}, "SK": {"S": key}},
            UpdateExpression="SET #n = :n",
            ExpressionAttributeNames={"#n": "name"},
            ExpressionAttributeValues={":n": {"S": f"v{version}"}},
        )
        ended = time.perf_counter()
        history.names[customer].append((version, ended))
    return version, ended


async def until_shown(
    http: RawClient, url: str, customer: str, shows: Callable[[Request], bool]
) -> float:
    """When the first answer came that `shows` accepts, reading every 5 ms."""
    deadline = time.monotonic() + DEADLINE
    while not shows(answer := await read(http, url, customer)):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url}: {customer}'s read did not show the write in {DEADLINE} s")
        await asyncio.sleep(0.005)
    return answer.answered


async def hot(http: RawClient, url: str, customer: str) -> None:
    """Until the read is answered wholly from memory: the cache answers only once the
    stream is followed, and a read is kept only once the changes before it have come."""
    await until_shown(http, url, customer, lambda read: read.from_memory)
