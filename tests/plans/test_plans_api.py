"""Documents answered by their plans (docs/performance.md#plans), each also by the
executor on the same DynamoDB answers (`DYNAGATE_PLANS=checked`, as every test runs): the
two answers must be equal, cost report included, or the answer carries an error."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from gateway.http.app import create_app
from gateway.http.view import GraphQLApp
from gateway.settings import Settings
from tests.client import settings_for

T0 = datetime(2024, 1, 1, tzinfo=UTC)
VIEW = "{south: 51.45, north: 51.55, west: -0.2, east: -0.05}"
EDGES = "edges { cursor node { id status placedAt totalCents } }"

# Each access pattern a plan answers, asked as clients ask it.
PLANNED = {
    "orders page": 'query { customer(id: "c1") { name orders(first: 20) { '
    + EDGES
    + " pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }",
    "orders with lines": 'query { customer(id: "c1") { id orders(first: 5) { edges { node {'
    " id items { position sku quantity unitPriceCents } } } } } }",
    "orders by status": 'query { customer(id: "c1") { orders(status: PLACED, first: 3) { '
    + EDGES
    + " } } }",
    "orders backwards": 'query { customer(id: "c1") { orders(last: 4) { '
    + EDGES
    + " pageInfo { hasPreviousPage } } } }",
    "comments filtered": 'query { product(id: "p1") { name comments(language: "en",'
    " ratings: [4, 5], first: 7) { edges { node { id rating body createdAt } } } } }",
    "repository issues": 'query { repo(owner: "o", name: "r") { description starCount'
    " issues(first: 6) { edges { cursor node { number title state createdAt } }"
    " pageInfo { hasNextPage endCursor } } } }",
    "heatmap": f"query {{ heatmap(viewport: {VIEW}) {{ precision cells {{ geohash count }} }} }}",
    "markers": f"query {{ markers(viewport: {VIEW}) {{ markers {{ id lat lon geohash label }}"
    " truncated } }",
    "aliases and typenames": 'query Named { __typename c: customer(id: "c1") { __typename'
    " who: name recent: orders(first: 2) { __typename edges { __typename n: node { __typename"
    " id } } } } m: markers(viewport: " + VIEW + ", limit: 3) { __typename truncated } }",
    "fragments": 'query { customer(id: "c1") { ...C } } fragment C on Customer { name'
    " orders(first: 2) { ... on OrderConnection { edges { node { id } } } } }",
    "missing": 'query { customer(id: "nobody") { name } repo(owner: "no", name: "one") {'
    " issues { edges { node { number } } } } }",
}


async def _ok(http: httpx.AsyncClient, query: str, **variables: Any) -> dict[str, Any]:
    response = await http.post("/graphql", json={"query": query, "variables": variables})
    body: dict[str, Any] = response.json()
    assert "errors" not in body, body["errors"]
    return body


async def _seed(http: httpx.AsyncClient) -> None:
    rnd = random.Random(7)
    await _ok(
        http,
        'mutation { createCustomer(input: {id: "c1", name: "Ada",'
        ' email: "ada@example.com"}) { id } }',
    )
    for n in range(25):
        order = {
            "customerId": "c1",
            "placedAt": (T0 + timedelta(hours=n)).isoformat(),
            "items": [{"sku": f"S{k}", "quantity": k + 1, "unitPriceCents": 99} for k in range(3)],
        }
        await _ok(http, "mutation($i: PlaceOrderInput!) { placeOrder(input: $i) { id } }", i=order)
    await _ok(http, 'mutation { createProduct(input: {id: "p1", name: "Pen"}) { id } }')
    for n in range(30):
        comment = {
            "productId": "p1",
            "language": rnd.choice(["en", "de"]),
            "rating": rnd.randint(1, 5),
            "body": f"comment {n}",
            "createdAt": (T0 + timedelta(minutes=n)).isoformat(),
        }
        await _ok(
            http, "mutation($i: PostCommentInput!) { postComment(input: $i) { id } }", i=comment
        )
    await _ok(http, 'mutation { createRepo(input: {owner: "o", name: "r"}) { name } }')
    for _ in range(8):
        await _ok(
            http, 'mutation { openIssue(input: {owner: "o", name: "r", title: "t"}) { number } }'
        )
    for _ in range(30):
        place = {"lat": rnd.uniform(51.46, 51.54), "lon": rnd.uniform(-0.19, -0.06), "label": "m"}
        await _ok(http, "mutation($i: AddMarkerInput!) { addMarker(input: $i) { id } }", i=place)


@asynccontextmanager
async def _serving(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, GraphQLApp]]:
    app = create_app(settings)
    endpoints = (getattr(route, "endpoint", None) for route in app.routes)
    view = next(e for e in endpoints if isinstance(e, GraphQLApp))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            yield http, view


@pytest.fixture(scope="module")
async def seeded(endpoint: str, shared_table: str) -> str:
    async with _serving(settings_for(endpoint, shared_table)) as (http, _):
        await _seed(http)
    return shared_table


@pytest.mark.parametrize("name", PLANNED)
async def test_each_pattern_is_answered_by_its_plan_as_by_the_executor(
    endpoint: str, seeded: str, name: str
) -> None:
    query = PLANNED[name]
    async with _serving(settings_for(endpoint, seeded)) as (http, view):
        checked = await _ok(http, query)
        assert view.planner is not None
        assert view.planner.plans.get(query, None) is not None, "the document has a plan"
    async with _serving(settings_for(endpoint, seeded, plans="on")) as (http, _):
        planned = await _ok(http, query)
    async with _serving(settings_for(endpoint, seeded, plans="off")) as (http, view):
        executed = await _ok(http, query)
        assert view.planner is None
    assert planned == executed == checked
    assert planned["data"] != {}


async def test_variables_are_coerced_and_refused_as_the_executor_does(
    endpoint: str, seeded: str
) -> None:
    query = (
        "query($id: ID!, $n: Int, $after: String) { customer(id: $id) { orders(first: $n,"
        " after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } } } }"
    )
    async with _serving(settings_for(endpoint, seeded)) as (http, view):
        first = await _ok(http, query, id="c1", n=10)
        end = first["data"]["customer"]["orders"]["pageInfo"]["endCursor"]
        second = await _ok(http, query, id="c1", n=10, after=end)
        assert view.planner is not None and view.planner.plans.get(query, None) is not None
        ids = [e["node"]["id"] for e in first["data"]["customer"]["orders"]["edges"]]
        more = [e["node"]["id"] for e in second["data"]["customer"]["orders"]["edges"]]
        assert len(ids) == len(more) == 10 and not set(ids) & set(more)
        wrong = await http.post("/graphql", json={"query": query, "variables": {"n": "ten"}})
        refused = wrong.json()
        assert refused["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
        assert "data" not in refused or refused["data"] is None


async def test_errors_are_the_executors_with_the_same_cost(endpoint: str, seeded: str) -> None:
    """A page the field refuses, and a cursor that is not one: the executor's error at the
    field's path and its null, with the cost of what was read, whichever way it is asked."""
    bad = {
        'query { customer(id: "c1") { name orders(first: 500) { edges { node { id } } } } }': (
            "BAD_USER_INPUT"
        ),
        'query { customer(id: "c1") { name orders(after: "nope") { edges { node { id } } } } }': (
            "BAD_CURSOR"
        ),
    }
    for query, code in bad.items():
        answers = []
        for mode in ("checked", "on", "off"):
            async with _serving(settings_for(endpoint, seeded, plans=mode)) as (http, _):
                answers.append((await http.post("/graphql", json={"query": query})).json())
        assert answers[0] == answers[1] == answers[2]
        error = answers[0]["errors"][0]
        assert error["path"] == ["customer", "orders"]
        assert error["extensions"]["code"] == code
        # The connection is non-null: its null reaches the customer.
        assert answers[0]["data"] == {"customer": None}


BAD_BODIES: list[tuple[str, dict[str, str]]] = [
    ('{"query": 5}', {}),
    ('{"query": "{ customer(id: \\"c1\\") { name } }", "variables": [1]}', {}),
    ('{"query": "{ customer(id: \\"c1\\") { name } }", "operationName": 7}', {}),
    ('{"query": "{ customer(id: \\"c1\\") { name } }", "extensions": {"persistedQuery": 1}}', {}),
    ('{"documentId": "sha256:nothex"}', {}),
    ('{"query": "{ customer(id: \\"c1\\") { name } }", "stray": true}', {}),
    ("[1, 2]", {}),
    ('"text"', {}),
    ("{not json", {}),
    ('{"query": "{ customer(id: \\"c1\\") { name } }"}', {"content-type": "text/plain"}),
]


@pytest.mark.parametrize(("body", "headers"), BAD_BODIES)
async def test_a_request_the_plan_cannot_read_is_the_executors(
    endpoint: str, seeded: str, body: str, headers: dict[str, str]
) -> None:
    """Whatever a client sends, the short way answers it as the executor does."""
    answers = []
    for mode in ("on", "off"):
        async with _serving(settings_for(endpoint, seeded, plans=mode)) as (http, _):
            sent = {"content-type": "application/json", **headers}
            response = await http.post("/graphql", content=body, headers=sent)
            answers.append((response.status_code, response.text))
    assert answers[0] == answers[1]
