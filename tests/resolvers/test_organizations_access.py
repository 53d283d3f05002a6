"""Who may read and change organizations, members and teams (docs/identity.md), with real
tokens against DynamoDB Local. Reading is anyone's, creating an organization any signed-in
caller's (who becomes its first ADMIN member); adding members, changing roles and creating
teams belong to its ADMIN members, decided by a ConditionCheck in the write's own
transaction, so a demotion committed first always wins."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import replace
from typing import Any

import pytest

from gateway.settings import Settings
from tests.client import Api, Result
from tests.documents import (
    ADD_MEMBER,
    ADMINS,
    CREATE_ORGANIZATION,
    CREATE_TEAM,
    MEMBERS,
    ORGANIZATION,
    SET_MEMBER_ROLE,
    TEAMS,
)
from tests.faults import FaultProxy, _Request, without_backoff
from tests.identity import SECURED, as_user, open_mode
from tests.resolvers.org_helpers import items_of_type, members, refused, roles, snapshot, usernames

ORG_NAME = "Acme"
pytestmark = pytest.mark.overrides(**SECURED)


def change_role(
    api: Api, username: str, role: str, org: str = ORG_NAME
) -> Coroutine[Any, Any, Result]:
    """`setMemberRole` of `username` in `org`, asked by `api`'s caller."""
    return api(SET_MEMBER_ROLE, org=org, username=username, role=role)


async def acme(api: Api) -> None:
    """Acme, created by alice; Carol an ADMIN member, bob and erin plain members."""
    alice = as_user(api, "alice")
    (await alice(CREATE_ORGANIZATION, name=ORG_NAME)).ok()
    for username, role in (("Carol", "ADMIN"), ("bob", "MEMBER"), ("erin", "MEMBER")):
        member = {"organization": ORG_NAME, "username": username, "name": "N", "role": role}
        (await alice(ADD_MEMBER, input=member)).ok()


# ---- reads and createOrganization --------------------------------------------------------


async def test_an_organization_and_its_lists_are_anyones_to_read(api: Api) -> None:
    await acme(api)
    (await as_user(api, "alice")(CREATE_TEAM, org=ORG_NAME, name="core")).ok()
    for reader in (api, as_user(api, "stranger")):
        assert (await reader(ORGANIZATION, name="acme")).ok()["organization"]["name"] == ORG_NAME
        listed = (await reader(MEMBERS, name="acme")).ok()["organization"]["members"]
        assert usernames(listed) == ["alice", "bob", "Carol", "erin"]
        admins = (await reader(ADMINS, name="acme")).ok()["organization"]["admins"]
        assert usernames(admins) == ["alice", "Carol"]
        teams = (await reader(TEAMS, name="acme")).ok()["organization"]["teams"]
        assert [t["name"] for t in teams] == ["core"]


async def test_an_organization_is_created_signed_in_and_its_creator_is_its_first_admin(
    api: Api, client: Any, table: str
) -> None:
    refused(await api(CREATE_ORGANIZATION, name=ORG_NAME), "UNAUTHENTICATED", requests=0)
    assert await snapshot(client, table) == []
    alice = as_user(api, "Alice", name="Alice A.")
    created = (await alice(CREATE_ORGANIZATION, name=ORG_NAME)).ok()["createOrganization"]
    admins = await members(api, ORG_NAME, field="admins")
    [creator] = [e["node"] for e in admins["edges"]]
    assert (creator["username"], creator["name"], creator["role"]) == ("Alice", "Alice A.", "ADMIN")
    assert creator["joinedAt"] == created["createdAt"]
    # Without a name in the token the member is named by the username; an admin is one too.
    (await as_user(api, "bob")(CREATE_ORGANIZATION, name="Globex")).ok()
    (await as_user(api, "root", admin=True)(CREATE_ORGANIZATION, name="Initech")).ok()
    assert await roles(api, "Globex") == {"bob": "ADMIN"}
    assert [e["node"]["name"] for e in (await members(api, "Globex"))["edges"]] == ["bob"]
    assert await roles(api, "Initech") == {"root": "ADMIN"}
    # Taken: CONFLICT, and no second member either.
    before = await snapshot(client, table)
    refused(await as_user(api, "carol")(CREATE_ORGANIZATION, name="ACME"), "CONFLICT", requests=1)
    assert await snapshot(client, table) == before


async def test_in_open_mode_an_organization_has_no_first_member(api: Api) -> None:
    async with open_mode(api) as opened:
        (await opened(CREATE_ORGANIZATION, name=ORG_NAME)).ok()
        assert await roles(opened, ORG_NAME) == {}


@pytest.fixture
async def faulty(proxy: FaultProxy, settings: Settings) -> AsyncIterator[Api]:
    """The gateway under test, reaching DynamoDB Local through the fault proxy."""
    async with Api.serving(replace(settings, endpoint=proxy.url)) as running:
        yield running


async def test_a_lost_answer_creates_one_organization_and_one_member(
    monkeypatch: pytest.MonkeyPatch, proxy: FaultProxy, faulty: Api, client: Any, table: str
) -> None:
    without_backoff(monkeypatch)
    rule = proxy.inject("TransactWriteItems", "lose", count=1)
    (await as_user(faulty, "alice")(CREATE_ORGANIZATION, name=ORG_NAME)).ok()
    assert rule.hits == 1 and proxy.calls["TransactWriteItems"] == 2
    assert [o["name"] for o in await items_of_type(client, table, "ORGANIZATION")] == [ORG_NAME]
    assert [m["username"] for m in await items_of_type(client, table, "MEMBER")] == ["alice"]


# ---- addMember, setMemberRole, createTeam: ADMIN members -------------------------------------

# Each operation on an organization, made distinct by `n` so that every call can succeed.
Operation = Callable[[Api, str, int], Awaitable[Result]]


async def add(api: Api, org: str, n: int) -> Result:
    member = {"organization": org, "username": f"new{n}", "name": "N", "role": "MEMBER"}
    return await api(ADD_MEMBER, input=member)


async def set_role(api: Api, org: str, n: int) -> Result:
    return await change_role(api, "ERIN", "ADMIN" if n % 2 else "MEMBER", org=org)


async def team(api: Api, org: str, n: int) -> Result:
    return await api(CREATE_TEAM, org=org, name=f"team{n}")


OPERATIONS: dict[str, Operation] = {"addMember": add, "setMemberRole": set_role, "createTeam": team}
# DynamoDB calls of a refusal to a non-member: the transaction, and for setMemberRole a read
# telling a missing organization (NOT_FOUND) from another's (FORBIDDEN).
REFUSAL_CALLS = {"addMember": 1, "setMemberRole": 2, "createTeam": 1}


@pytest.mark.parametrize("field", OPERATIONS)
async def test_only_admin_members_and_admins_change_an_organization(
    api: Api, client: Any, table: str, field: str
) -> None:
    operation = OPERATIONS[field]
    await acme(api)
    (await as_user(api, "dave")(CREATE_ORGANIZATION, name="Other")).ok()
    before = await snapshot(client, table)
    refused(await operation(api, ORG_NAME, 1), "UNAUTHENTICATED", requests=0)
    non_member = REFUSAL_CALLS[field]
    refused(await operation(as_user(api, "dave"), ORG_NAME, 1), "FORBIDDEN", non_member)
    refused(await operation(as_user(api, "Bob"), ORG_NAME, 1), "FORBIDDEN", requests=1)
    # An ADMIN member elsewhere is no ADMIN member here; a missing organization comes first.
    refused(await operation(as_user(api, "dave"), "nowhere", 1), "NOT_FOUND", requests=1)
    refused(await operation(as_user(api, "carol"), "nowhere", 1), "NOT_FOUND")
    refused(await operation(as_user(api, "root", admin=True), "nowhere", 1), "NOT_FOUND")
    assert await snapshot(client, table) == before

    # An ADMIN member, whatever the case of the token's username, and an admin.
    for n, caller in enumerate((as_user(api, "CAROL"), as_user(api, "root", admin=True)), 1):
        assert not await applied(api, field, n)
        (await operation(caller, ("acme", "ACME")[n - 1], n)).ok()
        assert await applied(api, field, n)


async def applied(api: Api, field: str, n: int) -> bool:
    """Whether the call `n` of `OPERATIONS[field]` shows in what anyone can read."""
    if field == "createTeam":
        teams = (await api(TEAMS, name=ORG_NAME)).ok()["organization"]["teams"]
        return f"team{n}" in [t["name"] for t in teams]
    listed = await roles(api, ORG_NAME)
    if field == "addMember":
        return f"new{n}" in listed
    return listed["erin"] == ("ADMIN" if n % 2 else "MEMBER")


async def test_an_admin_member_changing_a_role_hears_the_member_as_stored(api: Api) -> None:
    await acme(api)
    changed = await change_role(as_user(api, "carol"), "ERIN", "ADMIN", org="acme")
    admins = (await members(api, ORG_NAME, field="admins"))["edges"]
    assert changed.ok()["setMemberRole"] == next(
        e["node"] for e in admins if e["node"]["username"] == "erin"
    )
    # The transaction answers nothing: the member is read after it.
    assert changed.cost["requests"] == 2


async def test_a_conflict_comes_after_the_callers_role(api: Api, client: Any, table: str) -> None:
    await acme(api)
    bob = as_user(api, "bob")
    (await as_user(api, "carol")(CREATE_TEAM, org=ORG_NAME, name="core")).ok()
    before = await snapshot(client, table)
    taken = {"organization": ORG_NAME, "username": "ERIN", "name": "N", "role": "ADMIN"}
    refused(await bob(ADD_MEMBER, input=taken), "FORBIDDEN")
    refused(await bob(CREATE_TEAM, org=ORG_NAME, name="Core"), "FORBIDDEN")
    # A missing member to change is NOT_FOUND before the caller's role is looked at.
    refused(await change_role(bob, "nobody", "ADMIN"), "NOT_FOUND")
    carol = as_user(api, "carol")
    refused(await carol(ADD_MEMBER, input=taken), "CONFLICT")
    refused(await carol(CREATE_TEAM, org=ORG_NAME, name="Core"), "CONFLICT")
    refused(await change_role(carol, "nobody", "ADMIN"), "NOT_FOUND")
    assert await snapshot(client, table) == before


# ---- oneself -------------------------------------------------------------------------------


async def test_adding_oneself_is_refused_unless_unrestricted(
    api: Api, client: Any, table: str
) -> None:
    await acme(api)
    before = await snapshot(client, table)

    async def add_self(username: str, org: str = ORG_NAME, *, admin: bool = False) -> Result:
        member = {"organization": org, "username": username, "name": "N", "role": "ADMIN"}
        return await as_user(api, username.upper(), admin=admin)(ADD_MEMBER, input=member)

    refused(await add_self("carol"), "CONFLICT", requests=1)  # an ADMIN member already
    refused(await add_self("bob"), "FORBIDDEN", requests=1)
    refused(await add_self("dave"), "FORBIDDEN", requests=2)
    refused(await add_self("dave", "nowhere"), "NOT_FOUND", requests=2)
    assert await snapshot(client, table) == before
    (await add_self("root", admin=True)).ok()
    assert (await roles(api, ORG_NAME))["root"] == "ADMIN"


async def test_an_admin_member_may_change_their_own_role_once(
    api: Api, client: Any, table: str
) -> None:
    await acme(api)
    carol = as_user(api, "CAROL")
    kept = (await change_role(carol, "carol", "ADMIN")).ok()
    assert kept["setMemberRole"]["role"] == "ADMIN"
    demoted = await change_role(carol, "Carol", "MEMBER")
    assert demoted.ok()["setMemberRole"] == {**kept["setMemberRole"], "role": "MEMBER"}
    # The admins index names alice, who stays ADMIN; the transaction; the member read.
    assert demoted.cost["requests"] == 3
    assert usernames(await members(api, ORG_NAME, field="admins")) == ["alice"]
    before = await snapshot(client, table)
    refused(await change_role(carol, "carol", "ADMIN"), "FORBIDDEN", 1)
    bob = as_user(api, "bob")
    refused(await change_role(bob, "bob", "ADMIN"), "FORBIDDEN", 1)
    dave = as_user(api, "dave")
    # Not a member: the member to change is missing.
    refused(await change_role(dave, "dave", "ADMIN"), "NOT_FOUND", 1)
    refused(await change_role(dave, "dave", "ADMIN", org="nowhere"), "NOT_FOUND", 1)
    assert await snapshot(client, table) == before
    # The last ADMIN member may not step down (docs/design.md): the organization keeps one.
    refused(await change_role(as_user(api, "alice"), "alice", "MEMBER"), "CONFLICT", 2)
    assert await snapshot(client, table) == before


async def test_a_self_demotion_whose_answer_is_lost_succeeds(
    monkeypatch: pytest.MonkeyPatch, api: Api, proxy: FaultProxy, faulty: Api
) -> None:
    without_backoff(monkeypatch)
    await acme(api)
    rule = proxy.inject("TransactWriteItems", "lose", count=1)
    carol = as_user(faulty, "carol")
    demoted = (await change_role(carol, "carol", "MEMBER")).ok()
    assert demoted["setMemberRole"]["role"] == "MEMBER"
    # Botocore resends the transaction with its token: applied once, answered the second time.
    assert rule.hits == 1 and proxy.calls["TransactWriteItems"] == 2
    assert (await roles(api, ORG_NAME))["Carol"] == "MEMBER"


# ---- a demotion racing the demoted member's change ---------------------------------------------


class HoldingProxy(FaultProxy):
    """Holds the first write it is sent until `release`, with `held` set meanwhile."""

    WRITES = frozenset({"TransactWriteItems", "UpdateItem", "PutItem", "DeleteItem"})

    def __init__(self, upstream: str) -> None:
        super().__init__(upstream)
        self.held = asyncio.Event()
        self.release = asyncio.Event()

    async def _answer(self, request: _Request, writer: asyncio.StreamWriter) -> bool:
        operation = request.header("x-amz-target").rpartition(".")[2]
        if operation in self.WRITES and not self.held.is_set():
            self.held.set()
            await self.release.wait()
        return await super()._answer(request, writer)


async def test_a_change_held_until_its_maker_is_demoted_is_forbidden(
    api: Api, endpoint: str, settings: Settings
) -> None:
    """Whatever the caller's role when the change set out, it is their role when the
    write commits that counts."""
    await acme(api)
    async with HoldingProxy(endpoint) as holding:
        held_settings = replace(settings, endpoint=holding.url)
        async with Api.serving(held_settings) as through:
            change = asyncio.create_task(change_role(as_user(through, "carol"), "bob", "ADMIN"))
            await asyncio.wait_for(holding.held.wait(), 5)
            alice = as_user(api, "alice")
            (await change_role(alice, "carol", "MEMBER")).ok()
            holding.release.set()
            refused(await change, "FORBIDDEN")
    assert await roles(api, ORG_NAME) == {
        "alice": "ADMIN",
        "bob": "MEMBER",
        "Carol": "MEMBER",
        "erin": "MEMBER",
    }


async def after(pause: float, call: Awaitable[Result]) -> Result:
    await asyncio.sleep(pause)
    return await call


async def test_a_demoted_member_never_changes_a_role_after_the_demotion(api: Api) -> None:
    """Rounds of {alice demotes Carol, Carol promotes bob} at once, either a little ahead:
    Carol's change is applied exactly when she hears it was, so bob is ADMIN only then."""
    await acme(api)
    alice, carol = as_user(api, "alice"), as_user(api, "carol")
    for round in range(16):
        (await change_role(alice, "carol", "ADMIN")).ok()
        (await change_role(alice, "bob", "MEMBER")).ok()
        ahead = (round % 4) * 0.002
        demotion, change = await asyncio.gather(
            after(ahead, change_role(alice, "carol", "MEMBER")),
            after(0.004 - ahead, change_role(carol, "bob", "ADMIN")),
        )
        assert demotion.codes in ([], ["CONFLICT"]), demotion.body
        assert change.codes in ([], ["FORBIDDEN"], ["CONFLICT"]), change.body
        now = await roles(api, ORG_NAME)
        assert (now["bob"] == "ADMIN") == (change.codes == []), (change.body, now)


# ---- cost ---------------------------------------------------------------------------------


async def costs(api: Api, org: str) -> dict[str, dict[str, Any]]:
    """What each mutation made by `api` costs, on a new organization `org`."""
    made = await api(CREATE_ORGANIZATION, name=org)
    added = await add(api, org, 1)
    changed = await change_role(api, "new1", "ADMIN", org=org)
    created = await team(api, org, 1)
    for result in (made, added, changed, created):
        result.ok()
    return {
        "createOrganization": made.cost,
        "addMember": added.cost,
        "setMemberRole": changed.cost,
        "createTeam": created.cost,
    }


def figures(cost: dict[str, Any]) -> tuple[int, float, float]:
    return cost["requests"], cost["readCapacityUnits"], cost["writeCapacityUnits"]


async def test_what_authorization_costs_against_open_mode(api: Api) -> None:
    """Requests as in open mode, but one more read (of the member, after its transaction)
    for an ADMIN member changing another's role; an admin's calls are open mode's own, but
    for the member `createOrganization` writes in the same transaction."""
    async with open_mode(api) as opened:
        unchecked = await costs(opened, "Open")
    member = await costs(as_user(api, "alice"), "Checked")
    admin = await costs(as_user(api, "root", admin=True), "Admin")
    extra_requests = {"setMemberRole": 1}
    for field, cost in unchecked.items():
        requests, reads, writes = figures(cost)
        assert figures(member[field])[:2] == (
            requests + extra_requests.get(field, 0),
            reads + (0.5 if field == "setMemberRole" else 0),
        ), (field, cost, member[field])
        assert figures(member[field])[2] >= writes, (field, cost, member[field])
        if field != "createOrganization":
            assert figures(admin[field]) == (requests, reads, writes), (field, admin[field])
    assert figures(admin["createOrganization"]) == figures(member["createOrganization"])
