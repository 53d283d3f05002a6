"""Relay pagination through the GraphQL API, against DynamoDB Local."""

from __future__ import annotations

import base64
from typing import Any

from tests.api import Api, Result

CREATE = """mutation ($input: CreateCustomerInput!) {
  createCustomer(input: $input) { id } }"""
PLACE = """mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id } }"""
SET_STATUS = """mutation ($id: ID!, $status: OrderStatus!) {
  setOrderStatus(id: $id, status: $status) { id status } }"""
CONNECTION = """edges { cursor node { id placedAt } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }"""
ORDERS = f"""query ($id: ID!, $status: OrderStatus, $placed: DateTimeRange,
                  $direction: SortDirection, $first: Int, $after: String,
                  $last: Int, $before: String) {{
  customer(id: $id) {{ orders(status: $status, placed: $placed, direction: $direction,
                             first: $first, after: $after, last: $last, before: $before) {{
    {CONNECTION} }} }} }}"""
OPEN_ORDERS = f"""query ($first: Int, $after: String, $last: Int, $before: String) {{
  openOrders(first: $first, after: $after, last: $last, before: $before) {{ {CONNECTION} }} }}"""

Connection = dict[str, Any]


async def customer(api: Api, customer_id: str = "alice") -> None:
    (await api(CREATE, input={"id": customer_id, "name": "A", "email": f"{customer_id}@x.io"})).ok()


async def order(api: Api, customer_id: str, placed_at: str) -> str:
    items = [{"sku": "A", "quantity": 1, "unitPriceCents": 100}]
    result = await api(
        PLACE, input={"customerId": customer_id, "items": items, "placedAt": placed_at}
    )
    order_id: str = result.ok()["placeOrder"]["id"]
    return order_id


async def seven_orders(api: Api, customer_id: str = "alice") -> list[str]:
    """A customer with 7 orders; their ids oldest first."""
    await customer(api, customer_id)
    return [await order(api, customer_id, f"2021-03-0{day}T12:00:00Z") for day in range(1, 8)]


def given(variables: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in variables.items() if v is not None}


async def orders_result(api: Api, customer_id: str = "alice", **args: Any) -> Result:
    return await api(ORDERS, id=customer_id, **given(args))


async def orders(api: Api, customer_id: str = "alice", **args: Any) -> Connection:
    connection: Connection = (await orders_result(api, customer_id, **args)).ok()["customer"][
        "orders"
    ]
    check_shape(connection)
    return connection


async def open_orders(api: Api, **args: Any) -> Connection:
    connection: Connection = (await api(OPEN_ORDERS, **given(args))).ok()["openOrders"]
    check_shape(connection)
    return connection


def check_shape(connection: Connection) -> None:
    """Every edge has its own cursor; start and end cursors are the first and last edge's."""
    cursors = [e["cursor"] for e in connection["edges"]]
    assert len(set(cursors)) == len(cursors)
    info = connection["pageInfo"]
    assert info["startCursor"] == (cursors[0] if cursors else None)
    assert info["endCursor"] == (cursors[-1] if cursors else None)


def ids(connection: Connection) -> list[str]:
    return [e["node"]["id"] for e in connection["edges"]]


def flags(connection: Connection) -> tuple[bool, bool]:
    """(hasPreviousPage, hasNextPage)."""
    info = connection["pageInfo"]
    return info["hasPreviousPage"], info["hasNextPage"]


def alter(cursor: str, position: int) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    replacement = alphabet[(alphabet.index(cursor[position]) + 1) % len(alphabet)]
    return cursor[:position] + replacement + cursor[position + 1 :]


async def test_forward_walk_has_exact_flags_on_every_page(api: Api) -> None:
    oldest_first = await seven_orders(api)
    for direction in (None, "DESC", "ASC"):
        await forward_walk(api, oldest_first, direction)


async def forward_walk(api: Api, oldest_first: list[str], direction: str | None) -> None:
    expected = oldest_first if direction == "ASC" else oldest_first[::-1]
    pages: list[Connection] = []
    after = None
    while True:
        page = await orders(api, direction=direction, first=3, after=after)
        pages.append(page)
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
        assert len(pages) < 5
    assert [ids(p) for p in pages] == [expected[0:3], expected[3:6], expected[6:7]]
    assert [flags(p) for p in pages] == [(False, True), (True, True), (True, False)]
    assert [i for p in pages for i in ids(p)] == expected
    everything = await orders(api, direction=direction)
    assert ids(everything) == expected
    assert flags(everything) == (False, False)
    # Cursors are stable: an edge has the same cursor on whichever page it is read.
    assert [e["cursor"] for p in pages for e in p["edges"]] == [
        e["cursor"] for e in everything["edges"]
    ]


async def test_backward_walk_from_the_end(api: Api) -> None:
    oldest_first = await seven_orders(api)
    for direction in ("DESC", "ASC"):
        await backward_walk(api, oldest_first, direction)


async def backward_walk(api: Api, oldest_first: list[str], direction: str) -> None:
    expected = oldest_first if direction == "ASC" else oldest_first[::-1]
    pages: list[Connection] = []
    before = None
    while True:
        page = await orders(api, direction=direction, last=3, before=before)
        pages.append(page)
        if not page["pageInfo"]["hasPreviousPage"]:
            break
        before = page["pageInfo"]["startCursor"]
        assert len(pages) < 5
    # Each page is in display order, the same as forward pages.
    assert [ids(p) for p in pages] == [expected[4:7], expected[1:4], expected[0:1]]
    assert [flags(p) for p in pages] == [(True, False), (True, True), (False, True)]
    assert [i for p in reversed(pages) for i in ids(p)] == expected


async def test_forward_then_backward_from_the_middle(api: Api) -> None:
    expected = (await seven_orders(api))[::-1]
    first = await orders(api, first=3)
    second = await orders(api, first=3, after=first["pageInfo"]["endCursor"])
    assert ids(second) == expected[3:6]

    back = await orders(api, last=3, before=second["pageInfo"]["startCursor"])
    assert ids(back) == expected[0:3] == ids(first)
    assert flags(back) == (False, True)
    assert [e["cursor"] for e in back["edges"]] == [e["cursor"] for e in first["edges"]]

    back_two = await orders(api, last=2, before=second["pageInfo"]["startCursor"])
    assert ids(back_two) == expected[1:3]
    assert flags(back_two) == (True, True)

    back_many = await orders(api, last=100, before=second["pageInfo"]["endCursor"])
    assert ids(back_many) == expected[0:5]
    assert flags(back_many) == (False, True)

    forward_again = await orders(api, first=3, after=back_two["pageInfo"]["endCursor"])
    assert ids(forward_again) == expected[3:6]
    assert flags(forward_again) == (True, True)


async def test_pages_that_end_exactly_at_the_edge(api: Api) -> None:
    expected = (await seven_orders(api))[::-1]
    assert flags(await orders(api, first=7)) == (False, False)
    assert flags(await orders(api, first=6)) == (False, True)
    assert flags(await orders(api, last=7)) == (False, False)
    assert flags(await orders(api, last=6)) == (True, False)
    everything = await orders(api)
    cursors = [e["cursor"] for e in everything["edges"]]
    rest = await orders(api, first=3, after=cursors[3])
    assert ids(rest) == expected[4:7]
    assert flags(rest) == (True, False)
    start = await orders(api, last=3, before=cursors[3])
    assert ids(start) == expected[0:3]
    assert flags(start) == (False, True)
    past_the_end = await orders(api, first=3, after=cursors[-1])
    assert ids(past_the_end) == []
    assert past_the_end["pageInfo"]["startCursor"] is None
    assert past_the_end["pageInfo"]["endCursor"] is None
    assert flags(past_the_end) == (True, False)
    before_the_start = await orders(api, last=3, before=cursors[0])
    assert ids(before_the_start) == []
    assert flags(before_the_start) == (False, True)


async def test_every_edge_cursor_works_as_after_and_before(api: Api) -> None:
    oldest_first = await seven_orders(api)
    for direction in ("DESC", "ASC"):
        await every_edge_cursor(api, oldest_first, direction)


async def every_edge_cursor(api: Api, oldest_first: list[str], direction: str) -> None:
    expected = oldest_first if direction == "ASC" else oldest_first[::-1]
    everything = await orders(api, direction=direction, first=100)
    assert ids(everything) == expected
    n = len(expected)
    for i, edge in enumerate(everything["edges"]):
        after = await orders(api, direction=direction, first=100, after=edge["cursor"])
        assert ids(after) == expected[i + 1 :]
        assert flags(after) == (True, False)  # the cursor's own item precedes the page
        one = await orders(api, direction=direction, first=1, after=edge["cursor"])
        assert ids(one) == expected[i + 1 : i + 2]
        assert flags(one) == (True, i + 2 < n)
        before = await orders(api, direction=direction, last=100, before=edge["cursor"])
        assert ids(before) == expected[:i]
        assert flags(before) == (False, True)


async def test_flags_count_the_cursors_own_item(api: Api) -> None:
    """With `after`, hasPreviousPage is true iff anything precedes the page, the cursor's
    own item included; with `before`, hasNextPage likewise. A walk with one item per page
    therefore reports a previous page on page 2."""
    expected = (await seven_orders(api))[::-1]
    first = await orders(api, first=1)
    second = await orders(api, first=1, after=first["pageInfo"]["endCursor"])
    assert ids(second) == expected[1:2]
    assert flags(second) == (True, True)
    third = await orders(api, first=1, after=second["pageInfo"]["endCursor"])
    assert flags(third) == (True, True)

    last = await orders(api, last=1)
    second_last = await orders(api, last=1, before=last["pageInfo"]["startCursor"])
    assert ids(second_last) == expected[5:6]
    assert flags(second_last) == (True, True)
    third_last = await orders(api, last=1, before=second_last["pageInfo"]["startCursor"])
    assert flags(third_last) == (True, True)


async def test_filtered_orders_page_within_the_filter(api: Api) -> None:
    oldest_first = await seven_orders(api)
    for order_id in oldest_first[1::2]:
        (await api(SET_STATUS, id=order_id, status="CANCELLED")).ok()
    placed = oldest_first[0::2][::-1]  # 4 PLACED orders, newest first
    first = await orders(api, status="PLACED", first=3)
    assert ids(first) == placed[:3]
    assert flags(first) == (False, True)
    rest = await orders(api, status="PLACED", first=3, after=first["pageInfo"]["endCursor"])
    assert ids(rest) == placed[3:]
    assert flags(rest) == (True, False)
    back = await orders(api, status="PLACED", last=3, before=rest["pageInfo"]["startCursor"])
    assert ids(back) == placed[:3]
    assert flags(back) == (False, True)  # placed[3], the cursor's own item, follows
    back = await orders(api, status="PLACED", last=2, before=first["pageInfo"]["endCursor"])
    assert ids(back) == placed[:2]
    assert flags(back) == (False, True)

    in_range = {"from": "2021-03-02T12:00:00Z", "to": "2021-03-05T12:00:00Z"}  # 4 orders
    ranged = await orders(api, placed=in_range, direction="ASC", first=2)
    assert ids(ranged) == oldest_first[1:3]
    assert flags(ranged) == (False, True)
    more = await orders(
        api, placed=in_range, direction="ASC", first=2, after=ranged["pageInfo"]["endCursor"]
    )
    assert ids(more) == oldest_first[3:5]
    assert flags(more) == (True, False)


async def test_open_orders_pages_across_customers(api: Api) -> None:
    await customer(api, "alice")
    await customer(api, "bob")
    placed = [
        await order(api, "alice" if day % 2 else "bob", f"2021-04-0{day}T00:00:00Z")
        for day in range(1, 8)
    ]
    (await api(SET_STATUS, id=placed[2], status="SHIPPED")).ok()
    open_ = [i for i in placed if i != placed[2]]  # 6, oldest first

    pages: list[Connection] = []
    after = None
    for _ in range(3):
        page = await open_orders(api, first=4, after=after)
        pages.append(page)
        after = page["pageInfo"]["endCursor"]
        if not page["pageInfo"]["hasNextPage"]:
            break
    assert [ids(p) for p in pages] == [open_[0:4], open_[4:6]]
    assert [flags(p) for p in pages] == [(False, True), (True, False)]

    last = await open_orders(api, last=4)
    assert ids(last) == open_[2:6]
    assert flags(last) == (True, False)
    back = await open_orders(api, last=4, before=last["pageInfo"]["startCursor"])
    assert ids(back) == open_[0:2]
    assert flags(back) == (False, True)

    # A cursor stays usable after its order has left the list.
    first = await open_orders(api, first=2)
    (await api(SET_STATUS, id=open_[1], status="CANCELLED")).ok()
    following = await open_orders(api, first=2, after=first["pageInfo"]["endCursor"])
    assert ids(following) == open_[2:4]
    assert flags(following) == (True, True)
    preceding = await open_orders(api, last=2, before=first["pageInfo"]["endCursor"])
    assert ids(preceding) == open_[0:1]
    assert flags(preceding) == (False, True)


async def test_empty_collections(api: Api) -> None:
    await customer(api, "alice")
    empty = {
        "edges": [],
        "pageInfo": {
            "hasNextPage": False,
            "hasPreviousPage": False,
            "startCursor": None,
            "endCursor": None,
        },
    }
    assert await orders(api) == empty
    assert await orders(api, first=1) == empty
    assert await orders(api, last=3) == empty
    assert await orders(api, direction="ASC", last=100) == empty
    assert await orders(api, status="SHIPPED") == empty
    assert await open_orders(api) == empty
    assert await open_orders(api, last=5) == empty
    # A filter that leaves nothing of a non-empty collection.
    await order(api, "alice", "2021-05-01T00:00:00Z")
    assert await orders(api, status="DELIVERED", first=5) == empty
    assert await orders(api, placed={"to": "2021-04-30T23:59:59.999Z"}, last=5) == empty


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
