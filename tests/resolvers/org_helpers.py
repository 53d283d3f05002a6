"""Shared helpers of the organization and ticket queue tests: calls, models, table reads.

Expected orders come from models kept here (docs/design.md), never from the code under
test: members and teams A→Z ignoring case, tickets most recently updated first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any

from tests.client import Api, Result
from tests.documents import (
    ADD_MEMBER,
    ADMINS,
    CREATE_ORGANIZATION,
    CREATE_QUEUE,
    CREATE_TEAM,
    MEMBERS,
    OPEN_TICKET,
    TICKETS,
    UPDATE_TICKET,
)
from tests.resolvers.connections import Connection, check_shape, given
from tests.table import scan_all

# A valid KSUID that no test creates, and ids that are valid identifiers but not KSUIDs.
MISSING_KSUID = "1mRb9h140NNyE82chMLiYY6LwDk"
NOT_KSUIDS = ["abc", "ticket-1", "x" * 26, "x" * 28]

# A pause long enough that two writes never share a millisecond of `updatedAt`.
TICK = 0.005


# ---- organization writes ---------------------------------------------------------------


async def create_org(api: Api, name: str = "Acme") -> dict[str, Any]:
    org: dict[str, Any] = (await api(CREATE_ORGANIZATION, name=name)).ok()["createOrganization"]
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


async def assert_not_found(
    api: Api, client: Any, table: str, calls: Iterable[tuple[str, dict[str, Any]]]
) -> None:
    """Each call is NOT_FOUND, without data, and the table stays as it was."""
    before = await snapshot(client, table)
    for document, variables in calls:
        result = await api(document, **variables)
        assert result.codes == ["NOT_FOUND"], (variables, result.body)
        assert result.data is None
    assert await snapshot(client, table) == before


async def roles(api: Api, org: str) -> dict[str, str]:
    """Every member's role, by username as stored."""
    listed = await members(api, org, first=100)
    return {e["node"]["username"]: e["node"]["role"] for e in listed["edges"]}


# ---- connections -----------------------------------------------------------------------


def usernames(connection: Connection) -> list[str]:
    return [e["node"]["username"] for e in connection["edges"]]


async def members(api: Api, org: str, field: str = "members", **args: Any) -> Connection:
    document = MEMBERS if field == "members" else ADMINS
    connection: Connection = (await api(document, name=org, **given(args))).ok()["organization"][
        field
    ]
    check_shape(connection)
    return connection


# ---- tickets ---------------------------------------------------------------------------


async def create_queue(api: Api, queue_id: str = "support", name: str = "Support") -> None:
    (await api(CREATE_QUEUE, input={"id": queue_id, "name": name})).ok()


async def open_ticket(api: Api, queue_id: str, title: str) -> dict[str, Any]:
    ticket: dict[str, Any] = (
        await api(OPEN_TICKET, input={"queueId": queue_id, "title": title})
    ).ok()["openTicket"]
    return ticket


async def open_tickets(
    api: Api, count: int, queue_id: str = "support", pause: float = 0.0
) -> dict[str, dict[str, Any]]:
    """A new queue of `count` tickets titled `Ticket <n>`, opened `pause` seconds apart;
    the tickets by id."""
    await create_queue(api, queue_id)
    known = {}
    for n in range(count):
        ticket = await open_ticket(api, queue_id, f"Ticket {n}")
        known[ticket["id"]] = ticket
        await asyncio.sleep(pause)
    return known


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
