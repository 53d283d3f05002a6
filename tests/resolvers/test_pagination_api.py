"""Relay pagination through the GraphQL API, against DynamoDB Local: walks and page flags."""

from __future__ import annotations

from functools import partial

import pytest

from tests.client import Api
from tests.documents import SET_ORDER_STATUS
from tests.resolvers.connections import EMPTY, Connection, flags, walk
from tests.resolvers.pagination_helpers import customer, open_orders, order, orders, seven_orders


def ids(connection: Connection) -> list[str]:
    return [e["node"]["id"] for e in connection["edges"]]


def shown(connection: Connection) -> tuple[list[str], tuple[bool, bool]]:
    """A page's order ids, and its (hasPreviousPage, hasNextPage)."""
    return ids(connection), flags(connection)


async def seven_listed(api: Api, direction: str | None) -> list[str]:
    """Seven orders of one customer; their ids in the order `direction` lists them."""
    oldest_first = await seven_orders(api)
    return oldest_first if direction == "ASC" else oldest_first[::-1]


@pytest.mark.parametrize("direction", [None, "DESC", "ASC"])
async def test_forward_walk_has_exact_flags_on_every_page(api: Api, direction: str | None) -> None:
    expected = await seven_listed(api, direction)
    pages = await walk(partial(orders, api, direction=direction), 3, most=5)
    assert [ids(p) for p in pages] == [expected[0:3], expected[3:6], expected[6:7]]
    assert [flags(p) for p in pages] == [(False, True), (True, True), (True, False)]
    assert [i for p in pages for i in ids(p)] == expected
    everything = await orders(api, direction=direction)
    assert shown(everything) == (expected, (False, False))
    # Cursors are stable: an edge has the same cursor on whichever page it is read.
    assert [e["cursor"] for p in pages for e in p["edges"]] == [
        e["cursor"] for e in everything["edges"]
    ]


@pytest.mark.parametrize("direction", ["DESC", "ASC"])
async def test_backward_walk_from_the_end(api: Api, direction: str) -> None:
    expected = await seven_listed(api, direction)
    pages = await walk(partial(orders, api, direction=direction), 3, backward=True, most=5)
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
    assert shown(back_two) == (expected[1:3], (True, True))

    back_many = await orders(api, last=100, before=second["pageInfo"]["endCursor"])
    assert shown(back_many) == (expected[0:5], (False, True))

    forward_again = await orders(api, first=3, after=back_two["pageInfo"]["endCursor"])
    assert shown(forward_again) == (expected[3:6], (True, True))


async def test_pages_that_end_exactly_at_the_edge(api: Api) -> None:
    expected = (await seven_orders(api))[::-1]
    assert flags(await orders(api, first=7)) == (False, False)
    assert flags(await orders(api, first=6)) == (False, True)
    assert flags(await orders(api, last=7)) == (False, False)
    assert flags(await orders(api, last=6)) == (True, False)
    everything = await orders(api)
    cursors = [e["cursor"] for e in everything["edges"]]
    rest = await orders(api, first=3, after=cursors[3])
    assert shown(rest) == (expected[4:7], (True, False))
    start = await orders(api, last=3, before=cursors[3])
    assert shown(start) == (expected[0:3], (False, True))
    past_the_end = await orders(api, first=3, after=cursors[-1])
    assert ids(past_the_end) == []
    assert past_the_end["pageInfo"]["startCursor"] is None
    assert past_the_end["pageInfo"]["endCursor"] is None
    assert flags(past_the_end) == (True, False)
    before_the_start = await orders(api, last=3, before=cursors[0])
    assert shown(before_the_start) == ([], (False, True))


@pytest.mark.parametrize("direction", ["DESC", "ASC"])
async def test_every_edge_cursor_works_as_after_and_before(api: Api, direction: str) -> None:
    expected = await seven_listed(api, direction)
    everything = await orders(api, direction=direction, first=100)
    assert ids(everything) == expected
    n = len(expected)
    for i, edge in enumerate(everything["edges"]):
        after = await orders(api, direction=direction, first=100, after=edge["cursor"])
        # The cursor's own item precedes the page.
        assert shown(after) == (expected[i + 1 :], (True, False))
        one = await orders(api, direction=direction, first=1, after=edge["cursor"])
        assert shown(one) == (expected[i + 1 : i + 2], (True, i + 2 < n))
        before = await orders(api, direction=direction, last=100, before=edge["cursor"])
        assert shown(before) == (expected[:i], (False, True))


async def test_flags_count_the_cursors_own_item(api: Api) -> None:
    """With `after`, hasPreviousPage is true iff anything precedes the page, the cursor's
    own item included; with `before`, hasNextPage likewise. A walk with one item per page
    therefore reports a previous page on page 2."""
    expected = (await seven_orders(api))[::-1]
    first = await orders(api, first=1)
    second = await orders(api, first=1, after=first["pageInfo"]["endCursor"])
    assert shown(second) == (expected[1:2], (True, True))
    third = await orders(api, first=1, after=second["pageInfo"]["endCursor"])
    assert flags(third) == (True, True)

    last = await orders(api, last=1)
    second_last = await orders(api, last=1, before=last["pageInfo"]["startCursor"])
    assert shown(second_last) == (expected[5:6], (True, True))
    third_last = await orders(api, last=1, before=second_last["pageInfo"]["startCursor"])
    assert flags(third_last) == (True, True)


async def test_filtered_orders_page_within_the_filter(api: Api) -> None:
    oldest_first = await seven_orders(api)
    for order_id in oldest_first[1::2]:
        (await api(SET_ORDER_STATUS, id=order_id, status="CANCELLED")).ok()
    placed = oldest_first[0::2][::-1]  # 4 PLACED orders, newest first
    first = await orders(api, status="PLACED", first=3)
    assert shown(first) == (placed[:3], (False, True))
    rest = await orders(api, status="PLACED", first=3, after=first["pageInfo"]["endCursor"])
    assert shown(rest) == (placed[3:], (True, False))
    back = await orders(api, status="PLACED", last=3, before=rest["pageInfo"]["startCursor"])
    assert shown(back) == (placed[:3], (False, True))  # placed[3], the cursor's own item, follows
    back = await orders(api, status="PLACED", last=2, before=first["pageInfo"]["endCursor"])
    assert shown(back) == (placed[:2], (False, True))

    in_range = {"from": "2021-03-02T12:00:00Z", "to": "2021-03-05T12:00:00Z"}  # 4 orders
    ranged = await orders(api, placed=in_range, direction="ASC", first=2)
    assert shown(ranged) == (oldest_first[1:3], (False, True))
    more = await orders(
        api, placed=in_range, direction="ASC", first=2, after=ranged["pageInfo"]["endCursor"]
    )
    assert shown(more) == (oldest_first[3:5], (True, False))


async def test_open_orders_pages_across_customers(api: Api) -> None:
    await customer(api, "alice")
    await customer(api, "bob")
    placed = [
        await order(api, "alice" if day % 2 else "bob", f"2021-04-0{day}T00:00:00Z")
        for day in range(1, 8)
    ]
    (await api(SET_ORDER_STATUS, id=placed[2], status="SHIPPED")).ok()
    open_ = [i for i in placed if i != placed[2]]  # 6, oldest first

    pages = await walk(partial(open_orders, api), 4, most=3)
    assert [ids(p) for p in pages] == [open_[0:4], open_[4:6]]
    assert [flags(p) for p in pages] == [(False, True), (True, False)]

    last = await open_orders(api, last=4)
    assert shown(last) == (open_[2:6], (True, False))
    back = await open_orders(api, last=4, before=last["pageInfo"]["startCursor"])
    assert shown(back) == (open_[0:2], (False, True))

    # A cursor stays usable after its order has left the list.
    first = await open_orders(api, first=2)
    (await api(SET_ORDER_STATUS, id=open_[1], status="CANCELLED")).ok()
    following = await open_orders(api, first=2, after=first["pageInfo"]["endCursor"])
    assert shown(following) == (open_[2:4], (True, True))
    preceding = await open_orders(api, last=2, before=first["pageInfo"]["endCursor"])
    assert shown(preceding) == (open_[0:1], (False, True))


async def test_empty_collections(api: Api) -> None:
    await customer(api, "alice")
    empty = EMPTY
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
