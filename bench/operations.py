"""The six operations the speed benchmark times, and the data they read (seeded through
the API).

Each is one access pattern of the seeds, asked as a client would: a page of a customer's
orders without and with their lines, a product's English comments rated 4 or 5, a
repository's issues, the heatmap of a city and the markers of a street-sized view. The
last two leave their tuning arguments to the gateway, as most clients will: the heatmap's
precision is the default one under the default limits, the markers' limit the default.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import httpx

from bench.harness import graphql

CUSTOMER_ID = "bench"
PRODUCT_ID = "bench-product"
REPO = {"owner": "bench", "name": "speed"}
# Around central London: the city view, and a street view in the middle of it.
CENTRE = (51.507, -0.128)
CITY_DEGREES = 0.1
STREET_DEGREES = 0.05


@dataclass(frozen=True)
class Operation:
    name: str
    label: str
    query: str
    # The fewest items the gateway must read for it (extensions.cost): a full page.
    items: int

    @property
    def body(self) -> bytes:
        return json.dumps({"query": self.query}).encode()


def _viewport(degrees: float) -> str:
    lat, lon = CENTRE
    half = degrees / 2
    return (
        f"{{north: {lat + half:.4f}, south: {lat - half:.4f},"
        f" east: {lon + half:.4f}, west: {lon - half:.4f}}}"
    )


_ORDER_FIELDS = "id status placedAt totalCents"
_PAGE_INFO = "pageInfo { hasNextPage endCursor }"

OPERATIONS = (
    Operation(
        "orders_page",
        "orders page (20)",
        f'query {{ customer(id: "{CUSTOMER_ID}") {{ name orders(first: 20) {{ edges {{ cursor'
        f" node {{ {_ORDER_FIELDS} }} }} {_PAGE_INFO} }} }} }}",
        22,
    ),
    Operation(
        "orders_items",
        "orders + items",
        f'query {{ customer(id: "{CUSTOMER_ID}") {{ name orders(first: 20) {{ edges {{ cursor'
        f" node {{ {_ORDER_FIELDS} items {{ sku quantity unitPriceCents }} }} }} {_PAGE_INFO}"
        " } } }",
        22,
    ),
    Operation(
        "comments",
        "comments en/[4,5] (20)",
        f'query {{ product(id: "{PRODUCT_ID}") {{ name comments(language: "en",'
        " ratings: [4, 5], first: 20) { edges { cursor node { id language rating body"
        f" createdAt author }} }} {_PAGE_INFO} }} }} }}",
        22,
    ),
    Operation(
        "repo_issues",
        "repo issues (20)",
        f'query {{ repo(owner: "{REPO["owner"]}", name: "{REPO["name"]}") {{ description'
        " starCount issues(first: 20) { edges { cursor node { number title state createdAt"
        f" author }} }} {_PAGE_INFO} }} }} }}",
        22,
    ),
    Operation(
        "heatmap",
        "heatmap city",
        f"query {{ heatmap(viewport: {_viewport(CITY_DEGREES)}) {{ precision"
        " cells { geohash count } } }",
        100,
    ),
    Operation(
        "markers",
        "markers 0.05°",
        f"query {{ markers(viewport: {_viewport(STREET_DEGREES)}) {{"
        " markers { id lat lon geohash label createdAt createdBy } truncated } }",
        40,
    ),
)

# A page of 20 orders with their lines (demand control times it too).
ORDERS_PAGE = next(o for o in OPERATIONS if o.name == "orders_items")

_CREATE = "mutation ($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }"
_PLACE = "mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id } }"
_POST = "mutation ($input: PostCommentInput!) { postComment(input: $input) { id } }"
_PRODUCT = "mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }"
_REPO = "mutation ($input: CreateRepoInput!) { createRepo(input: $input) { name } }"
_ISSUE = "mutation ($input: OpenIssueInput!) { openIssue(input: $input) { number } }"
_MARKER = "mutation ($input: AddMarkerInput!) { addMarker(input: $input) { id } }"
_LANGUAGES = ("en", "en", "en", "fr", "de")
_FIRST_ORDER = datetime(2024, 1, 1, 9, 30, tzinfo=UTC)
_FIRST_COMMENT = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


async def together(calls: list[Callable[[], Awaitable[Any]]], width: int = 8) -> None:
    """Run `calls` with at most `width` in flight (independent writes)."""
    gate = asyncio.Semaphore(width)

    async def one(call: Callable[[], Awaitable[Any]]) -> None:
        async with gate:
            await call()

    await asyncio.gather(*(one(c) for c in calls))


async def seed_orders(http: httpx.AsyncClient, url: str, orders: int) -> None:
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


async def seed(http: httpx.AsyncClient, url: str, rng: random.Random) -> dict[str, int]:
    """What the six operations read: every write through the gateway's mutations."""
    await seed_orders(http, url, 60)
    await graphql(http, url, _PRODUCT, input={"id": PRODUCT_ID, "name": "Bench lamp"})
    comments = [
        {
            "productId": PRODUCT_ID,
            "language": _LANGUAGES[n % len(_LANGUAGES)],
            # Languages change from one comment to the next, ratings every five: a third
            # of the English comments are rated 4 or 5.
            "rating": 5 - (n // len(_LANGUAGES)) % 5,
            "body": f"Comment {n}: " + "works as described. " * (1 + n % 6),
            "createdAt": (_FIRST_COMMENT + timedelta(hours=n)).isoformat(),
        }
        for n in range(150)
    ]
    await together([partial(graphql, http, url, _POST, input=c) for c in comments])
    await graphql(http, url, _REPO, input={**REPO, "description": "The benchmark's repository"})
    for n in range(40):  # one after another: each takes the next issue number
        await graphql(http, url, _ISSUE, input={**REPO, "title": f"Issue {n}: slow first page"})
    lat, lon = CENTRE
    spread = CITY_DEGREES * 0.6
    markers = [
        {
            "lat": round(lat + rng.uniform(-spread, spread), 6),
            "lon": round(lon + rng.uniform(-spread, spread), 6),
            "label": f"Bench marker {n}",
        }
        for n in range(300)
    ]
    await together([partial(graphql, http, url, _MARKER, input=m) for m in markers])
    return {"orders": 60, "comments": len(comments), "issues": 40, "markers": len(markers)}
