"""Every access pattern's declared worst case holds when its own retries are forced.

Each access pattern that writes declares its worst case on itself (`store.cost.worst_case`);
the bound of a mutation reads it. Here every one of them runs through the fault proxy with
the faults that make it retry as long as it can (every transaction cancelled by a
conflict, every condition failing against the stored item), called by the caller it is
made for, with identity on as it ships; the calls it made are compared with what it
declares: never more, and exactly that many where the retries are what makes the worst
case.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from boto3.dynamodb.types import TypeSerializer

from data.writes import entities as entity_writes
from demo import organizations, repos
from demo.model import MODEL
from gateway.settings import Settings
from model import Create, Delete, Pattern, Update
from store.cost import Worst, declared, every_declared, qualified_name
from tests.client import Api
from tests.faults import FaultProxy, without_backoff
from tests.identity import SECURED, as_user
from tests.table import scan_all


@pytest.fixture(autouse=True)
def no_pauses(monkeypatch: pytest.MonkeyPatch) -> None:
    without_backoff(monkeypatch)
    monkeypatch.setattr(repos, "_PAUSE_STEP", 0.0)


@pytest.fixture(scope="module")
def overrides() -> dict[str, Any]:
    return SECURED


@pytest.fixture
async def faulty(proxy: FaultProxy, table: str) -> AsyncIterator[Api]:
    settings = Settings(table=table, endpoint=proxy.url, cursor_secret=b"test-secret", **SECURED)
    async with Api.serving(settings) as running:
        yield running


@dataclass
class World:
    """One of each entity, under names no other test uses."""

    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    ids: dict[str, str] = field(default_factory=dict)

    def name(self, what: str) -> str:
        return f"{what}-{self.tag}"


# Who writes what: alice authors and owns; the customer orders; root is an admin.
ALICE, ROOT = "alice", "root"


def caller(api: Api, world: World, who: str) -> Api:
    if who in ("customer", "new customer"):
        return as_user(api, world.name("c" if who == "customer" else "c2"))
    return as_user(api, who, admin=who == ROOT)


async def build(api: Api) -> World:
    world = World()
    n = world.name

    async def ok(document: str, who: str = ALICE, **variables: Any) -> Any:
        return (await caller(api, world, who)(document, **variables)).ok()

    await ok(
        CREATE_CUSTOMER,
        id=n("c"),
        who="customer",
    )
    placed = await ok(PLACE_ORDER, c=n("c"), who="customer")
    world.ids["order"] = placed["placeOrder"]["id"]
    await ok(
        'mutation($id: ID!) { createProduct(input: {id: $id, name: "Mug"}) { id } }',
        id=n("p"),
        who=ROOT,
    )
    posted = await ok(POST_COMMENT, p=n("p"))
    world.ids["comment"] = posted["postComment"]["id"]
    await ok(
        'mutation($r: String!) { createRepo(input: {owner: "alice", name: $r}) { name } }', r=n("r")
    )
    await ok(OPEN_ISSUE, r=n("r"))
    await ok(STAR, r=n("r"), u="bob", who="bob")
    await ok("mutation($o: String!) { createOrganization(input: {name: $o}) { name } }", o=n("o"))
    await ok(ADD_MEMBER, o=n("o"), u="bob")
    await ok(
        'mutation($q: ID!) { createQueue(input: {id: $q, name: "Q"}) { id } }', q=n("q"), who=ROOT
    )
    opened = await ok(OPEN_TICKET, q=n("q"))
    world.ids["ticket"] = opened["openTicket"]["id"]
    added = await ok(ADD_MARKER)
    world.ids["marker"] = added["addMarker"]["id"]
    return world


CREATE_CUSTOMER = """mutation($id: ID!) { createCustomer(input: {id: $id, name: "N",
  email: "n@x.io"}) { id } }"""
PLACE_ORDER = """mutation($c: ID!) { placeOrder(input: {customerId: $c,
  items: [{sku: "A", quantity: 1, unitPriceCents: 5}]}) { id } }"""
POST_COMMENT = """mutation($p: ID!) { postComment(input: {productId: $p, language: "en",
  rating: 4, body: "fine"}) { id } }"""
OPEN_ISSUE = """mutation($r: String!) { openIssue(input: {owner: "alice", name: $r,
  title: "Bug"}) { number } }"""
STAR = """mutation($r: String!, $u: String!) { starRepo(owner: "alice", name: $r,
  username: $u) { starCount } }"""
ADD_MEMBER = """mutation($o: String!, $u: String!) { addMember(input: {organization: $o,
  username: $u, name: "U", role: MEMBER}) { username } }"""
OPEN_TICKET = """mutation($q: ID!) { openTicket(input: {queueId: $q, title: "Help"}) { id } }"""
ADD_MARKER = """mutation { addMarker(input: {lat: 48.85, lon: 2.35, label: "Here"}) { id } }"""

CONFLICTS = ("TransactWriteItems", "conflict")
# The default model's declared writes, by mutation.
MODEL_WRITES: dict[str, Pattern] = {
    p.field: p for p in MODEL.patterns if isinstance(p, Create | Update | Delete)
}


def worst_of(access_pattern: Callable[..., Any] | Pattern) -> Worst:
    """The worst case an access pattern declares, or the engine derives for a declared one."""
    if isinstance(access_pattern, Create):
        return Worst(entity_writes.create_calls(MODEL, access_pattern.entity))
    if isinstance(access_pattern, Update):
        return Worst(*entity_writes.update_calls(access_pattern.entity, access_pattern.changes))
    if isinstance(access_pattern, Delete):
        return Worst(*entity_writes.delete_calls(access_pattern.entity))
    assert callable(access_pattern)
    return declared(access_pattern)


def named(access_pattern: Callable[..., Any] | Pattern) -> str:
    return access_pattern.__name__ if callable(access_pattern) else access_pattern.field


def condition_fails(operation: str) -> tuple[str, str]:
    return operation, "condition"


def creates(
    access_pattern: Callable[..., Any] | Pattern, document: str, name: str, who: str = ""
) -> Case:
    """A create refused because the item exists: its one conditional put fails."""
    return Case(
        access_pattern,
        document,
        lambda w: {"id": w.name(name)},
        condition_fails("PutItem"),
        who=who or ALICE,
    )


def by_id(
    access_pattern: Callable[..., Any] | Pattern,
    document: str,
    held: str,
    fault: tuple[str, str] = CONFLICTS,
    *,
    who: str = ALICE,
) -> Case:
    """A write of the `held` entity the world made, named by its id (`World.ids`)."""
    return Case(access_pattern, document, lambda w: {"id": w.ids[held]}, fault, who=who)


def naming(
    access_pattern: Callable[..., Any] | Pattern,
    document: str,
    variable: str,
    fault: tuple[str, str] = CONFLICTS,
    *,
    what: str = "",
    who: str = ALICE,
) -> Case:
    """A write given one name of the world's as `variable`: the name of `what`, else of the
    thing the variable is called after (`World.name`)."""
    return Case(
        access_pattern, document, lambda w: {variable: w.name(what or variable)}, fault, who=who
    )


@dataclass(frozen=True)
class Case:
    # A hand-written access pattern, or a declared one (`model/`).
    access_pattern: Callable[..., Any] | Pattern
    document: str
    variables: Callable[[World], dict[str, Any]]
    # The fault that forces the retries: (DynamoDB operation, "conflict" or "condition").
    fault: tuple[str, str]
    # Who calls it (see `caller`).
    who: str = ALICE
    # The retries are what makes its worst case: the calls made equal the declared ones.
    reaches_worst: bool = True


CASES = [
    creates(MODEL_WRITES["createCustomer"], CREATE_CUSTOMER, "c2", who="new customer"),
    naming(MODEL_WRITES["placeOrder"], PLACE_ORDER, "c", who="customer"),
    by_id(
        MODEL_WRITES["setOrderStatus"],
        "mutation($id: ID!) { setOrderStatus(id: $id, status: SHIPPED) { id } }",
        "order",
        condition_fails("UpdateItem"),
        who=ROOT,
    ),
    creates(
        MODEL_WRITES["createProduct"],
        'mutation($id: ID!) { createProduct(input: {id: $id, name: "Mug"}) { id } }',
        "p2",
        who=ROOT,
    ),
    naming(MODEL_WRITES["postComment"], POST_COMMENT, "p"),
    by_id(
        MODEL_WRITES["editComment"],
        "mutation($id: ID!) { editComment(input: {id: $id, rating: 2}) { id } }",
        "comment",
    ),
    by_id(
        MODEL_WRITES["deleteComment"], "mutation($id: ID!) { deleteComment(id: $id) }", "comment"
    ),
    Case(MODEL_WRITES["addMarker"], ADD_MARKER, lambda w: {}, CONFLICTS),
    by_id(MODEL_WRITES["removeMarker"], "mutation($id: ID!) { removeMarker(id: $id) }", "marker"),
    creates(
        MODEL_WRITES["createRepo"],
        'mutation($id: String!) { createRepo(input: {owner: "alice", name: $id}) { name } }',
        "r2",
    ),
    naming(repos.open_issue, OPEN_ISSUE, "r"),
    naming(
        MODEL_WRITES["closeIssue"],
        'mutation($r: String!) { closeIssue(owner: "alice", name: $r, number: 1) { number } }',
        "r",
        condition_fails("UpdateItem"),
    ),
    Case(
        repos.star_repo,
        STAR,
        lambda w: {"r": w.name("r"), "u": "carol"},
        CONFLICTS,
        who="carol",
        reaches_worst=False,  # its read of the repository follows a success only
    ),
    Case(
        repos.unstar_repo,
        """mutation($r: String!, $u: String!) { unstarRepo(owner: "alice", name: $r,
          username: $u) { starCount } }""",
        lambda w: {"r": w.name("r"), "u": "bob"},
        CONFLICTS,
        who="bob",
        reaches_worst=False,  # likewise
    ),
    naming(
        organizations.create_organization,
        "mutation($o: String!) { createOrganization(input: {name: $o}) { name } }",
        "o",
        what="o2",
    ),
    Case(
        organizations.add_member, ADD_MEMBER, lambda w: {"o": w.name("o"), "u": "carol"}, CONFLICTS
    ),
    Case(
        organizations.set_member_role,
        """mutation($o: String!, $u: String!) { setMemberRole(organization: $o, username: $u,
          role: ADMIN) { username } }""",
        lambda w: {"o": w.name("o"), "u": "bob"},
        CONFLICTS,
        reaches_worst=False,  # its reads of the member follow a success only
    ),
    naming(
        organizations.create_team,
        'mutation($o: String!) { createTeam(organization: $o, name: "core") { name } }',
        "o",
    ),
    creates(
        MODEL_WRITES["createQueue"],
        'mutation($id: ID!) { createQueue(input: {id: $id, name: "Q"}) { id } }',
        "q2",
        who=ROOT,
    ),
    naming(MODEL_WRITES["openTicket"], OPEN_TICKET, "q"),
    by_id(
        MODEL_WRITES["updateTicket"],
        "mutation($id: ID!) { updateTicket(input: {id: $id, status: CLOSED}) { id } }",
        "ticket",
        condition_fails("UpdateItem"),
    ),
]


def test_every_access_pattern_that_declares_a_worst_case_is_driven_here() -> None:
    functions = [c.access_pattern for c in CASES if callable(c.access_pattern)]
    # The product's own (the tests' stand-ins for declared writes declare theirs too).
    product = {name for name in every_declared() if not name.startswith("tests.")}
    assert {qualified_name(function) for function in functions} == product
    driven = {c.access_pattern for c in CASES if not callable(c.access_pattern)}
    assert driven == set(MODEL_WRITES.values())


async def stored(client: Any, table: str, key: str, value: str) -> dict[str, Any]:
    """The stored item whose `key` is `value`, as DynamoDB sends it in a failed condition."""
    [item] = [i for i in await scan_all(client, table) if i.get(key) == value and "PK" in i]
    serializer = TypeSerializer()
    return {name: serializer.serialize(v) for name, v in item.items()}


@pytest.mark.parametrize("case", CASES, ids=lambda c: named(c.access_pattern))
async def test_forced_retries_stay_within_the_declared_worst_case(
    case: Case, api: Api, faulty: Api, proxy: FaultProxy, client: Any, table: str
) -> None:
    world = await build(api)
    operation, kind = case.fault
    if kind == "conflict":
        proxy.inject(operation, "conflict")
    else:
        # A condition that fails against what is stored: the access pattern reads the item
        # that came back and decides whether to try again.
        fields: dict[str, object] = {}
        if case.access_pattern is MODEL_WRITES["updateTicket"]:
            ticket = await stored(client, table, "title", "Help")
            fields["Item"] = {**ticket, "updatedAt": {"S": "2999-01-01T00:00:00.000Z"}}
        proxy.inject(
            operation, "error", status=400, code="ConditionalCheckFailedException", fields=fields
        )
    result = await caller(faulty, world, case.who)(case.document, **case.variables(world))
    assert result.errors, result.body  # every attempt failed
    # Refused for what DynamoDB said, never for passing the bound (a model too low).
    assert "INTERNAL_SERVER_ERROR" not in result.codes, result.body
    cost = result.cost
    worst = worst_of(case.access_pattern)
    assert cost["estimated"]["requests"] >= worst.requests
    assert cost["requests"] <= worst.requests, cost
    assert cost["itemsScanned"] <= max(worst.items, cost["estimated"]["itemsScanned"]), cost
    if case.reaches_worst and kind == "conflict":
        assert cost["requests"] == worst.requests, cost
