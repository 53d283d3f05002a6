"""Organizations, members and teams (`data/organizations.py`) called straight against
DynamoDB Local: the sparse admins index (GSI3) follows every role change, on each of the
three paths a change can take, and the team count is kept in the same transactions."""

from __future__ import annotations

from typing import Any

import pytest

from data import organizations as data
from data.callers import OPEN, Caller
from data.organizations import Role
from keys.errors import Conflict
from store.client import Store
from store.loaders import ItemLoader
from store.requests import to_attributes
from tests.data.patterns_helpers import within_declared
from tests.table import scan_all

ALICE = Caller("Alice", display_name="Alice A.")


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
    # Each path: another's role as an ADMIN (a transaction, then a read), any role with no
    # rule (open mode: one update), one's own role (one update holding the rule).
    for caller, username, role, calls in [
        (ALICE, "bob", Role.ADMIN, 2),
        (OPEN, "BOB", Role.MEMBER, 1),
        (ALICE, "alice", Role.MEMBER, 1),
    ]:
        member, spent = await within_declared(
            store, data.set_member_role, ItemLoader(store), "ACME", username, role, caller=caller
        )
        assert (member.role, spent.requests) == (role, calls)
        item = (await stored(client, store.table))[f"USER#{username.lower()}"]
        assert data.Member.from_item(item) == member
        admin = ("ORG#acme", f"USER#{username.lower()}")
        assert admins_index(item) == (admin if role == Role.ADMIN else None)


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
