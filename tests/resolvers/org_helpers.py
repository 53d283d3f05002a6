"""Shared helpers of the organization and ticket queue tests: documents, models, table reads.

Expected orders come from models kept here (API.md section 3), never from the code under
test: members and teams A→Z ignoring case, tickets most recently updated first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any

from tests.client import Api, Result
from tests.table import scan_all

Connection = dict[str, Any]

# ---- organizations ---------------------------------------------------------------------

CREATE_ORG = """mutation ($name: String!) {
  createOrganization(input: {name: $name}) { name createdAt } }"""
ORG = "query ($name: String!) { organization(name: $name) { name createdAt } }"
ADD_MEMBER = """mutation ($input: AddMemberInput!) {
  addMember(input: $input) { username name role joinedAt } }"""
SET_ROLE = """mutation ($org: String!, $username: String!, $role: Role!) {
  setMemberRole(organization: $org, username: $username, role: $role) {
    username name role joinedAt } }"""
CREATE_TEAM = """mutation ($org: String!, $name: String!) {
  createTeam(organization: $org, name: $name) { name createdAt } }"""
MEMBER_CONNECTION = """edges { cursor node { username name role joinedAt } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }"""
MEMBERS = f"""query ($name: String!, $first: Int, $after: String, $last: Int, $before: String) {{
  organization(name: $name) {{
    members(first: $first, after: $after, last: $last, before: $before) {{
      {MEMBER_CONNECTION} }} }} }}"""
ADMINS = f"""query ($name: String!, $first: Int, $after: String, $last: Int, $before: String) {{
  organization(name: $name) {{
    admins(first: $first, after: $after, last: $last, before: $before) {{
      {MEMBER_CONNECTION} }} }} }}"""
TEAMS = "query ($name: String!) { organization(name: $name) { name teams { name createdAt } } }"

# ---- ticket queues ---------------------------------------------------------------------

CREATE_QUEUE = """mutation ($input: CreateQueueInput!) { createQueue(input: $input) { id name } }"""
QUEUE = "query ($id: ID!) { queue(id: $id) { id name } }"
TICKET_FIELDS = "id title status createdAt updatedAt"
OPEN_TICKET = f"""mutation ($input: OpenTicketInput!) {{
  openTicket(input: $input) {{ {TICKET_FIELDS} }} }}"""
UPDATE_TICKET = f"""mutation ($input: UpdateTicketInput!) {{
  updateTicket(input: $input) {{ {TICKET_FIELDS} }} }}"""
TICKET = f"query ($id: ID!) {{ ticket(id: $id) {{ {TICKET_FIELDS} }} }}"
TICKETS = f"""query ($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {{
  queue(id: $id) {{ id name
    tickets(first: $first, after: $after, last: $last, before: $before) {{
      edges {{ cursor node {{ {TICKET_FIELDS} }} }}
      pageInfo {{ hasNextPage hasPreviousPage startCursor endCursor }} }} }} }}"""

# A valid KSUID that no test creates, and ids that are valid identifiers but not KSUIDs.
MISSING_KSUID = "1mRb9h140NNyE82chMLiYY6LwDk"
NOT_KSUIDS = ["abc", "ticket-1", "x" * 26, "x" * 28]

# A pause long enough that two writes never share a millisecond of `updatedAt`.
TICK = 0.005


def given(variables: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in variables.items() if v is not None}


# ---- organization writes ---------------------------------------------------------------


async def create_org(api: Api, name: str = "Acme") -> dict[str, Any]:
    org: dict[str, Any] = (await api(CREATE_ORG, name=name)).ok()["createOrganization"]
    return org


async def add_member(
    api: Api, org: str, username: str, role: str = "MEMBER", name: str | None = None
) -> dict[str, Any]:
    member_input = {
        "organization": org,
        "username": username,
        "name": name or f"Name of {username}",
        "role": role,
    }
    member: dict[str, Any] = (await api(ADD_MEMBER, input=member_input)).ok()["addMember"]
    return member


async def add_members(api: Api, org: str, roles: dict[str, str]) -> None:
    """Many members at once (each its own transaction; they touch different items)."""
    await asyncio.gather(*(add_member(api, org, u, r) for u, r in roles.items()))


async def create_team(api: Api, org: str, name: str) -> Result:
    return await api(CREATE_TEAM, org=org, name=name)


async def create_teams(api: Api, org: str, names: Sequence[str], chunk: int = 10) -> None:
    """Teams in concurrent chunks: every createTeam also counts on the organization item."""
    for start in range(0, len(names), chunk):
        results = await asyncio.gather(
            *(create_team(api, org, n) for n in names[start : start + chunk])
        )
        for result in results:
            result.ok()


def mixed_case_usernames(count: int) -> list[str]:
    """`count` usernames unique ignoring case, in mixed case, with `.`, `_` and `-` in some,
    given in an order that is neither A→Z nor Z→A."""
    stems = ["ada", "Bob", "carol", "DAVE", "eve", "Frank", "gina"]
    names = []
    for n in range(count):
        stem = stems[(n * 3) % len(stems)]
        sep = "._-"[n % 3]
        name = f"{stem}{sep}{n:02d}" if n % 4 else f"{stem}{n:02d}"
        names.append(name.upper() if n % 5 == 0 else name.swapcase() if n % 3 == 1 else name)
    assert len({n.lower() for n in names}) == count
    return names


def a_to_z(names: Iterable[str]) -> list[str]:
    """The model of every A→Z list: names as given, ordered ignoring case."""
    return sorted(names, key=str.lower)


# ---- callers ---------------------------------------------------------------------------


def refused(result: Result, code: str, requests: int | None = None) -> None:
    """Refused with `code` (after exactly `requests` DynamoDB calls, when given)."""
    assert result.codes == [code], result.body
    assert result.data is None
    if requests is not None:
        assert result.cost["requests"] == requests, result.cost


async def roles(api: Api, org: str) -> dict[str, str]:
    """Every member's role, by username as stored."""
    listed = await members(api, org, first=100)
    return {e["node"]["username"]: e["node"]["role"] for e in listed["edges"]}


# ---- connections -----------------------------------------------------------------------


def usernames(connection: Connection) -> list[str]:
    return [e["node"]["username"] for e in connection["edges"]]


def flags(connection: Connection) -> tuple[bool, bool]:
    info = connection["pageInfo"]
    return info["hasPreviousPage"], info["hasNextPage"]


def check_shape(connection: Connection) -> None:
    """Every edge has its own cursor; start and end cursors are the first and last edge's."""
    cursors = [e["cursor"] for e in connection["edges"]]
    assert len(set(cursors)) == len(cursors)
    info = connection["pageInfo"]
    assert info["startCursor"] == (cursors[0] if cursors else None)
    assert info["endCursor"] == (cursors[-1] if cursors else None)


async def members(api: Api, org: str, field: str = "members", **args: Any) -> Connection:
    document = MEMBERS if field == "members" else ADMINS
    connection: Connection = (await api(document, name=org, **given(args))).ok()["organization"][
        field
    ]
    check_shape(connection)
    return connection


async def walk(fetch: Any, size: int, backward: bool = False, most: int = 50) -> list[Connection]:
    """Every page of a connection: `first: size` with `after`, or `last: size` with `before`.

    `fetch(**args)` returns one connection."""
    pages: list[Connection] = []
    cursor = None
    while True:
        if backward:
            page = await fetch(last=size, before=cursor)
            more, cursor = page["pageInfo"]["hasPreviousPage"], page["pageInfo"]["startCursor"]
        else:
            page = await fetch(first=size, after=cursor)
            more, cursor = page["pageInfo"]["hasNextPage"], page["pageInfo"]["endCursor"]
        pages.append(page)
        if not more:
            return pages
        assert len(pages) < most, "the walk does not end"


def expected_pages(
    model: Sequence[str], size: int, backward: bool = False
) -> list[tuple[list[str], tuple[bool, bool]]]:
    """What a walk of `model` (in display order) must return: each page's items and its
    exact (hasPreviousPage, hasNextPage)."""
    pages = []
    if not backward:
        for start in range(0, max(len(model), 1), size):
            end = min(start + size, len(model))
            pages.append((list(model[start:end]), (start > 0, end < len(model))))
    else:
        end = len(model)
        while True:
            start = max(end - size, 0)
            pages.append((list(model[start:end]), (start > 0, end < len(model))))
            if start == 0:
                break
            end = start
    return pages


# ---- tickets ---------------------------------------------------------------------------


async def create_queue(api: Api, queue_id: str = "support", name: str = "Support") -> None:
    (await api(CREATE_QUEUE, input={"id": queue_id, "name": name})).ok()


async def open_ticket(api: Api, queue_id: str, title: str) -> dict[str, Any]:
    ticket: dict[str, Any] = (
        await api(OPEN_TICKET, input={"queueId": queue_id, "title": title})
    ).ok()["openTicket"]
    return ticket


async def update_ticket(api: Api, ticket_id: str, **changes: Any) -> dict[str, Any]:
    ticket: dict[str, Any] = (await api(UPDATE_TICKET, input={"id": ticket_id, **changes})).ok()[
        "updateTicket"
    ]
    return ticket


async def tickets(api: Api, queue_id: str, **args: Any) -> Connection:
    connection: Connection = (await api(TICKETS, id=queue_id, **given(args))).ok()["queue"][
        "tickets"
    ]
    check_shape(connection)
    return connection


def ticket_ids(connection: Connection) -> list[str]:
    return [e["node"]["id"] for e in connection["edges"]]


def most_recently_updated_first(known: Iterable[dict[str, Any]]) -> list[str]:
    """The model of a queue: by `updatedAt` descending, the KSUID breaking ties (both
    strings sort the way their values do: fixed-width UTC timestamps, base62 ids)."""
    ordered = sorted(known, key=lambda t: (t["updatedAt"], t["id"]), reverse=True)
    return [t["id"] for t in ordered]


# ---- the table ---------------------------------------------------------------------------


def _sort_key(item: dict[str, Any]) -> tuple[str, str]:
    return item["PK"], item["SK"]


async def snapshot(client: Any, table: str) -> list[dict[str, Any]]:
    """Every item, in key order: equal before and after means nothing was written."""
    return sorted(await scan_all(client, table), key=_sort_key)


async def items_of_type(client: Any, table: str, kind: str) -> list[dict[str, Any]]:
    return sorted(
        (i for i in await scan_all(client, table) if i.get("type") == kind), key=_sort_key
    )
