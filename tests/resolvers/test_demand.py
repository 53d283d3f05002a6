"""Demand control through the API: bounds before execution, refusals that read nothing,
the same read made once, and filtered pages that stop at their budget."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from gateway.settings import Settings
from tests import demo_repos as repo_keys
from tests.client import Api, Result
from tests.documents import ISSUES
from tests.resolvers.pagination_helpers import customer, order
from tests.resolvers.repos_helpers import NAME, OWNER, create_repo, set_issue_count
from tests.table import bulk_write


def nested(first: int, levels: int) -> str:
    """The customer's orders, each order's customer, her orders again… `levels` times."""
    inner = "id"
    for _ in range(levels):
        inner = f"customer {{ orders(first: {first}) {{ edges {{ node {{ {inner} }} }} }} }}"
    page = f"orders(first: {first}) {{ edges {{ node {{ {inner} }} }} }}"
    return f'{{ customer(id: "bomb") {{ {page} }} }}'


def doubling(levels: int, aliases: bool) -> str:
    leaf = (
        'a: customer(id: "bomb") { name } b: customer(id: "x") { name }'
        if aliases
        else ('customer(id: "bomb") { name }')
    )
    fragments = [f"fragment L0 on Query {{ {leaf} }}"]
    fragments += [
        f"fragment L{n} on Query {{ ...L{n - 1} ...L{n - 1} }}" for n in range(1, levels + 1)
    ]
    return "\n".join([f"{{ ...L{levels} }}", *fragments])


def assert_refused(result: Result, *over: str) -> None:
    assert result.status == 200, result.body
    assert result.codes == ["QUERY_TOO_COMPLEX"], result.body
    assert result.data is None
    extensions = result.errors[0]["extensions"]
    assert set(extensions["limit"]) == set(over)
    for name in over:
        assert extensions["estimated"][name] > extensions["limit"][name]
    assert result.cost["requests"] == 0  # nothing was read
    assert result.cost["estimated"] == extensions["estimated"]


@pytest.fixture
async def customer_with_orders(api: Api) -> Api:
    await customer(api, "bomb")
    await asyncio.gather(*(order(api, "bomb", "2021-01-01T00:00:00Z") for _ in range(12)))
    return api


# ---- bombs --------------------------------------------------------------------------------


async def test_the_nested_bomb_is_refused_before_any_read(customer_with_orders: Api) -> None:
    started = time.perf_counter()
    result = await customer_with_orders(nested(100, 2))
    assert time.perf_counter() - started < 5  # milliseconds in fact
    assert_refused(result, "fields")
    # The reads it would make: the customer, and her page (two calls if its orders are
    # large), shared by every copy.
    assert result.cost["estimated"]["requests"] == 1 + 2


async def test_the_nested_query_of_small_pages_reads_each_page_once(
    customer_with_orders: Api,
) -> None:
    result = await customer_with_orders(nested(5, 2))
    data = result.ok()
    orders = data["customer"]["orders"]["edges"]
    assert len(orders) == 5
    innermost = [
        [leaf["node"]["id"] for leaf in mid["node"]["customer"]["orders"]["edges"]]
        for outer in orders
        for mid in outer["node"]["customer"]["orders"]["edges"]
    ]
    assert len(innermost) == 25
    assert all(ids == innermost[0] and len(ids) == 5 for ids in innermost)
    # The customer once, her page of five once: everything else is the same two reads.
    assert result.cost["requests"] <= 4
    assert result.cost["requests"] == result.cost["estimated"]["requests"] == 2


@pytest.mark.parametrize("levels", [18, 40])
@pytest.mark.parametrize("aliases", [False, True])
async def test_fragment_fan_out_is_refused_while_health_answers(
    app: Api, levels: int, aliases: bool
) -> None:
    async def bomb() -> Result:
        return await app(doubling(levels, aliases))

    async def health() -> int:
        return (await app.http.get("/healthz")).status_code

    started = time.perf_counter()
    refused, healthy = await asyncio.gather(bomb(), asyncio.gather(*(health() for _ in range(5))))
    assert time.perf_counter() - started < 5
    assert healthy == [200] * 5
    if aliases:
        # Over the alias limit, counted before the bound in the same linear time.
        assert refused.codes == ["QUERY_TOO_COMPLEX"]
        assert "aliases found" in refused.errors[0]["message"]
        assert refused.cost["requests"] == 0
    else:
        assert_refused(refused, "fields")


# ---- each limit ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("limits", "over"),
    [
        ({"max_requests": 1}, "requests"),
        ({"max_items": 10}, "itemsScanned"),
        ({"max_fields": 20}, "fields"),
    ],
)
async def test_each_limit_refuses_what_is_over_it(
    settings: Settings, limits: dict[str, int], over: str
) -> None:
    document = '{ customer(id: "bomb") { name orders(first: 10) { edges { node { id } } } } }'
    small = '{ customer(id: "bomb") { name } }'
    async with Api.serving(Settings(**{**settings.__dict__, **limits})) as api:
        assert_refused(await api(document), over)
        allowed = await api(small)
        assert allowed.ok() == {"customer": None}
        assert allowed.cost["requests"] == 1


async def test_every_response_reports_its_bound(app: Api) -> None:
    result = await app('{ a: customer(id: "x") { id } b: customer(id: "y") { id } }')
    assert result.ok() == {"a": None, "b": None}
    assert result.cost["estimated"] == {"requests": 2, "itemsScanned": 2, "fields": 4}
    assert result.cost["requests"] <= 2


# ---- a filtered page stops at its budget ----------------------------------------------------


def issue_item(number: int, state: str) -> dict[str, Any]:
    return {
        **repo_keys.issue_key(OWNER.lower(), NAME.lower(), number),
        "type": "ISSUE",
        "number": number,
        "title": f"issue {number}",
        "state": state,
        "createdAt": "2025-01-01T00:00:00.000Z",
        "updatedAt": "2025-01-01T00:00:00.000Z",
    }


async def test_a_sparse_filter_reads_in_bounded_pages_that_resume(
    api: Api, client: Any, table: str, endpoint: str
) -> None:
    await create_repo(api)
    # Issue 1 is the only open one, behind 2,500 closed ones (read newest first).
    items = [issue_item(n, "CLOSED") for n in range(2, 2_502)] + [issue_item(1, "OPEN")]
    await bulk_write(client, table, items)
    await set_issue_count(client, table, 2_501)
    variables: dict[str, Any] = {"owner": OWNER, "name": NAME, "state": "OPEN", "first": 2}
    found: list[int] = []
    pages = 0
    while True:
        result = await api(ISSUES, **variables)
        issues = result.ok()["repo"]["issues"]
        pages += 1
        assert result.cost["itemsScanned"] <= result.cost["estimated"]["itemsScanned"]
        # The repository, a page of at most its budget, and `hasPreviousPage`'s check.
        assert result.cost["itemsScanned"] <= 1 + 1_000 + 1_000
        found += [e["node"]["number"] for e in issues["edges"]]
        if not issues["pageInfo"]["hasNextPage"]:
            break
        assert issues["pageInfo"]["endCursor"] is not None
        variables["after"] = issues["pageInfo"]["endCursor"]
        assert pages < 10
    assert found == [1]
    assert pages == 3  # 1,000 + 1,000 + the last 500 and the open one
