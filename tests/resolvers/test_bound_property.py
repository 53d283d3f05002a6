"""Documents drawn over the schema, run on seeded data: what a response cost never exceeds
the bound computed before it ran (`tests/client.py` checks every response), and nothing a
client may ask is answered with an internal error."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.client import Api

SEED = [
    'createCustomer(input: {id: "ann", name: "Ann", email: "ann@x.io"}) { id }',
    'createProduct(input: {id: "lamp", name: "Lamp"}) { id }',
    'createRepo(input: {owner: "ann", name: "tools"}) { name }',
    'createOrganization(input: {name: "acme"}) { name }',
    'createQueue(input: {id: "help", name: "Help"}) { id }',
]


def page_args() -> st.SearchStrategy[str]:
    sizes = st.integers(1, 100).map(lambda n: f"first: {n}") | st.integers(1, 100).map(
        lambda n: f"last: {n}"
    )
    return st.one_of(st.just(""), sizes)


def connection(field: str, node: st.SearchStrategy[str], extra: str = "") -> st.SearchStrategy[str]:
    flags = st.sampled_from(
        ["", "pageInfo { hasNextPage }", "pageInfo { hasPreviousPage endCursor }"]
    )

    def render(args: str, inner: str, flag: str) -> str:
        given_args = ", ".join(a for a in (extra, args) if a)
        head = f"{field}({given_args})" if given_args else field
        return f"{head} {{ edges {{ cursor node {{ {inner} }} }} {flag} }}"

    return st.builds(render, page_args(), node, flags)


def customer(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return st.just("id name")
    order = order_fields(depth - 1)
    return st.builds(
        lambda orders: f"id {orders}",
        connection("orders", order, "status: PLACED") | connection("orders", order),
    )


def order_fields(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return st.just("id totalCents items { sku }")
    return st.builds(lambda c: f"id customer {{ {c} }}", customer(depth - 1))


def comment_fields(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return st.just("id rating")
    return st.builds(lambda p: f"id product {{ {p} }}", product(depth - 1))


def product(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return st.just("id")
    return connection("comments", comment_fields(depth - 1), 'language: "en"') | connection(
        "comments", comment_fields(depth - 1)
    ).map(lambda c: f"id {c}")


def root_field() -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda c: f'customer(id: "ann") {{ {c} }}', customer(2)),
        st.builds(
            lambda o: f"openOrders(first: 3) {{ edges {{ node {{ {o} }} }} }}", order_fields(2)
        ),
        st.builds(lambda p: f'product(id: "lamp") {{ {p} }}', product(2)),
        st.builds(
            lambda issues, stars: f'repo(owner: "ann", name: "tools") {{ name {issues} {stars} }}',
            connection("issues", st.just("number state"), "state: OPEN")
            | connection("issues", st.just("number")),
            st.just("") | connection("stars", st.just("username")),
        ),
        st.builds(
            lambda members, teams: f'organization(name: "acme") {{ name {members} {teams} }}',
            connection("members", st.just("username role"))
            | connection("admins", st.just("username")),
            st.sampled_from(["", "teams { name }"]),
        ),
        st.builds(
            lambda t: f'queue(id: "help") {{ name {t} }}', connection("tickets", st.just("id"))
        ),
        st.just(
            "markers(viewport: {north: 1, south: 0.9, east: 1, west: 0.9}, limit: 5) "
            "{ markers { id } truncated }"
        ),
    )


def documents() -> st.SearchStrategy[str]:
    fields = st.lists(root_field(), min_size=1, max_size=4)
    return fields.map(lambda fs: "{ " + " ".join(f"f{n}: {f}" for n, f in enumerate(fs)) + " }")


ADD = [
    'placeOrder(input: {customerId: "ann", items: [{sku: "A", quantity: 1, unitPriceCents: 5}]})',
    'postComment(input: {productId: "lamp", language: "en", rating: 4, body: "ok"})',
    'openIssue(input: {owner: "ann", name: "tools", title: "bug"})',
    'addMember(input: {organization: "acme", username: "u%d", name: "U", role: ADMIN})',
    'openTicket(input: {queueId: "help", title: "stuck"})',
    'starRepo(owner: "ann", name: "tools", username: "u%d")',
]


@pytest.fixture(scope="module")
async def seeded(app: Api) -> Api:
    await asyncio.gather(*(app(f"mutation {{ {m} }}") for m in SEED))
    for n in range(3):
        for mutation in ADD:
            text = mutation.replace("%d", str(n))
            (await app(f"mutation {{ {text} {{ __typename }} }}")).ok()
    return app


@settings(max_examples=60)
@given(document=documents())
async def test_no_response_costs_more_than_its_bound(seeded: Api, document: str) -> None:
    result = await seeded(document)  # the client asserts the bound on every response
    assert "INTERNAL_SERVER_ERROR" not in result.codes, (document, result.errors)
    estimated = result.cost["estimated"]
    if result.codes == ["QUERY_TOO_COMPLEX"]:
        assert result.cost["requests"] == 0
    else:
        assert result.errors == [], (document, result.errors)
        assert result.cost["requests"] <= estimated["requests"]
        assert result.cost["itemsScanned"] <= estimated["itemsScanned"]
