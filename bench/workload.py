"""What the benchmark asks for, and the data it asks it of (seeded through the API)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

CUSTOMER_ID = "bench"
PAGE_QUERY = (
    'query { customer(id: "bench") { name orders(first: 20) { edges { cursor node { id status'
    " placedAt totalCents items { sku quantity unitPriceCents } } } pageInfo { hasNextPage"
    " endCursor } } } }"
)
PAGE_BODY = json.dumps({"query": PAGE_QUERY}).encode()

_CREATE = """mutation ($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }"""
_PLACE = """mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id } }"""
_FIRST_ORDER = datetime(2024, 1, 1, 9, 30, tzinfo=UTC)


async def graphql(http: httpx.AsyncClient, url: str, query: str, **variables: Any) -> Any:
    """The response body; RuntimeError on an HTTP or GraphQL error."""
    response = await http.post(url, json={"query": query, "variables": variables})
    body: Any = response.json()
    if response.status_code != 200 or body.get("errors"):
        raise RuntimeError(f"{url} answered {response.status_code}: {body}")
    return body


async def seed(http: httpx.AsyncClient, url: str, orders: int) -> None:
    """Customer `bench` with `orders` orders of 1 to 3 lines, one a day, via the mutations."""
    customer = {"id": CUSTOMER_ID, "name": "Bench Customer", "email": "bench@example.com"}
    await graphql(http, url, _CREATE, input=customer)
    for n in range(orders):
        items = [
            {
                "sku": f"SKU-{(n * 7 + line) % 40:03d}",
                "quantity": 1 + line,
                "unitPriceCents": 250 * (n % 9 + 1),
            }
            for line in range(1 + n % 3)
        ]
        placed = (_FIRST_ORDER + timedelta(days=n, minutes=n)).isoformat()
        order = {"customerId": CUSTOMER_ID, "items": items, "placedAt": placed}
        await graphql(http, url, _PLACE, input=order)
