"""Customers and orders through the GraphQL API, against DynamoDB Local."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.client import Api
from tests.documents import CREATE_CUSTOMER, CUSTOMER_ORDERS, PLACE_ORDER, SET_ORDER_STATUS
from tests.resolvers.pagination_helpers import customer, order
from tests.table import scan_all


async def test_customer_round_trip_and_missing_is_null(api: Api) -> None:
    created = (
        await api(CREATE_CUSTOMER, input={"id": "Alice-1", "name": "Alice", "email": "a@x.io"})
    ).ok()
    assert created["createCustomer"]["id"] == "Alice-1"
    assert created["createCustomer"]["createdAt"].endswith("Z")
    found = await api(
        '{ customer(id: "Alice-1") { id name email } missing: customer(id: "bob") { id } }'
    )
    assert found.ok() == {
        "customer": {"id": "Alice-1", "name": "Alice", "email": "a@x.io"},
        "missing": None,
    }


async def test_duplicate_customer_is_conflict_and_keeps_the_first(
    api: Api, client: Any, table: str
) -> None:
    await customer(api)
    again = await api(CREATE_CUSTOMER, input={"id": "alice", "name": "Other", "email": "o@x.io"})
    assert again.codes == ["CONFLICT"]
    items = await scan_all(client, table)
    assert [i["name"] for i in items] == ["Alice"]


async def test_order_with_items_totals_and_customer(api: Api) -> None:
    await customer(api)
    result = await api(
        PLACE_ORDER,
        input={
            "customerId": "alice",
            "items": [
                {"sku": "BOOK", "quantity": 2, "unitPriceCents": 1500},
                {"sku": "MUG", "quantity": 1, "unitPriceCents": 999},
            ],
            "placedAt": "2021-06-01T10:00:00.250+02:00",
        },
    )
    placed = result.ok()["placeOrder"]
    assert placed["status"] == "PLACED"
    assert placed["placedAt"] == "2021-06-01T08:00:00.250Z"
    assert placed["totalCents"] == 3999
    assert [i["position"] for i in placed["items"]] == [1, 2]
    assert len(placed["id"]) == 27
    fetched = await api(
        "query ($id: ID!) { order(id: $id) "
        "{ id totalCents items { sku quantity } customer { name } } }",
        id=placed["id"],
    )
    assert fetched.ok()["order"] == {
        "id": placed["id"],
        "totalCents": 3999,
        "items": [{"sku": "BOOK", "quantity": 2}, {"sku": "MUG", "quantity": 1}],
        "customer": {"name": "Alice"},
    }


async def test_order_ids_sort_by_placement_time(api: Api) -> None:
    await customer(api)
    ids = [await order(api, "alice", f"2020-0{m}-15T00:00:00Z") for m in (3, 1, 2)]
    assert sorted(ids) == [ids[1], ids[2], ids[0]]


async def test_orders_newest_or_oldest_first(api: Api) -> None:
    await customer(api)
    dates = ["2020-01-01T00:00:00.000Z", "2020-01-02T00:00:00.000Z", "2020-01-03T00:00:00.000Z"]
    for placed in dates:
        await order(api, "alice", placed)
    newest = (await api(CUSTOMER_ORDERS, id="alice")).ok()["customer"]["orders"]["edges"]
    oldest = (await api(CUSTOMER_ORDERS, id="alice", direction="ASC")).ok()["customer"]["orders"][
        "edges"
    ]
    assert [e["node"]["placedAt"] for e in newest] == dates[::-1]
    assert [e["node"]["placedAt"] for e in oldest] == dates


async def test_status_and_range_filters_are_exact_to_the_millisecond(api: Api) -> None:
    await customer(api)
    early = await order(api, "alice", "2020-07-01T11:59:59.999Z")
    start = await order(api, "alice", "2020-07-01T12:00:00.000Z")
    inside = await order(api, "alice", "2020-08-15T00:00:00.000Z")
    end = await order(api, "alice", "2020-09-30T23:59:59.999Z")
    late = await order(api, "alice", "2020-10-01T00:00:00.000Z")
    for order_id in (early, start, end, late):
        (await api(SET_ORDER_STATUS, id=order_id, status="CANCELLED")).ok()
    placed = {"from": "2020-07-01T12:00:00Z", "to": "2020-09-30T23:59:59.999Z"}

    cancelled = await api(CUSTOMER_ORDERS, id="alice", status="CANCELLED", placed=placed)
    ids = [e["node"]["id"] for e in cancelled.ok()["customer"]["orders"]["edges"]]
    assert ids == [end, start]

    any_status = await api(CUSTOMER_ORDERS, id="alice", placed=placed)
    ids = [e["node"]["id"] for e in any_status.ok()["customer"]["orders"]["edges"]]
    assert ids == [end, inside, start]

    only_from = await api(CUSTOMER_ORDERS, id="alice", placed={"from": "2020-09-30"})
    ids = [e["node"]["id"] for e in only_from.ok()["customer"]["orders"]["edges"]]
    assert ids == [late, end]

    by_status = await api(CUSTOMER_ORDERS, id="alice", status="PLACED")
    assert [e["node"]["id"] for e in by_status.ok()["customer"]["orders"]["edges"]] == [inside]


async def test_bad_ranges_are_bad_user_input(api: Api) -> None:
    await customer(api)
    for placed in ({}, {"from": "2021-02-01", "to": "2021-01-01"}, {"from": "yesterday"}):
        result = await api(CUSTOMER_ORDERS, id="alice", placed=placed)
        assert result.codes == ["BAD_USER_INPUT"], (placed, result.body)


async def test_status_moves(api: Api, client: Any, table: str) -> None:
    await customer(api)
    first = await order(api, "alice", "2021-01-01T00:00:00Z")
    second = await order(api, "alice", "2021-01-02T00:00:00Z")
    assert (await api(SET_ORDER_STATUS, id=first, status="SHIPPED")).ok()["setOrderStatus"][
        "status"
    ] == "SHIPPED"
    assert (await api(SET_ORDER_STATUS, id=first, status="DELIVERED")).ok()["setOrderStatus"][
        "status"
    ] == "DELIVERED"
    assert (await api(SET_ORDER_STATUS, id=second, status="CANCELLED")).ok()
    before = await scan_all(client, table)
    for order_id, status in [
        (first, "PLACED"),
        (first, "SHIPPED"),
        (first, "CANCELLED"),
        (second, "SHIPPED"),
        (second, "PLACED"),
    ]:
        result = await api(SET_ORDER_STATUS, id=order_id, status=status)
        assert result.codes == ["BAD_USER_INPUT"], (status, result.body)
    assert await scan_all(client, table) == before
    for status in ("SHIPPED", "PLACED"):  # a move from nowhere: still no such order
        missing = await api(SET_ORDER_STATUS, id="1mRb9h140NNyE82chMLiYY6LwDk", status=status)
        assert missing.codes == ["NOT_FOUND"], missing.body
    not_ksuid = await api(SET_ORDER_STATUS, id="nope", status="SHIPPED")
    assert not_ksuid.codes == ["NOT_FOUND"]


async def test_open_orders_leave_the_sparse_index_when_they_move(api: Api) -> None:
    await customer(api, "alice")
    await customer(api, "bob")
    a = await order(api, "alice", "2021-01-01T00:00:00Z")
    b = await order(api, "bob", "2021-01-02T00:00:00Z")
    c = await order(api, "alice", "2021-01-03T00:00:00Z")
    query = "{ openOrders { edges { node { id customer { id } } } } }"
    edges = (await api(query)).ok()["openOrders"]["edges"]
    assert [(e["node"]["id"], e["node"]["customer"]["id"]) for e in edges] == [
        (a, "alice"),
        (b, "bob"),
        (c, "alice"),
    ]
    (await api(SET_ORDER_STATUS, id=b, status="SHIPPED")).ok()
    (await api(SET_ORDER_STATUS, id=a, status="CANCELLED")).ok()
    edges = (await api(query)).ok()["openOrders"]["edges"]
    assert [e["node"]["id"] for e in edges] == [c]


async def test_concurrent_moves_from_placed_one_wins(api: Api) -> None:
    await customer(api)
    order_id = await order(api, "alice", "2021-01-01T00:00:00Z")
    results = await asyncio.gather(
        *(api(SET_ORDER_STATUS, id=order_id, status=s) for s in ["SHIPPED", "CANCELLED"] * 4)
    )
    winners = [r for r in results if not r.errors]
    assert len(winners) == 1
    # Losers either read the order after the winner (a disallowed move) or lost the race.
    assert {c for r in results for c in r.codes} <= {"CONFLICT", "BAD_USER_INPUT"}
    final = await api("query ($id: ID!) { order(id: $id) { status } }", id=order_id)
    assert final.ok()["order"]["status"] == winners[0].data["setOrderStatus"]["status"]


@pytest.mark.parametrize(
    ("input_", "fragment"),
    [
        ({"items": []}, "items"),
        ({"items": [{"sku": "A", "quantity": 1, "unitPriceCents": 1}] * 51}, "items"),
        ({"items": [{"sku": "A", "quantity": 0, "unitPriceCents": 1}]}, "quantity"),
        ({"items": [{"sku": "A", "quantity": 1001, "unitPriceCents": 1}]}, "quantity"),
        ({"items": [{"sku": "A", "quantity": 1, "unitPriceCents": -1}]}, "unitPriceCents"),
        ({"items": [{"sku": "A", "quantity": 1, "unitPriceCents": 10**9 + 1}]}, "unitPriceCents"),
        ({"items": [{"sku": "", "quantity": 1, "unitPriceCents": 1}]}, "sku"),
        # Each line is within bounds, but the total would overflow GraphQL's Int.
        ({"items": [{"sku": "A", "quantity": 3, "unitPriceCents": 10**9}]}, "total"),
        ({"placedAt": "2999-01-01T00:00:00Z"}, "future"),
        ({"placedAt": "2001-01-01T00:00:00Z"}, "placedAt"),
        ({"customerId": "al ice"}, "identifier"),
        ({"customerId": "a#b"}, "identifier"),
    ],
)
async def test_bad_orders_are_refused_and_write_nothing(
    api: Api, client: Any, table: str, input_: dict[str, Any], fragment: str
) -> None:
    await customer(api)
    before = await scan_all(client, table)
    base: dict[str, Any] = {
        "customerId": "alice",
        "items": [{"sku": "A", "quantity": 1, "unitPriceCents": 1}],
    }
    result = await api(PLACE_ORDER, input={**base, **input_})
    assert result.codes == ["BAD_USER_INPUT"]
    assert fragment in result.errors[0]["message"]
    assert await scan_all(client, table) == before


async def test_order_for_unknown_customer_is_not_found_and_writes_nothing(
    api: Api, client: Any, table: str
) -> None:
    result = await api(
        PLACE_ORDER,
        input={"customerId": "ghost", "items": [{"sku": "A", "quantity": 1, "unitPriceCents": 1}]},
    )
    assert result.codes == ["NOT_FOUND"]
    assert await scan_all(client, table) == []


@pytest.mark.parametrize(
    "input_",
    [
        {"id": "a/b", "name": "A", "email": "a@x.io"},
        {"id": "a~b", "name": "A", "email": "a@x.io"},
        {"id": "a b", "name": "A", "email": "a@x.io"},
        {"id": "", "name": "A", "email": "a@x.io"},
        {"id": "x" * 65, "name": "A", "email": "a@x.io"},
        {"id": "-a", "name": "A", "email": "a@x.io"},
        {"id": "a", "name": "", "email": "a@x.io"},
        {"id": "a", "name": "n" * 201, "email": "a@x.io"},
        {"id": "a", "name": "A", "email": "not-an-email"},
    ],
)
async def test_bad_customers_are_refused_and_write_nothing(
    api: Api, client: Any, table: str, input_: dict[str, str]
) -> None:
    result = await api(CREATE_CUSTOMER, input=input_)
    assert result.codes == ["BAD_USER_INPUT"]
    assert await scan_all(client, table) == []


async def test_moves_in_one_request_see_each_other(api: Api) -> None:
    await customer(api)
    order_id = await order(api, "alice", "2021-01-01T00:00:00Z")
    result = await api(
        """mutation ($id: ID!) {
             shipped: setOrderStatus(id: $id, status: SHIPPED) { status }
             delivered: setOrderStatus(id: $id, status: DELIVERED) { status } }""",
        id=order_id,
    )
    assert result.ok() == {"shipped": {"status": "SHIPPED"}, "delivered": {"status": "DELIVERED"}}


async def test_a_null_direction_reads_as_the_default_and_takes_its_cursors(api: Api) -> None:
    await customer(api)
    ids = [await order(api, "alice", f"2021-01-0{day}T00:00:00Z") for day in range(1, 5)]
    first = (await api(CUSTOMER_ORDERS, id="alice", first=2)).ok()["customer"]["orders"]
    cursor = first["edges"][-1]["cursor"]
    rest = await api(CUSTOMER_ORDERS, id="alice", first=2, after=cursor, direction=None)
    newest_first = [
        e["node"]["id"] for e in first["edges"] + rest.ok()["customer"]["orders"]["edges"]
    ]
    assert newest_first == ids[::-1]
