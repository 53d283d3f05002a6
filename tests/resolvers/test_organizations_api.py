"""Organizations through the API: lookup, members and admins A→Z, roles, teams.

Orders are checked against models (tests.resolvers.org_helpers), refusals against a scan of the
table taken before and after them.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from tests.client import Api
from tests.documents import (
    ADD_MEMBER,
    CREATE_ORGANIZATION,
    MEMBERS,
    ORGANIZATION,
    SET_MEMBER_ROLE,
    TEAMS,
)
from tests.resolvers.connections import assert_walks, flags
from tests.resolvers.org_helpers import (
    a_to_z,
    add_member,
    add_members,
    assert_not_found,
    create_org,
    create_team,
    create_teams,
    items_of_type,
    members,
    mixed_case_usernames,
    snapshot,
    usernames,
)

# ---- organizations -----------------------------------------------------------------------


async def test_create_and_look_up_ignoring_case(api: Api) -> None:
    created = await create_org(api, "AcMe-Labs")
    assert created["name"] == "AcMe-Labs"
    for spelling in ("AcMe-Labs", "acme-labs", "ACME-LABS", "aCmE-lAbS"):
        found = (await api(ORGANIZATION, name=spelling)).ok()["organization"]
        # Output keeps the case first given, whatever case the lookup used.
        assert found == created, spelling


async def test_duplicate_organization_is_conflict_and_keeps_the_first(
    api: Api, client: Any, table: str
) -> None:
    created = await create_org(api, "Acme")
    before = await snapshot(client, table)
    for spelling in ("Acme", "acme", "ACME"):
        result = await api(CREATE_ORGANIZATION, name=spelling)
        assert result.codes == ["CONFLICT"], (spelling, result.body)
        assert result.data is None
    assert await snapshot(client, table) == before
    assert (await api(ORGANIZATION, name="acme")).ok()["organization"] == created


async def test_missing_organization_is_null_with_or_without_children(api: Api) -> None:
    await create_org(api, "Acme")
    await add_member(api, "Acme", "alice", "ADMIN")
    await create_team(api, "Acme", "core")
    assert (await api(ORGANIZATION, name="Acme2")).ok() == {"organization": None}
    assert (await api(MEMBERS, name="nobody", first=5)).ok() == {"organization": None}
    assert (await api(TEAMS, name="nobody")).ok() == {"organization": None}
    everything = """{ organization(name: "nobody") { name
        members(first: 3) { edges { node { username } } }
        admins { edges { node { username } } }  teams { name } } }"""
    assert (await api(everything)).ok() == {"organization": None}


async def test_bad_names_are_bad_user_input(api: Api, client: Any, table: str) -> None:
    await create_org(api, "Acme")
    before = await snapshot(client, table)
    for bad in ("a#b", "a b", "", "a/b", "-a", "x" * 65):
        assert (await api(CREATE_ORGANIZATION, name=bad)).codes == ["BAD_USER_INPUT"], bad
        member = {"organization": "Acme", "username": bad, "name": "N", "role": "MEMBER"}
        assert (await api(ADD_MEMBER, input=member)).codes == ["BAD_USER_INPUT"], bad
        assert (await create_team(api, "Acme", bad)).codes == ["BAD_USER_INPUT"], bad
    assert await snapshot(client, table) == before


# ---- members -------------------------------------------------------------------------------


async def test_members_page_a_to_z_ignoring_case_both_ways(api: Api) -> None:
    await create_org(api, "Acme")
    names = mixed_case_usernames(35)
    await add_members(api, "Acme", dict.fromkeys(names, "MEMBER"))
    model = a_to_z(names)
    assert model != sorted(names)  # case matters to a plain sort: the test can tell

    await assert_walks(partial(members, api, "ACME"), model, 8, usernames)
    everything = await members(api, "acme", first=100)
    assert usernames(everything) == model and flags(everything) == (False, False)
    # Every edge carries what was given, in the case first given.
    nodes = {e["node"]["username"]: e["node"] for e in everything["edges"]}
    assert all(nodes[n]["name"] == f"Name of {n}" and nodes[n]["role"] == "MEMBER" for n in names)


async def test_every_member_cursor_resumes_after_and_before_itself(api: Api) -> None:
    await create_org(api, "Acme")
    names = mixed_case_usernames(12)
    await add_members(api, "Acme", dict.fromkeys(names, "MEMBER"))
    model = a_to_z(names)
    everything = await members(api, "Acme", first=100)
    for position, edge in enumerate(everything["edges"]):
        after = await members(api, "Acme", first=100, after=edge["cursor"])
        assert usernames(after) == model[position + 1 :]
        assert flags(after) == (True, False)
        before = await members(api, "Acme", last=100, before=edge["cursor"])
        assert usernames(before) == model[:position]
        assert flags(before) == (False, True)


async def test_duplicate_member_is_conflict_and_writes_nothing(
    api: Api, client: Any, table: str
) -> None:
    await create_org(api, "Acme")
    first = await add_member(api, "Acme", "Alice", "MEMBER", name="Alice A")
    before = await snapshot(client, table)
    for spelling, role in (("Alice", "MEMBER"), ("alice", "ADMIN"), ("ALICE", "MEMBER")):
        member = {"organization": "acme", "username": spelling, "name": "Other", "role": role}
        result = await api(ADD_MEMBER, input=member)
        assert result.codes == ["CONFLICT"], (spelling, result.body)
    assert await snapshot(client, table) == before
    listed = await members(api, "Acme")
    assert [e["node"] for e in listed["edges"]] == [first]
    assert (await members(api, "Acme", field="admins"))["edges"] == []


async def test_member_of_unknown_organization_is_not_found_and_writes_nothing(
    api: Api, client: Any, table: str
) -> None:
    await create_org(api, "Acme")
    members = [
        {"organization": org, "username": "alice", "name": "A", "role": role}
        for org in ("Acme2", "nobody")
        for role in ("MEMBER", "ADMIN")
    ]
    await assert_not_found(api, client, table, [(ADD_MEMBER, {"input": m}) for m in members])


# ---- admins and roles ------------------------------------------------------------------------


async def test_admins_are_the_admin_members_a_to_z(api: Api) -> None:
    await create_org(api, "Acme")
    names = mixed_case_usernames(20)
    roles = {n: "ADMIN" if i % 3 == 0 else "MEMBER" for i, n in enumerate(names)}
    await add_members(api, "Acme", roles)
    admins_model = a_to_z(n for n, r in roles.items() if r == "ADMIN")

    admins = partial(members, api, "acme", field="admins")
    await assert_walks(admins, admins_model, 3, usernames)
    listed = await members(api, "Acme", field="admins", first=100)
    assert {e["node"]["role"] for e in listed["edges"]} == {"ADMIN"}
    assert usernames(await members(api, "Acme", first=100)) == a_to_z(names)


async def test_role_changes_move_members_in_and_out_of_admins_at_once(
    api: Api, client: Any, table: str
) -> None:
    await create_org(api, "Acme")
    names = ["carol", "Alice", "dave", "Bob", "erin"]
    roles = dict.fromkeys(names, "MEMBER")
    roles["dave"] = "ADMIN"
    await add_members(api, "Acme", roles)

    async def check() -> None:
        admins = a_to_z(n for n, r in roles.items() if r == "ADMIN")
        assert usernames(await members(api, "Acme", field="admins", first=100)) == admins
        listed = await members(api, "Acme", first=100)
        assert usernames(listed) == a_to_z(names)
        assert {e["node"]["username"]: e["node"]["role"] for e in listed["edges"]} == roles
        stored = {i["username"]: i for i in await items_of_type(client, table, "MEMBER")}
        for name, role in roles.items():
            if role == "ADMIN":
                assert stored[name]["GSI3PK"] == "ORG#acme", stored[name]
                assert stored[name]["GSI3SK"] == f"USER#{name.lower()}", stored[name]
            else:
                assert "GSI3PK" not in stored[name] and "GSI3SK" not in stored[name], name

    await check()
    moves = [("bob", "Bob", "ADMIN"), ("ALICE", "Alice", "ADMIN"), ("Dave", "dave", "MEMBER")]
    moves += [("bob", "Bob", "MEMBER"), ("erin", "erin", "MEMBER"), ("alice", "Alice", "ADMIN")]
    for spelling, name, role in moves:
        changed = (await api(SET_MEMBER_ROLE, org="ACME", username=spelling, role=role)).ok()
        assert changed["setMemberRole"]["username"] == name
        assert changed["setMemberRole"]["role"] == role
        roles[name] = role
        await check()


async def test_role_of_a_non_member_is_not_found_and_writes_nothing(
    api: Api, client: Any, table: str
) -> None:
    await create_org(api, "Acme")
    await add_member(api, "Acme", "alice", "ADMIN")
    await create_org(api, "Other")
    before = await snapshot(client, table)
    for org, username in (("Acme", "bob"), ("Other", "alice"), ("nobody", "alice")):
        for role in ("ADMIN", "MEMBER"):
            result = await api(SET_MEMBER_ROLE, org=org, username=username, role=role)
            assert result.codes == ["NOT_FOUND"], (org, username, role, result.body)
    assert await snapshot(client, table) == before


# ---- teams ---------------------------------------------------------------------------------


async def test_teams_a_to_z_ignoring_case(api: Api, client: Any, table: str) -> None:
    await create_org(api, "Acme")
    assert (await api(TEAMS, name="Acme")).ok()["organization"]["teams"] == []
    names = ["web", "Backend", "api", "Zeta", "data-eng", "DevOps", "core.infra", "QA_1"]
    for name in names:
        made = (await create_team(api, "acme", name)).ok()["createTeam"]
        assert made["name"] == name
    await add_member(api, "Acme", "alice")  # members do not show up as teams
    teams = (await api(TEAMS, name="ACME")).ok()["organization"]["teams"]
    assert [t["name"] for t in teams] == a_to_z(names)

    before = await snapshot(client, table)
    for spelling in ("web", "WEB", "backend", "Data-Eng"):
        result = await create_team(api, "Acme", spelling)
        assert result.codes == ["CONFLICT"], (spelling, result.body)
    result = await create_team(api, "nobody", "web")
    assert result.codes == ["NOT_FOUND"], result.body
    assert await snapshot(client, table) == before


async def test_the_101st_team_is_conflict_and_writes_nothing(
    api: Api, client: Any, table: str
) -> None:
    await create_org(api, "Acme")
    names = [f"{'Team' if n % 2 else 'team'}-{n:03d}" for n in range(100)]
    await create_teams(api, "Acme", names[::-1])
    before = await snapshot(client, table)
    for extra in ("team-100", "Another"):
        result = await create_team(api, "Acme", extra)
        assert result.codes == ["CONFLICT"], result.body
    assert await snapshot(client, table) == before
    teams = (await api(TEAMS, name="Acme")).ok()["organization"]["teams"]
    assert [t["name"] for t in teams] == a_to_z(names)
    # A second organization has its own hundred.
    await create_org(api, "Other")
    assert (await create_team(api, "Other", "team-100")).ok()["createTeam"]["name"] == "team-100"
