"""Relay pagination through the GraphQL API: tampered and foreign cursors, what cursors hide,
page argument bounds and the requests a page costs."""

from __future__ import annotations

import base64
from typing import Any

from tests.client import Api
from tests.documents import OPEN_ORDERS
from tests.resolvers.pagination_helpers import (
    customer,
    open_orders,
    orders,
    orders_result,
    seven_orders,
)


def alter(cursor: str, position: int) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    replacement = alphabet[(alphabet.index(cursor[position]) + 1) % len(alphabet)]
    return cursor[:position] + replacement + cursor[position + 1 :]


async def test_tampered_and_foreign_cursors_are_bad_cursor(api: Api) -> None:
    await seven_orders(api, "alice")
    await seven_orders(api, "bob")
    page = await orders(api, first=3)
    cursor = page["edges"][1]["cursor"]
    assert (await orders_result(api, first=3, after=cursor)).ok()

    for position in (0, 5, len(cursor) // 2, len(cursor) - 2, len(cursor) - 1):
        altered = alter(cursor, position)
        assert (await orders_result(api, first=3, after=altered)).codes == ["BAD_CURSOR"]
        assert (await orders_result(api, last=3, before=altered)).codes == ["BAD_CURSOR"]
    for garbage in ("", "x", "not a cursor!", cursor[:-1], cursor + "A", "A" * 5000):
        assert (await orders_result(api, first=3, after=garbage)).codes == ["BAD_CURSOR"]

    # Another parent.
    assert (await orders_result(api, "bob", first=3, after=cursor)).codes == ["BAD_CURSOR"]
    bob = (await orders(api, "bob", first=3))["pageInfo"]["endCursor"]
    assert (await orders_result(api, "alice", last=3, before=bob)).codes == ["BAD_CURSOR"]

    # Another argument set.
    assert (await orders_result(api, direction="DESC", first=3, after=cursor)).ok()
    assert (await orders_result(api, direction="ASC", first=3, after=cursor)).codes == [
        "BAD_CURSOR"
    ]
    ascending = (await orders(api, direction="ASC", first=3))["pageInfo"]["endCursor"]
    assert (await orders_result(api, first=3, after=ascending)).codes == ["BAD_CURSOR"]
    by_status = (await orders(api, status="PLACED", first=3))["pageInfo"]["endCursor"]
    assert (await orders_result(api, first=3, after=by_status)).codes == ["BAD_CURSOR"]
    assert (await orders_result(api, status="SHIPPED", first=3, after=by_status)).codes == [
        "BAD_CURSOR"
    ]
    assert (await orders_result(api, status="PLACED", first=3, after=by_status)).ok()
    ranged = (await orders(api, placed={"from": "2021-01-01"}, first=3))["pageInfo"]["endCursor"]
    assert (await orders_result(api, first=3, after=ranged)).codes == ["BAD_CURSOR"]
    assert (
        await orders_result(api, placed={"from": "2021-01-02"}, first=3, after=ranged)
    ).codes == ["BAD_CURSOR"]

    # Another field.
    assert (await api(OPEN_ORDERS, first=3, after=cursor)).codes == ["BAD_CURSOR"]
    open_cursor = (await open_orders(api, first=3))["pageInfo"]["endCursor"]
    assert (await orders_result(api, first=3, after=open_cursor)).codes == ["BAD_CURSOR"]
    assert (await api(OPEN_ORDERS, first=3, after=alter(open_cursor, 3))).codes == ["BAD_CURSOR"]


async def test_cursors_do_not_reveal_table_keys(api: Api) -> None:
    oldest_first = await seven_orders(api)
    connections = [
        await orders(api),
        await orders(api, direction="ASC"),
        await orders(api, status="PLACED"),
        await open_orders(api),
    ]
    cursors = [e["cursor"] for c in connections for e in c["edges"]]
    assert len(cursors) == 28
    for cursor in cursors:
        decoded = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        for secret in (b"CUSTOMER#", b"ORDER#", b"ORDERS#", b"alice", b"2021-03", b"GSI"):
            assert secret not in decoded, cursor
        for order_id in oldest_first:
            assert order_id.encode() not in decoded
            assert order_id not in cursor


BAD_PAGE_ARGUMENTS: list[dict[str, Any]] = [
    {"first": 0},
    {"first": 101},
    {"first": -1},
    {"last": 0},
    {"last": 101},
    {"last": -1},
    {"first": 3, "last": 3},
    {"last": 3, "after": "CURSOR"},
    {"first": 3, "before": "CURSOR"},
    {"after": "CURSOR", "before": "CURSOR"},
]


async def test_bad_page_arguments_are_bad_user_input(api: Api) -> None:
    await customer(api)
    cursor = (await orders(api))["pageInfo"]["endCursor"] or "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    for bad in BAD_PAGE_ARGUMENTS:
        args = {k: cursor if v == "CURSOR" else v for k, v in bad.items()}
        assert (await orders_result(api, **args)).codes == ["BAD_USER_INPUT"], bad
        assert (await api(OPEN_ORDERS, **args)).codes == ["BAD_USER_INPUT"], bad


async def test_page_bounds_are_accepted(api: Api) -> None:
    await customer(api)
    bounds: list[dict[str, Any]] = [{"first": 1}, {"first": 100}, {"last": 1}, {"last": 100}]
    for args in bounds:
        assert (await orders_result(api, **args)).ok()
        assert (await api(OPEN_ORDERS, **args)).ok()


async def test_a_page_costs_one_query_and_has_previous_page_one_more(api: Api) -> None:
    await seven_orders(api)
    cursor = (await orders(api, first=3))["pageInfo"]["endCursor"]

    def query(page_info: str, args: str = "first: 3, after: $cursor") -> str:
        variables = "($cursor: String)" if "$cursor" in args else ""
        return f"""query {variables} {{ customer(id: "alice") {{
            orders({args}) {{ edges {{ node {{ id }} }} {page_info} }} }} }}"""

    async def requests(text: str) -> int:
        result = await api(text, **({"cursor": cursor} if "$cursor" in text else {}))
        result.ok()
        count: int = result.cost["requests"]
        return count

    # One request loads the customer, one reads the page.
    assert await requests(query("")) == 2
    assert await requests(query("pageInfo { hasNextPage startCursor endCursor }")) == 2
    assert await requests(query("pageInfo { hasPreviousPage }")) == 3
    assert await requests(query("pageInfo { hasNextPage hasPreviousPage }")) == 3
    # Without a cursor there is nothing before the first page: no extra request.
    assert await requests(query("pageInfo { hasPreviousPage }", "first: 3")) == 2
    # Backward, the flag that needs a look past the cursor is hasNextPage.
    backward = "last: 3, before: $cursor"
    assert await requests(query("", backward)) == 2
    assert await requests(query("pageInfo { hasPreviousPage startCursor }", backward)) == 2
    assert await requests(query("pageInfo { hasNextPage }", backward)) == 3
    # openOrders has no parent to load.
    open_cursor = (await open_orders(api, first=3))["pageInfo"]["endCursor"]
    page = "query ($c: String) { openOrders(first: 3, after: $c) { edges { node { id } } %s } }"
    assert (await api(page % "", c=open_cursor)).cost["requests"] == 1
    assert (await api(page % "pageInfo { hasPreviousPage }", c=open_cursor)).cost["requests"] == 2
