"""Organizations, members and teams (`demo/model/organizations.py`, `demo/organizations.py`)
called straight against DynamoDB Local: the sparse admins index (GSI3) follows every role
change, on each of the three paths a change can take, and the team count is kept in the
same transactions."""

from __future__ import annotations

from typing import Any

import pytest

from data.callers import OPEN, Caller
from demo.model.organizations import Role
from errors.vocabulary import Conflict, Forbidden, NotFound
from store.client import Store
from store.loaders import ItemLoader
from store.requests import to_attributes
from tests import demo_organizations as data
from tests.data.patterns_helpers import within_declared
from tests.data.races import interleave_query
from tests.table import scan_all

ALICE = Caller("Alice", display_name="Alice A.")
CAROL = Caller("carol")
ROOT = Caller("root", admin=True)


async def stored(client: Any, table: str) -> dict[str, dict[str, Any]]:
    return {i["SK"]: i for i in await scan_all(client, table)}


def admins_index(item: dict[str, Any]) -> tuple[str, str] | None:
    return (item["GSI3PK"], item["GSI3SK"]) if "GSI3PK" in item else None


async def test_the_creator_is_the_first_admin_and_roles_move_members_in_and_out(
    store: Store, client: Any
) -> None:
    made, spent = await within_declared(store, data.create_organization, "Acme", caller=ALICE)
    assert spent.requests == 1
    items = await stored(client, store.table)
    assert set(items) == {"ORG#acme", "USER#alice"}
    assert data.Organization.from_item(items["ORG#acme"]) == made
    assert (items["ORG#acme"]["teamCount"], admins_index(items["ORG#acme"])) == (
        0,
        ("ORG#acme", "ORG#acme"),
    )
    creator = items["USER#alice"]
    assert (creator["username"], creator["name"], creator["role"]) == ("Alice", "Alice A.", "ADMIN")
    assert (creator["joinedAt"], admins_index(creator)) == (
        items["ORG#acme"]["createdAt"],
        ("ORG#acme", "USER#alice"),
    )

    await data.add_member(store, "acme", "Bob", "Bob B.", Role.MEMBER, caller=ALICE)
    assert admins_index((await stored(client, store.table))["USER#bob"]) is None
    # Each path: another's role as an ADMIN member (a transaction, then a read); ADMIN with
    # no rule (open mode: one update), one's own ADMIN role (one update holding the rule); a
    # demotion with no rule or of oneself (the admins index read for another ADMIN member, a
    # transaction, then a read).
    for caller, username, role, calls in [
        (ALICE, "bob", Role.ADMIN, 2),
        (OPEN, "BOB", Role.MEMBER, 3),
        (OPEN, "bob", Role.ADMIN, 1),
        (ALICE, "alice", Role.ADMIN, 1),
        (ALICE, "alice", Role.MEMBER, 3),
    ]:
        member, spent = await within_declared(
            store, data.set_member_role, ItemLoader(store), "ACME", username, role, caller=caller
        )
        assert (member.role, spent.requests) == (role, calls)
        item = (await stored(client, store.table))[f"USER#{username.lower()}"]
        assert data.Member.from_item(item) == member
        admin = ("ORG#acme", f"USER#{username.lower()}")
        assert admins_index(item) == (admin if role == Role.ADMIN else None)


async def test_the_last_admin_member_stays_whoever_demotes_them(store: Store, client: Any) -> None:
    await data.create_organization(store, "Acme", caller=ALICE)
    await data.add_member(store, "acme", "bob", "Bob B.", Role.MEMBER, caller=ALICE)
    before = await stored(client, store.table)

    async def demote(username: str, caller: Caller) -> tuple[data.Member, Any]:
        return await within_declared(
            store, data.set_member_role, ItemLoader(store), "acme", username, Role.MEMBER,
            caller=caller,
        )  # fmt: skip

    for caller in (ALICE, OPEN, ROOT):
        with pytest.raises(Conflict, match="'alice' is the only ADMIN member of 'acme'"):
            await demote("alice", caller)
    # A MEMBER stays one; a member who is not ADMIN changes no role; a non-member is not
    # found.
    kept, _ = await demote("bob", OPEN)
    assert kept.role == Role.MEMBER
    with pytest.raises(Forbidden):
        await demote("bob", Caller("bob"))
    with pytest.raises(NotFound):
        await demote("nobody", ROOT)
    assert await stored(client, store.table) == before
    # With no ADMIN member at all (made in open mode), a MEMBER is read, not written.
    await data.create_organization(store, "Initech")
    await data.add_member(store, "initech", "bob", "Bob B.", Role.MEMBER)
    initech = await scan_all(client, store.table)
    kept, spent = await within_declared(
        store, data.set_member_role, ItemLoader(store), "initech", "bob", Role.MEMBER
    )
    assert (kept.role, spent.requests) == (Role.MEMBER, 2)
    assert await scan_all(client, store.table) == initech

    # With another ADMIN member, the same demotion is made.
    await data.set_member_role(store, ItemLoader(store), "acme", "bob", Role.ADMIN, caller=ALICE)
    demoted, spent = await demote("alice", ALICE)
    assert (demoted.role, spent.requests) == (Role.MEMBER, 3)
    items = await stored(client, store.table)
    assert [sk for sk, item in items.items() if sk.startswith("USER#") and admins_index(item)] == [
        "USER#bob"
    ]


async def test_a_demotion_whose_witness_steps_down_first_is_refused(
    store: Store, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice steps down, and the admins index names Carol as the ADMIN member who stays;
    Carol steps down right after that read (naming alice). Alice's write then finds Carol
    no longer ADMIN, so it is refused: the organization keeps alice."""
    await data.create_organization(store, "acme", caller=ALICE)
    await data.add_member(store, "acme", "carol", "Carol C.", Role.ADMIN, caller=ALICE)

    async def carol_steps_down(other: Store, items: ItemLoader) -> None:
        await data.set_member_role(other, items, "acme", "carol", Role.MEMBER, caller=CAROL)

    interleave_query(monkeypatch, client, store.table, carol_steps_down)
    with pytest.raises(Conflict, match="the ADMIN members changed meanwhile; try again"):
        await data.set_member_role(
            store, ItemLoader(store), "acme", "alice", Role.MEMBER, caller=ALICE
        )
    items = await stored(client, store.table)
    roles = {sk: (item["role"], admins_index(item)) for sk, item in items.items() if "role" in item}
    assert roles == {
        "USER#alice": ("ADMIN", ("ORG#acme", "USER#alice")),
        "USER#carol": ("MEMBER", None),
    }


async def test_teams_are_counted_up_to_the_most_an_organization_has(
    store: Store, client: Any
) -> None:
    await data.create_organization(store, "acme")
    team, spent = await within_declared(store, data.create_team, "acme", "Core")
    assert spent.requests == 1
    items = await stored(client, store.table)
    assert (items["ORG#acme"]["teamCount"], data.Team.from_item(items["#TEAM#core"])) == (1, team)

    key = to_attributes({"PK": "ORG#acme", "SK": "ORG#acme"})
    await client.update_item(
        TableName=store.table,
        Key=key,
        UpdateExpression="SET teamCount = :most",
        ExpressionAttributeValues={":most": {"N": "100"}},
    )
    with pytest.raises(Conflict, match="has 100 teams, the most it can have"):
        await data.create_team(store, "acme", "Docs")
    items = await stored(client, store.table)
    assert "#TEAM#docs" not in items and items["ORG#acme"]["teamCount"] == 100
