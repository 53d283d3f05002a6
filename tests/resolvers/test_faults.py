"""What a client hears when DynamoDB fails or its answers are lost (docs/demand-control.md,
"Faults"), through the fault proxy of `tests/faults.py`.

Prerequisites are written through `api`, straight to DynamoDB Local; the calls under test
go through `faulty`, the same gateway pointed at the proxy.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from data.copies.verify import diff, group
from demo.model.comments import COMMENT
from store.requests import WRITE_TOKEN
from tests.client import Api, Result, assert_well_formed, settings_for
from tests.documents import (
    ADD_MARKER,
    ADD_MEMBER,
    CLOSE_ISSUE,
    CREATE_CUSTOMER,
    CREATE_ORGANIZATION,
    CREATE_PRODUCT,
    CREATE_QUEUE,
    CREATE_REPO,
    CREATE_TEAM,
    DELETE_COMMENT,
    EDIT_COMMENT,
    OPEN_ISSUE,
    OPEN_TICKET,
    PLACE_ORDER,
    POST_COMMENT,
    REMOVE_MARKER,
    SET_MEMBER_ROLE,
    SET_ORDER_STATUS,
    STAR_REPO,
    UNSTAR_REPO,
    UPDATE_TICKET,
)
from tests.faults import FaultProxy, without_backoff
from tests.table import scan_all

Call = tuple[str, dict[str, Any]]
LINE = {"sku": "A", "quantity": 1, "unitPriceCents": 5}


def create_customer(customer_id: str) -> Call:
    return CREATE_CUSTOMER, {"input": {"id": customer_id, "name": "N", "email": "n@x.io"}}


def place_order(customer_id: str) -> Call:
    return PLACE_ORDER, {"input": {"customerId": customer_id, "items": [LINE]}}


def ship(order_id: str) -> Call:
    return SET_ORDER_STATUS, {"id": order_id, "status": "SHIPPED"}


def create_product(product_id: str) -> Call:
    return CREATE_PRODUCT, {"input": {"id": product_id, "name": "Mug"}}


def post_comment(product_id: str) -> Call:
    new = {"productId": product_id, "language": "en", "rating": 4, "body": "fine"}
    return POST_COMMENT, {"input": new}


def create_repo(name: str) -> Call:
    return CREATE_REPO, {"input": {"owner": "alice", "name": name}}


def open_issue(name: str) -> Call:
    return OPEN_ISSUE, {"owner": "alice", "name": name, "title": "Bug"}


def star_repo(name: str, username: str) -> Call:
    return STAR_REPO, {"owner": "alice", "name": name, "username": username}


def create_organization(name: str) -> Call:
    return CREATE_ORGANIZATION, {"name": name}


def add_member(organization: str, username: str) -> Call:
    new = {"organization": organization, "username": username, "name": "U", "role": "MEMBER"}
    return ADD_MEMBER, {"input": new}


def create_team(organization: str, name: str) -> Call:
    return CREATE_TEAM, {"org": organization, "name": name}


def create_queue(queue_id: str) -> Call:
    return CREATE_QUEUE, {"input": {"id": queue_id, "name": "Support"}}


def open_ticket(queue_id: str) -> Call:
    return OPEN_TICKET, {"input": {"queueId": queue_id, "title": "Help"}}


def close_ticket(ticket_id: str) -> Call:
    return UPDATE_TICKET, {"input": {"id": ticket_id, "status": "CLOSED"}}


def add_marker(lat: float) -> Call:
    return ADD_MARKER, {"input": {"lat": lat, "lon": 2.35, "label": "Here"}}


async def send(api: Api, call: Call) -> Result:
    document, variables = call
    return await api(document, **variables)


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    without_backoff(monkeypatch)


@pytest.fixture
async def faulty(proxy: FaultProxy, table: str) -> AsyncIterator[Api]:
    async with Api.serving(settings_for(proxy.url, table)) as running:
        yield running


async def snapshot(client: Any, table: str) -> list[dict[str, Any]]:
    return sorted(await scan_all(client, table), key=lambda i: (i["PK"], i["SK"]))


def assert_private(results: list[Result], items: list[dict[str, Any]]) -> None:
    """No response shows a write token, or even its name."""
    tokens = {i[WRITE_TOKEN] for i in items if WRITE_TOKEN in i}
    for result in results:
        text = json.dumps(result.body)
        assert WRITE_TOKEN not in text
        assert not any(token in text for token in tokens)


async def seed(api: Api) -> dict[str, Any]:
    """One entity of each kind to act on, and two PLACED orders."""
    for call in [
        create_customer("dup"),
        create_product("p1"),
        create_repo("tools"),
        create_organization("acme"),
        create_queue("q1"),
    ]:
        (await send(api, call)).ok()
    orders = [(await send(api, place_order("dup"))).ok()["placeOrder"]["id"] for _ in range(2)]
    ticket = (await send(api, open_ticket("q1"))).ok()["openTicket"]["id"]
    return {"orders": orders, "ticket": ticket}


# ---- lost answers -------------------------------------------------------------------------


async def test_a_lost_answer_of_a_create_and_of_a_move_is_success(
    api: Api, faulty: Api, proxy: FaultProxy, client: Any, table: str
) -> None:
    seeded = await seed(api)
    proxy.inject("PutItem", "lose", count=1)
    created = await send(faulty, create_customer("alice"))
    assert created.ok()["createCustomer"]["id"] == "alice"
    proxy.inject("UpdateItem", "lose", count=1)
    moved = await send(faulty, ship(seeded["orders"][0]))
    assert moved.ok()["setOrderStatus"]["status"] == "SHIPPED"
    assert proxy.calls["PutItem"] == proxy.calls["UpdateItem"] == 2
    # The create answers what was asked, nothing more.
    assert set(created.data["createCustomer"]) == {"id", "name", "email", "createdAt"}
    assert_private([created, moved], await scan_all(client, table))


async def test_many_calls_with_answers_lost_at_random_each_hear_the_truth(
    api: Api, faulty: Api, proxy: FaultProxy, client: Any, table: str
) -> None:
    """Three answers in ten lost (at most once per request, so every call gets through):
    a create of a new id never hears CONFLICT, a real duplicate always does."""
    seeded = await seed(api)
    lost = proxy.inject("*", "lose", probability=0.3, per_request=1)
    calls: dict[str, Call] = {
        **{f"customer {n}": create_customer(f"c{n}") for n in range(8)},
        "duplicate customer": create_customer("dup"),
        "twin 1": create_customer("twin"),
        "twin 2": create_customer("twin"),
        **{f"move {n}": ship(order) for n, order in enumerate(seeded["orders"])},
        **{f"order {n}": place_order("dup") for n in range(3)},
        "product": create_product("p2"),
        **{f"comment {n}": post_comment("p1") for n in range(2)},
        "repo": create_repo("more"),
        **{f"issue {n}": open_issue("tools") for n in range(3)},
        **{f"star {u}": star_repo("tools", u) for u in ("carol", "dave")},
        "organization": create_organization("globex"),
        **{f"member {u}": add_member("acme", u) for u in "xy"},
        "team": create_team("acme", "core"),
        "queue": create_queue("q2"),
        **{f"ticket {n}": open_ticket("q1") for n in range(2)},
        "update": close_ticket(seeded["ticket"]),
        **{f"marker {n}": add_marker(48.85) for n in range(2)},
    }
    sent = await asyncio.gather(*(send(faulty, call) for call in calls.values()))
    results = dict(zip(calls, sent, strict=True))
    assert lost.hits > 0
    for result in results.values():
        assert_well_formed(result)
    codes = {name: result.codes for name, result in results.items()}
    twins = sorted([codes.pop("twin 1"), codes.pop("twin 2")])
    assert twins == [[], ["CONFLICT"]]
    assert codes.pop("duplicate customer") == ["CONFLICT"]
    assert codes == {name: [] for name in codes}

    items = await scan_all(client, table)
    kinds: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        kinds.setdefault(item.get("type", ""), []).append(item)
    assert sorted(i["id"] for i in kinds["CUSTOMER"]) == sorted(
        ["dup", "twin", *(f"c{n}" for n in range(8))]
    )
    assert sorted(o["status"] for o in kinds["ORDER"]) == ["PLACED"] * 3 + ["SHIPPED"] * 2
    assert sorted(i["number"] for i in kinds["ISSUE"]) == [1, 2, 3]
    repo = next(r for r in kinds["REPO"] if r["name"] == "tools")
    assert (repo["issueCount"], repo["starCount"]) == (3, 2)
    assert len(kinds["STAR"]) == 2
    assert sorted(m["username"] for m in kinds["MEMBER"]) == ["x", "y"]
    assert [t["name"] for t in kinds["TEAM"]] == ["core"]
    assert next(o for o in kinds["ORGANIZATION"] if o["name"] == "acme")["teamCount"] == 1
    assert len(kinds["TICKET"]) == 3
    assert [t["status"] for t in kinds["TICKET"]].count("CLOSED") == 1
    assert len(kinds["MARKER"]) == 2
    assert sorted({i["count"] for i in items if "count" in i}) == [2]  # both in the same cells
    partitions = group(COMMENT, items).values()
    assert len(partitions) == 2
    for partition in partitions:
        assert partition.primary is not None
        assert diff(COMMENT, partition.primary, partition.copies).clean
    assert_private(list(results.values()), items)


async def test_with_every_write_answer_lost_each_create_and_move_is_success(
    api: Api, faulty: Api, proxy: FaultProxy, client: Any, table: str
) -> None:
    """Every attempt of every write is applied and its answer lost: botocore gives up,
    and a consistent read of what the write stamped (`store.witness`) finds it done."""
    seeded = await seed(api)
    (await send(api, open_issue("tools"))).ok()
    (await send(api, add_member("acme", "m"))).ok()
    (await send(api, star_repo("tools", "sam"))).ok()
    kept, gone = [(await send(api, post_comment("p1"))).ok()["postComment"]["id"] for _ in "ab"]
    marker = (await send(api, add_marker(10.0))).ok()["addMarker"]["id"]
    for operation in ("PutItem", "UpdateItem", "TransactWriteItems"):
        proxy.inject(operation, "lose")
    calls: dict[str, Call] = {
        "customer": create_customer("alice"),
        "order": place_order("dup"),
        "product": create_product("p2"),
        "comment": post_comment("p1"),
        "repo": create_repo("more"),
        "issue": open_issue("tools"),
        "organization": create_organization("globex"),
        "member": add_member("acme", "x"),
        "team": create_team("acme", "core"),
        "queue": create_queue("q2"),
        "ticket": open_ticket("q1"),
        "marker": add_marker(48.85),
        "move order": ship(seeded["orders"][0]),
        "close issue": (CLOSE_ISSUE, {"owner": "alice", "name": "tools", "number": 1}),
        "close ticket": close_ticket(seeded["ticket"]),
        "role": (SET_MEMBER_ROLE, {"org": "acme", "username": "m", "role": "ADMIN"}),
        "edit": (EDIT_COMMENT, {"input": {"id": kept, "body": "edited"}}),
        "delete": (DELETE_COMMENT, {"id": gone}),
        "remove marker": (REMOVE_MARKER, {"id": marker}),
        "unstar": (UNSTAR_REPO, {"owner": "alice", "name": "tools", "username": "sam"}),
    }
    results = {name: await send(faulty, call) for name, call in calls.items()}
    assert proxy.calls["TransactWriteItems"] > 0
    assert {name: r.codes for name, r in results.items()} == {name: [] for name in calls}
    items = await scan_all(client, table)
    kinds: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        kinds.setdefault(item.get("type", ""), []).append(item)
    assert "alice" in {c["id"] for c in kinds["CUSTOMER"]}
    assert sorted(o["status"] for o in kinds["ORDER"]) == ["PLACED"] * 2 + ["SHIPPED"]
    assert [i["state"] for i in kinds["ISSUE"] if i["number"] == 1] == ["CLOSED"]
    assert len(kinds["ISSUE"]) == 2 and len(kinds["MARKER"]) == 1  # one added, one removed
    assert [t["status"] for t in kinds["TICKET"]].count("CLOSED") == 1
    assert {m["username"]: m["role"] for m in kinds["MEMBER"]}["m"] == "ADMIN"
    comments = {c["id"]: c for c in kinds["COMMENT"]}
    assert comments[kept]["body"] == "edited" and gone not in comments
    assert marker not in {m["id"] for m in kinds["MARKER"]} and "STAR" not in kinds
    assert_private(list(results.values()), items)


# ---- failing past retries -----------------------------------------------------------------


async def test_transactions_failing_with_500_are_unavailable_and_write_nothing(
    api: Api, faulty: Api, proxy: FaultProxy, client: Any, table: str
) -> None:
    await seed(api)
    before = await snapshot(client, table)
    proxy.inject("TransactWriteItems", "error")
    calls = [
        place_order("dup"),
        post_comment("p1"),
        open_issue("tools"),
        star_repo("tools", "carol"),
        add_member("acme", "x"),
        create_team("acme", "core"),
        open_ticket("q1"),
        add_marker(48.85),
    ]
    results = await asyncio.gather(*(send(faulty, call) for call in calls))
    assert [r.codes for r in results] == [["UNAVAILABLE"]] * len(results)
    for result in results:
        assert_well_formed(result)
        assert "InternalServerError" not in json.dumps(result.body)
    assert await snapshot(client, table) == before


@pytest.mark.parametrize(
    ("mode", "status", "code"),
    [
        ("error", 503, "ServiceUnavailable"),
        ("error", 502, "BadGateway"),  # any status of 500 or more, whatever it is called
        ("throttle", None, "ThrottlingException"),
        ("throttle", None, "ProvisionedThroughputExceededException"),
    ],
)
async def test_single_writes_failing_past_retries_are_unavailable(
    api: Api,
    faulty: Api,
    proxy: FaultProxy,
    client: Any,
    table: str,
    mode: Any,
    status: int | None,
    code: str,
) -> None:
    seeded = await seed(api)
    before = await snapshot(client, table)
    for operation in ("PutItem", "UpdateItem", "TransactWriteItems"):
        proxy.inject(operation, mode, status=status, code=code)
    calls = [
        create_customer("alice"),
        ship(seeded["orders"][0]),
        close_ticket(seeded["ticket"]),
        place_order("dup"),
    ]
    results = await asyncio.gather(*(send(faulty, call) for call in calls))
    assert [r.codes for r in results] == [["UNAVAILABLE"]] * len(results)
    assert all(code not in json.dumps(r.body) for r in results)
    assert await snapshot(client, table) == before
