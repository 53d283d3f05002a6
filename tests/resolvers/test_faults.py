"""What a client hears when DynamoDB fails or its answers are lost (API.md section 3,
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

from gateway.admin.verify import diff, group
from gateway.settings import Settings
from store.requests import WRITE_TOKEN
from tests.client import Api, Result, assert_well_formed
from tests.faults import FaultProxy, without_backoff
from tests.table import scan_all

CREATE_CUSTOMER = """mutation ($id: ID!) {
  createCustomer(input: {id: $id, name: "N", email: "n@x.io"}) { id name email createdAt } }"""
PLACE_ORDER = """mutation ($customer: ID!) {
  placeOrder(input: {customerId: $customer, items: [{sku: "A", quantity: 1, unitPriceCents: 5}]})
  { id status } }"""
SET_STATUS = """mutation ($id: ID!) { setOrderStatus(id: $id, status: SHIPPED) { id status } }"""
CREATE_PRODUCT = """mutation ($id: ID!) { createProduct(input: {id: $id, name: "Mug"}) { id } }"""
POST_COMMENT = """mutation ($product: ID!) {
  postComment(input: {productId: $product, language: "en", rating: 4, body: "fine"}) { id } }"""
CREATE_REPO = """mutation ($name: String!) {
  createRepo(input: {owner: "alice", name: $name}) { name starCount } }"""
OPEN_ISSUE = """mutation ($name: String!) {
  openIssue(input: {owner: "alice", name: $name, title: "Bug"}) { number } }"""
STAR_REPO = """mutation ($name: String!, $user: String!) {
  starRepo(owner: "alice", name: $name, username: $user) { starCount } }"""
CREATE_ORGANIZATION = """mutation ($name: String!) {
  createOrganization(input: {name: $name}) { name } }"""
ADD_MEMBER = """mutation ($organization: String!, $user: String!) {
  addMember(input: {organization: $organization, username: $user, name: "U", role: MEMBER})
  { username } }"""
CREATE_TEAM = """mutation ($organization: String!, $name: String!) {
  createTeam(organization: $organization, name: $name) { name } }"""
CREATE_QUEUE = """mutation ($id: ID!) { createQueue(input: {id: $id, name: "Support"}) { id } }"""
OPEN_TICKET = """mutation ($queue: ID!) {
  openTicket(input: {queueId: $queue, title: "Help"}) { id } }"""
UPDATE_TICKET = """mutation ($id: ID!) {
  updateTicket(input: {id: $id, status: CLOSED}) { id status } }"""
ADD_MARKER = """mutation ($lat: Float!) {
  addMarker(input: {lat: $lat, lon: 2.35, label: "Here"}) { id } }"""


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    without_backoff(monkeypatch)


@pytest.fixture
async def faulty(proxy: FaultProxy, table: str) -> AsyncIterator[Api]:
    settings = Settings(table=table, endpoint=proxy.url, cursor_secret=b"test-secret")
    async with Api.serving(settings) as running:
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
    (await api(CREATE_CUSTOMER, id="dup")).ok()
    (await api(CREATE_PRODUCT, id="p1")).ok()
    (await api(CREATE_REPO, name="tools")).ok()
    (await api(CREATE_ORGANIZATION, name="acme")).ok()
    (await api(CREATE_QUEUE, id="q1")).ok()
    orders = [(await api(PLACE_ORDER, customer="dup")).ok()["placeOrder"]["id"] for _ in range(2)]
    ticket = (await api(OPEN_TICKET, queue="q1")).ok()["openTicket"]["id"]
    return {"orders": orders, "ticket": ticket}


# ---- lost answers -------------------------------------------------------------------------


async def test_a_lost_answer_of_a_create_and_of_a_move_is_success(
    api: Api, faulty: Api, proxy: FaultProxy, client: Any, table: str
) -> None:
    seeded = await seed(api)
    proxy.inject("PutItem", "lose", count=1)
    created = await faulty(CREATE_CUSTOMER, id="alice")
    assert created.ok()["createCustomer"]["id"] == "alice"
    proxy.inject("UpdateItem", "lose", count=1)
    moved = await faulty(SET_STATUS, id=seeded["orders"][0])
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
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        **{f"customer {n}": (CREATE_CUSTOMER, {"id": f"c{n}"}) for n in range(8)},
        "duplicate customer": (CREATE_CUSTOMER, {"id": "dup"}),
        "twin 1": (CREATE_CUSTOMER, {"id": "twin"}),
        "twin 2": (CREATE_CUSTOMER, {"id": "twin"}),
        **{f"move {n}": (SET_STATUS, {"id": order}) for n, order in enumerate(seeded["orders"])},
        **{f"order {n}": (PLACE_ORDER, {"customer": "dup"}) for n in range(3)},
        "product": (CREATE_PRODUCT, {"id": "p2"}),
        **{f"comment {n}": (POST_COMMENT, {"product": "p1"}) for n in range(2)},
        "repo": (CREATE_REPO, {"name": "more"}),
        **{f"issue {n}": (OPEN_ISSUE, {"name": "tools"}) for n in range(3)},
        **{f"star {u}": (STAR_REPO, {"name": "tools", "user": u}) for u in ("carol", "dave")},
        "organization": (CREATE_ORGANIZATION, {"name": "globex"}),
        **{f"member {u}": (ADD_MEMBER, {"organization": "acme", "user": u}) for u in "xy"},
        "team": (CREATE_TEAM, {"organization": "acme", "name": "core"}),
        "queue": (CREATE_QUEUE, {"id": "q2"}),
        **{f"ticket {n}": (OPEN_TICKET, {"queue": "q1"}) for n in range(2)},
        "update": (UPDATE_TICKET, {"id": seeded["ticket"]}),
        **{f"marker {n}": (ADD_MARKER, {"lat": 48.85}) for n in range(2)},
    }
    results = dict(
        zip(calls, await asyncio.gather(*(faulty(d, **v) for d, v in calls.values())), strict=True)
    )
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
    partitions = group(items).values()
    assert len(partitions) == 2
    for partition in partitions:
        assert partition.primary is not None
        assert diff(partition.primary, partition.copies).clean
    assert_private(list(results.values()), items)


# ---- failing past retries -----------------------------------------------------------------


async def test_transactions_failing_with_500_are_unavailable_and_write_nothing(
    api: Api, faulty: Api, proxy: FaultProxy, client: Any, table: str
) -> None:
    await seed(api)
    before = await snapshot(client, table)
    proxy.inject("TransactWriteItems", "error")
    results = await asyncio.gather(
        faulty(PLACE_ORDER, customer="dup"),
        faulty(POST_COMMENT, product="p1"),
        faulty(OPEN_ISSUE, name="tools"),
        faulty(STAR_REPO, name="tools", user="carol"),
        faulty(ADD_MEMBER, organization="acme", user="x"),
        faulty(CREATE_TEAM, organization="acme", name="core"),
        faulty(OPEN_TICKET, queue="q1"),
        faulty(ADD_MARKER, lat=48.85),
    )
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
    results = await asyncio.gather(
        faulty(CREATE_CUSTOMER, id="alice"),
        faulty(SET_STATUS, id=seeded["orders"][0]),
        faulty(UPDATE_TICKET, id=seeded["ticket"]),
        faulty(PLACE_ORDER, customer="dup"),
    )
    assert [r.codes for r in results] == [["UNAVAILABLE"]] * len(results)
    assert all(code not in json.dumps(r.body) for r in results)
    assert await snapshot(client, table) == before
