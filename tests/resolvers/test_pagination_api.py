"""Relay pagination through the GraphQL API, against DynamoDB Local: walks and page flags."""

from __future__ import annotations

from tests.client import Api
from tests.resolvers.pagination_helpers import (
    Connection,
    customer,
    open_orders,
    order,
    orders,
    seven_orders,
)

SET_STATUS = """mutation ($id: ID!, $status: OrderStatus!) {
  setOrderStatus(id: $id, status: $status) { id status } }"""


def ids(connection: Connection) -> list[str]:
    return [e["node"]["id"] for e in connection["edges"]]


def flags(connection: Connection) -> tuple[bool, bool]:
    """(hasPreviousPage, hasNextPage)."""
    info = connection["pageInfo"]
    return info["hasPreviousPage"], info["hasNextPage"]


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
