"""Cost of organizations and ticket queues read with their first pages, from `extensions.cost`.

A child page that begins at its parent is read by the same Query as the parent. Counts are
deterministic, so they are asserted, together with data equal to the model; speed lives
in `make bench`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from store.requests import to_attributes
from tests.client import Api
from tests.resolvers.org_helpers import (
    TICK,
    a_to_z,
    add_members,
    create_org,
    create_teams,
    mixed_case_usernames,
    most_recently_updated_first,
    open_tickets,
    update_ticket,
)

MEMBER_PAGE = "edges { node { username role } } pageInfo { hasNextPage hasPreviousPage }"


@dataclass
class Org:
    members: list[str]
    admins: list[str]
    teams: list[str]


async def acme(api: Api) -> Org:
    """30 members, 10 of them admins, and 5 teams; the model of each list A→Z."""
    await create_org(api, "Acme")
    names = mixed_case_usernames(30)
    roles = {n: "ADMIN" if i % 3 == 0 else "MEMBER" for i, n in enumerate(names)}
    await add_members(api, "Acme", roles)
    teams = ["web", "Backend", "api", "Zeta", "DevOps"]
    await create_teams(api, "Acme", teams)
    admins = [n for n, r in roles.items() if r == "ADMIN"]
    assert len(admins) == 10
    return Org(a_to_z(names), a_to_z(admins), a_to_z(teams))


def names(connection: dict[str, Any]) -> list[str]:
    return [e["node"]["username"] for e in connection["edges"]]


def page_flags(connection: dict[str, Any]) -> tuple[bool, bool]:
    info = connection["pageInfo"]
    return info["hasPreviousPage"], info["hasNextPage"]


# ---- organizations -----------------------------------------------------------------------


async def test_organization_with_first_members_is_one_query(api: Api) -> None:
    model = await acme(api)
    result = await api(
        f'{{ organization(name: "acme") {{ name members(first: 10) {{ {MEMBER_PAGE} }} }} }}'
    )
    org = result.ok()["organization"]
    assert org["name"] == "Acme"
    assert names(org["members"]) == model.members[:10]
    assert page_flags(org["members"]) == (False, True)
    assert result.cost["requests"] == 1
    assert result.cost["itemsScanned"] <= 12


async def test_organization_with_teams_is_one_query(api: Api) -> None:
    model = await acme(api)
    result = await api('{ organization(name: "Acme") { name teams { name } } }')
    org = result.ok()["organization"]
    assert [t["name"] for t in org["teams"]] == model.teams
    assert result.cost["requests"] == 1
    assert result.cost["itemsScanned"] <= len(model.teams) + 1


async def test_organization_with_first_admins_is_one_query(api: Api) -> None:
    model = await acme(api)
    result = await api(
        f'{{ organization(name: "ACME") {{ admins(first: 5) {{ {MEMBER_PAGE} }} }} }}'
    )
    admins = result.ok()["organization"]["admins"]
    assert names(admins) == model.admins[:5]
    assert {e["node"]["role"] for e in admins["edges"]} == {"ADMIN"}
    assert page_flags(admins) == (False, True)
    assert result.cost["requests"] == 1
    assert result.cost["itemsScanned"] <= 7


async def test_organization_with_all_three_is_one_query_each(api: Api) -> None:
    model = await acme(api)
    result = await api(
        f"""{{ organization(name: "Acme") {{ name members(first: 10) {{ {MEMBER_PAGE} }}
              teams {{ name }} admins(first: 5) {{ {MEMBER_PAGE} }} }} }}"""
    )
    org = result.ok()["organization"]
    assert org["name"] == "Acme"
    assert names(org["members"]) == model.members[:10]
    assert [t["name"] for t in org["teams"]] == model.teams
    assert names(org["admins"]) == model.admins[:5]
    assert result.cost["requests"] == 3
    assert result.cost["itemsScanned"] <= 12 + len(model.teams) + 1 + 7


async def test_organization_alone_is_one_read(api: Api) -> None:
    await acme(api)
    result = await api('{ organization(name: "Acme") { name createdAt } }')
    assert result.ok()["organization"]["name"] == "Acme"
    assert result.cost["requests"] == 1
    assert result.cost["itemsScanned"] == 1


async def test_aliases_fragments_variables_and_directives_are_looked_ahead(api: Api) -> None:
    model = await acme(api)
    result = await api(
        """query ($n: Int!, $skip: Boolean!) { organization(name: "Acme") {
             ...Heads  few: members(first: 3) @include(if: true) { edges { node { username } } }
             skipped: admins(first: 2) @skip(if: $skip) { edges { node { username } } } } }
           fragment Heads on Organization {
             ... on Organization { many: members(first: $n) { edges { node { username } } } } }""",
        n=7,
        skip=True,
    )
    org = result.ok()["organization"]
    assert names(org["many"]) == model.members[:7]
    assert names(org["few"]) == model.members[:3]
    assert "skipped" not in org
    assert result.cost["requests"] == 2
    assert result.cost["itemsScanned"] <= (7 + 2) + (3 + 2)


async def test_pages_not_beginning_at_the_organization_read_on_their_own(api: Api) -> None:
    model = await acme(api)
    first = await api(
        '{ organization(name: "Acme") { members(first: 5) { pageInfo { endCursor } } } }'
    )
    cursor = first.ok()["organization"]["members"]["pageInfo"]["endCursor"]
    after = await api(
        'query ($c: String!) { organization(name: "Acme") { members(first: 5, after: $c) '
        "{ edges { node { username } } } } }",
        c=cursor,
    )
    assert names(after.ok()["organization"]["members"]) == model.members[5:10]
    # The organization by key, then the page after the cursor.
    assert after.cost["requests"] == 2
    last = await api(
        '{ organization(name: "Acme") { members(last: 5) { edges { node { username } } } } }'
    )
    assert names(last.ok()["organization"]["members"]) == model.members[-5:]
    assert last.cost["requests"] == 2


async def test_missing_organization_with_members_is_one_query(api: Api) -> None:
    await acme(api)
    result = await api(
        f'{{ organization(name: "Acme2") {{ name members(first: 10) {{ {MEMBER_PAGE} }} }} }}'
    )
    assert result.ok() == {"organization": None}
    assert result.cost["requests"] == 1
    assert result.cost["itemsScanned"] == 0


# ---- ticket queues ---------------------------------------------------------------------------


async def support_queue(api: Api, count: int = 25) -> list[str]:
    """A queue of `count` tickets, a few of them updated since; the model's order."""
    known = await open_tickets(api, count)
    for ticket_id in list(known)[::5]:
        await asyncio.sleep(TICK)
        known[ticket_id] = await update_ticket(api, ticket_id, status="IN_PROGRESS")
    return most_recently_updated_first(known.values())


async def test_queue_with_first_tickets_is_one_query(api: Api) -> None:
    model = await support_queue(api)
    result = await api(
        '{ queue(id: "support") { name tickets(first: 10) { edges { node { id } } '
        "pageInfo { hasNextPage hasPreviousPage } } } }"
    )
    queue = result.ok()["queue"]
    assert queue["name"] == "Support"
    assert [e["node"]["id"] for e in queue["tickets"]["edges"]] == model[:10]
    assert page_flags(queue["tickets"]) == (False, True)
    assert result.cost["requests"] == 1
    assert result.cost["itemsScanned"] <= 12


async def test_queue_alone_is_one_read_and_a_missing_one_is_confirmed(api: Api) -> None:
    await support_queue(api, 3)
    alone = await api('{ queue(id: "support") { id name } }')
    assert alone.ok() == {"queue": {"id": "support", "name": "Support"}}
    assert alone.cost["requests"] == 1
    missing = await api(
        '{ queue(id: "billing") { name tickets(first: 10) { edges { node { id } } } } }'
    )
    assert missing.ok() == {"queue": None}
    # Nothing in the (eventually consistent) index: the table confirms the miss.
    assert missing.cost["requests"] == 2


async def test_a_parent_not_yet_in_its_index_is_found_on_the_table(
    api: Api, client: Any, table: str
) -> None:
    """Secondary indexes are eventually consistent: a parent that is not in one yet (written
    here without its index attributes) is confirmed on the table, never reported missing."""
    lagging = [
        {"type": "ORGANIZATION", "name": "Lag", "createdAt": "2024-01-01T00:00:00.000Z"},
        {"type": "QUEUE", "id": "lag", "name": "Lag", "createdAt": "2024-01-01T00:00:00.000Z"},
    ]
    for key, item in zip(("ORG#lag", "QUEUE#lag"), lagging, strict=True):
        await client.put_item(TableName=table, Item=to_attributes({"PK": key, "SK": key, **item}))
    admins = await api(
        '{ organization(name: "lag") { name admins(first: 5) { edges { cursor } } } }'
    )
    assert admins.ok() == {"organization": {"name": "Lag", "admins": {"edges": []}}}
    assert admins.cost["requests"] == 2  # the index Query, then the table's GetItem
    queue = await api('{ queue(id: "lag") { name tickets(first: 5) { edges { cursor } } } }')
    assert queue.ok() == {"queue": {"name": "Lag", "tickets": {"edges": []}}}
    assert queue.cost["requests"] == 2
    missing = await api('{ queue(id: "nope") { name tickets(first: 5) { edges { cursor } } } }')
    assert missing.ok() == {"queue": None}
