"""What `python -m bench peers` serves: its data, seeded through the gateway's mutations, the
six documents it times, and the check that the hand-written servers answer them (and a few
more) with the gateway's `data`.

The six are the access patterns of the speed benchmark asked the way a client that knows
only the hand-written servers' fields asks them: a page of a customer's orders without and
with their lines, a product's English comments rated 4 or 5, a repository's issues, the
heatmap of a city and the markers of a street-sized view.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import httpx

from bench.harness import graphql
from bench.operations import together


@dataclass(frozen=True)
class Document:
    name: str  # for --only
    label: str
    query: str

    @property
    def body(self) -> bytes:
        return json.dumps({"query": self.query}).encode()


DOCUMENTS = (
    Document(
        "orders_page",
        "orders page (20)",
        'query{ customer(id:"benchc"){ orders(first:20){ edges{ node{ id status placedAt'
        " totalCents } } pageInfo{ hasNextPage } } } }",
    ),
    Document(
        "orders_items",
        "orders + items",
        'query{ customer(id:"benchc"){ name orders(first:20){ edges{ node{ id items{ sku'
        " quantity } } } } } }",
    ),
    Document(
        "comments",
        "comments en/[4,5] (20)",
        'query{ product(id:"benchp"){ comments(language:"en", ratings:[4,5], first:20){ edges{'
        " node{ id rating body createdAt } } } } }",
    ),
    Document(
        "repo_issues",
        "repo issues (20)",
        'query{ repo(owner:"bench", name:"repo"){ description issues(first:20){ edges{ node{'
        " number title state } } } } }",
    ),
    Document(
        "heatmap",
        "heatmap city",
        "query{ heatmap(viewport:{south:51.5, north:51.8, west:-1.5, east:-1.1}){ precision"
        " cells{ geohash count } } }",
    ),
    Document(
        "markers",
        "markers 0.05°",
        "query{ markers(viewport:{south:51.6, north:51.65, west:-1.3, east:-1.25}, limit:500){"
        " markers{ id lat lon } } }",
    ),
)
NAMES = [d.name for d in DOCUMENTS]

# Checked, not timed: found and truncated markers, other precisions and filters, every
# field, fragments, missing ids.
_MARKERS = "markers(viewport:{south:51.5, north:51.8, west:-1.5, east:-1.2}"
_ORDER = "id status placedAt updatedAt totalCents items{ position sku quantity unitPriceCents }"
MORE: dict[str, tuple[str, dict[str, Any]]] = {
    "markers found": (
        f"query{{ {_MARKERS}, limit:500){{ markers{{ id lat lon geohash label createdAt }}"
        " truncated } }",
        {},
    ),
    "markers truncated": (
        f"query{{ {_MARKERS}, limit:5){{ markers{{ id lat lon }} truncated }} }}",
        {},
    ),
    "markers variables": (
        "query($v: Viewport!){ markers(viewport:$v){ markers{ id } truncated } }",
        {"v": {"south": 51.55, "north": 51.67, "west": -1.45, "east": -1.33}},
    ),
    "heatmap precision 5": (
        "query{ heatmap(viewport:{south:51.5, north:51.8, west:-1.5, east:-1.1}, precision:5){"
        " precision cells{ geohash count } } }",
        {},
    ),
    "heatmap precision 7": (
        "query{ heatmap(viewport:{south:51.6, north:51.65, west:-1.3, east:-1.25},"
        " precision:7){ precision cells{ geohash count } } }",
        {},
    ),
    "heatmap region": (
        "query{ heatmap(viewport:{south:50, north:53, west:-3, east:1}){ precision"
        " cells{ geohash count } } }",
        {},
    ),
    "comments unfiltered": (
        'query{ product(id:"benchp"){ id name comments(first:7){ edges{ node{ id language'
        " rating body createdAt } } pageInfo{ hasNextPage hasPreviousPage } } } }",
        {},
    ),
    "comments de/[1]": (
        'query{ product(id:"benchp"){ comments(language:"DE", ratings:[1], first:100){'
        " edges{ node{ id rating } } pageInfo{ hasNextPage } } } }",
        {},
    ),
    "orders every field": (
        'query{ customer(id:"benchc"){ id name email createdAt orders(first:5){ edges{ node{'
        f" {_ORDER} }} }} pageInfo{{ hasNextPage hasPreviousPage }} }} }} }}",
        {},
    ),
    "orders by status": (
        'query{ customer(id:"benchc"){ orders(status:PLACED, first:100){ edges{ node{ id'
        " placedAt } } pageInfo{ hasNextPage } } } }",
        {},
    ),
    "repo every field": (
        'query{ repo(owner:"Bench", name:"Repo"){ owner name description createdAt starCount'
        " issues(first:3){ edges{ node{ number title state createdAt } } pageInfo{"
        " hasNextPage } } } }",
        {},
    ),
    "repo by fragment": (
        'query{ repo(owner:"bench", name:"repo"){ ...R } } fragment R on Repo { name'
        " issues(first:2){ edges{ node{ number } } } }",
        {},
    ),
    "missing ids": (
        'query{ customer(id:"nobody"){ id } product(id:"nothing"){ id } repo(owner:"no",'
        ' name:"repo"){ name issues{ edges{ node{ number } } } } }',
        {},
    ),
}
# Connections walked to their end, each server with its own cursors.
WALKS: dict[str, tuple[str, tuple[str, str]]] = {
    "orders": (
        'query($a: String){ customer(id:"benchc"){ orders(first:50, after:$a){ edges{ node{'
        " id } } pageInfo{ hasNextPage endCursor } } } }",
        ("customer", "orders"),
    ),
    "comments": (
        'query($a: String){ product(id:"benchp"){ comments(language:"en", first:30,'
        " after:$a){ edges{ node{ id } } pageInfo{ hasNextPage endCursor } } } }",
        ("product", "comments"),
    ),
    "issues": (
        'query($a: String){ repo(owner:"bench", name:"repo"){ issues(first:25, after:$a){'
        " edges{ node{ number } } pageInfo{ hasNextPage endCursor } } } }",
        ("repo", "issues"),
    ),
}

_T0 = datetime(2023, 1, 1, tzinfo=UTC)


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")


async def seed(http: httpx.AsyncClient, url: str) -> dict[str, int]:
    """The documents' data, every write through the gateway's mutations; the random draws
    in a fixed order, so every run seeds the same values."""
    rnd = random.Random(1)
    call = partial(graphql, http, url)
    await call(
        'mutation{ createCustomer(input:{id:"benchc", name:"Bench", email:"b@example.com"}){ id } }'
    )
    place = "mutation($i: PlaceOrderInput!){ placeOrder(input:$i){ id } }"
    lines = [{"sku": f"S{k}", "quantity": 1, "unitPriceCents": 100} for k in range(3)]
    orders = [
        {"customerId": "benchc", "placedAt": _iso(_T0 + timedelta(hours=n)), "items": lines}
        for n in range(120)
    ]
    await together([partial(call, place, i=o) for o in orders])
    await call('mutation{ createProduct(input:{id:"benchp", name:"Bench"}){ id } }')
    post = "mutation($i: PostCommentInput!){ postComment(input:$i){ id } }"
    comments = []
    for n in range(200):
        language = rnd.choice(["en", "de"])
        rating = rnd.randint(1, 5)
        created = _iso(_T0 + timedelta(minutes=n))
        comments.append(
            {
                "productId": "benchp",
                "language": language,
                "rating": rating,
                "body": "x" * 200,
                "createdAt": created,
            }
        )
    await together([partial(call, post, i=c) for c in comments])
    await call('mutation{ createRepo(input:{owner:"bench", name:"repo"}){ name } }')
    issue = 'mutation{ openIssue(input:{owner:"bench", name:"repo", title:"an issue"}){ number } }'
    for _ in range(60):  # one after another: each takes the next number
        await call(issue)
    add = "mutation($i: AddMarkerInput!){ addMarker(input:$i){ id } }"
    markers = []
    for _ in range(600):
        lat = rnd.uniform(51.4, 51.9)
        lon = rnd.uniform(-1.6, -1.0)
        markers.append({"lat": lat, "lon": lon, "label": "m"})
    await together([partial(call, add, i=m) for m in markers])
    return {"orders": len(orders), "comments": len(comments), "issues": 60, "markers": 600}


def normalised(value: Any) -> Any:
    """`data` with cursors left out: they are each server's own."""
    if isinstance(value, dict):
        skip = ("cursor", "startCursor", "endCursor")
        return {k: normalised(v) for k, v in value.items() if k not in skip}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    return value


async def answer(http: httpx.AsyncClient, url: str, query: str, **variables: Any) -> Any:
    """The response's body, or one that says what went wrong."""
    response = await http.post(url, json={"query": query, "variables": variables})
    try:
        return response.json()
    except ValueError:
        return {"errors": [{"message": f"HTTP {response.status_code}: {response.text[:300]}"}]}


async def _walk(http: httpx.AsyncClient, url: str, query: str, path: tuple[str, str]) -> Any:
    pages: list[Any] = []
    after = None
    for _ in range(100):
        body = await answer(http, url, query, a=after)
        if body.get("errors"):
            return body["errors"]
        found = body["data"][path[0]][path[1]]
        pages.append(([e["node"] for e in found["edges"]], found["pageInfo"]["hasNextPage"]))
        if not found["pageInfo"]["hasNextPage"]:
            break
        after = found["pageInfo"]["endCursor"]
    return pages


def _differs(what: str, peer: str, got: Any, want: Any) -> str:
    return (
        f"{what}: {peer} answers\n    {json.dumps(got)[:700]}\n"
        f"  the gateway answers\n    {json.dumps(want)[:700]}"
    )


async def check(
    http: httpx.AsyncClient, urls: Mapping[str, str], documents: list[Document], more: bool
) -> list[str]:
    """Where a hand-written server's `data` differs from the gateway's (the first of `urls`),
    for each document, and with `more` for the checked-only documents and the walks."""
    gateway, *peers = urls
    asked: list[tuple[str, str, dict[str, Any]]] = [(d.label, d.query, {}) for d in documents]
    if more:
        asked += [(name, query, v) for name, (query, v) in MORE.items()]
    problems = []
    for what, query, variables in asked:
        want = await answer(http, urls[gateway], query, **variables)
        if want.get("errors"):
            problems.append(f"{what}: the gateway refuses it: {json.dumps(want)[:700]}")
            continue
        for peer in peers:
            got = await answer(http, urls[peer], query, **variables)
            if got.get("errors") or normalised(got.get("data")) != normalised(want["data"]):
                problems.append(_differs(what, peer, got, want))
    for name, (query, path) in WALKS.items() if more else ():
        want = await _walk(http, urls[gateway], query, path)
        for peer in peers:
            got = await _walk(http, urls[peer], query, path)
            if got != want:
                problems.append(_differs(f"{name} walked to the end", peer, got, want))
    return problems
