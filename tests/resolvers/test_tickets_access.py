"""Who may read and change ticket queues (docs/identity.md), with real tokens against
DynamoDB Local: queues and tickets are for signed-in callers, queues are created by admins,
and a ticket is changed by its opener only, decided by the UpdateItem's own condition."""

from __future__ import annotations

from typing import Any

import pytest

from data.writes import entities as entity_writes
from demo.model import MODEL
from demo.model.tickets import QUEUE as QUEUE_ENTITY
from demo.model.tickets import TICKET as TICKET_ENTITY
from keys.codecs import format_timestamp
from store.client import Store
from store.loaders import ItemLoader
from tests.client import Api, Result, assert_costs_alike
from tests.data.test_faults import lost_once
from tests.documents import CREATE_QUEUE, OPEN_TICKET, QUEUE, TICKET, TICKETS, UPDATE_TICKET
from tests.faults import FaultProxy, without_backoff
from tests.identity import SECURED, as_user, caller, open_mode
from tests.resolvers.org_helpers import MISSING_KSUID, items_of_type, snapshot
from tests.resolvers.repos_helpers import gather_results

OPENED_BY = "query ($id: ID!) { ticket(id: $id) { id title openedBy } }"
LISTED_BY = """query ($id: ID!) {
  queue(id: $id) { tickets { edges { node { id openedBy } } } } }"""


pytestmark = pytest.mark.overrides(**SECURED)


def refused(result: Result, code: str, requests: int = 0) -> None:
    """Refused with `code`, after `requests` DynamoDB calls (none when the token decides)."""
    assert result.codes == [code], result.body
    # A nullable root field is null; a mutation's is not, so the whole `data` is.
    assert result.data is None or set(result.data.values()) == {None}, result.data
    assert result.cost["requests"] == requests, result.cost


async def open_as(api: Api, username: str, title: str = "Help") -> str:
    """A ticket of queue `support` opened by `username`; its id."""
    opened = await as_user(api, username)(OPEN_TICKET, input={"queueId": "support", "title": title})
    ticket_id: str = opened.ok()["openTicket"]["id"]
    return ticket_id


async def queue_with_ticket(api: Api, opener: str) -> str:
    created = await as_user(api, "root", admin=True)(
        CREATE_QUEUE, input={"id": "support", "name": "Support"}
    )
    created.ok()
    return await open_as(api, opener)


def retitle(api: Api, ticket_id: str, title: str) -> Any:
    return api(UPDATE_TICKET, input={"id": ticket_id, "title": title})


async def title_of(api: Api, ticket_id: str) -> str:
    found: str = (await as_user(api, "root", admin=True)(TICKET, id=ticket_id)).ok()["ticket"][
        "title"
    ]
    return found


# ---- reads: any signed-in caller --------------------------------------------------------------


async def test_queues_and_tickets_are_read_signed_in(api: Api) -> None:
    ticket_id = await queue_with_ticket(api, "Bob")
    for document, variables in [(QUEUE, {"id": "support"}), (TICKET, {"id": ticket_id})]:
        refused(await api(document, **variables), "UNAUTHENTICATED")
        assert (await as_user(api, "carol")(document, **variables)).ok()
    refused(await api(TICKETS, id="support"), "UNAUTHENTICATED")
    listed = (await as_user(api, "carol")(TICKETS, id="support")).ok()["queue"]["tickets"]
    assert [e["node"]["id"] for e in listed["edges"]] == [ticket_id]


# ---- createQueue: admins ----------------------------------------------------------------------


async def test_queues_are_created_by_admins_only(api: Api, client: Any, table: str) -> None:
    given = {"id": "support", "name": "Support"}
    refused(await api(CREATE_QUEUE, input=given), "UNAUTHENTICATED")
    refused(await as_user(api, "bob")(CREATE_QUEUE, input=given), "FORBIDDEN")
    assert await snapshot(client, table) == []
    created = await as_user(api, "root", admin=True)(CREATE_QUEUE, input=given)
    assert created.ok() == {"createQueue": given}


# ---- openTicket: any signed-in caller, recorded as the opener --------------------------------


async def test_a_ticket_is_opened_signed_in_and_records_its_opener(
    api: Api, client: Any, table: str
) -> None:
    ticket_id = await queue_with_ticket(api, "Bob")
    stored = await snapshot(client, table)
    opening = await api(OPEN_TICKET, input={"queueId": "support", "title": "anonymous"})
    refused(opening, "UNAUTHENTICATED")
    assert await snapshot(client, table) == stored
    carol = as_user(api, "carol")
    found = (await carol(OPENED_BY, id=ticket_id)).ok()["ticket"]
    assert found == {"id": ticket_id, "title": "Help", "openedBy": "Bob"}
    listed = (await carol(LISTED_BY, id="support")).ok()["queue"]["tickets"]["edges"]
    assert [e["node"] for e in listed] == [{"id": ticket_id, "openedBy": "Bob"}]
    [item] = await items_of_type(client, table, "TICKET")
    assert (item["author"], item["authorKey"]) == ("Bob", "bob")


# ---- updateTicket: the ticket's opener --------------------------------------------------------


async def test_a_ticket_is_changed_by_its_opener_only(api: Api, client: Any, table: str) -> None:
    ticket_id = await queue_with_ticket(api, "Bob")
    # The opener, whatever the case of the token's username.
    assert (await retitle(as_user(api, "BOB"), ticket_id, "mine")).ok()
    stored = await snapshot(client, table)
    carol = as_user(api, "carol")
    refused(await retitle(carol, ticket_id, "theirs"), "FORBIDDEN", requests=1)
    refused(await retitle(api, ticket_id, "anonymous"), "UNAUTHENTICATED")
    refused(await retitle(carol, MISSING_KSUID, "none"), "NOT_FOUND", requests=1)
    assert await snapshot(client, table) == stored
    admin = as_user(api, "root", admin=True)
    assert (await retitle(admin, ticket_id, "by an admin")).ok()
    assert await title_of(api, ticket_id) == "by an admin"


async def test_a_ticket_opened_in_open_mode_is_changed_by_admins_only(
    api: Api, client: Any, table: str
) -> None:
    async with open_mode(api) as opened:
        (await opened(CREATE_QUEUE, input={"id": "support", "name": "Support"})).ok()
        made = await opened(OPEN_TICKET, input={"queueId": "support", "title": "old"})
        ticket_id = made.ok()["openTicket"]["id"]
    found = (await as_user(api, "bob")(OPENED_BY, id=ticket_id)).ok()["ticket"]
    assert found["openedBy"] is None
    stored = await snapshot(client, table)
    refused(await retitle(as_user(api, "bob"), ticket_id, "mine"), "FORBIDDEN", requests=1)
    assert await snapshot(client, table) == stored
    assert (await retitle(as_user(api, "root", admin=True), ticket_id, "new")).ok()
    assert await title_of(api, ticket_id) == "new"


async def test_concurrent_updates_apply_the_openers_alone(api: Api) -> None:
    """The opener's updates race each other (and retry, moved meanwhile); a stranger's,
    racing them, are refused at once, never retried into being applied."""
    ticket_id = await queue_with_ticket(api, "bob")
    bob, carol = as_user(api, "Bob"), as_user(api, "carol")
    mine = [retitle(bob, ticket_id, f"bob {n}") for n in range(4)]
    theirs = [retitle(carol, ticket_id, f"carol {n}") for n in range(4)]
    results = await gather_results(
        *(call for pair in zip(mine, theirs, strict=True) for call in pair)
    )
    for result in results[0::2]:
        assert result.ok()["updateTicket"]["title"].startswith("bob ")
    for result in results[1::2]:
        refused(result, "FORBIDDEN", requests=1)
    assert (await title_of(api, ticket_id)).startswith("bob ")


async def test_updating_costs_the_same_requests_as_in_open_mode(api: Api) -> None:
    ticket_id = await queue_with_ticket(api, "bob")
    secured = await retitle(as_user(api, "bob"), ticket_id, "secured")
    async with open_mode(api) as opened:
        unsecured = await retitle(opened, ticket_id, "open")
    assert_costs_alike(secured, unsecured)
    # One UpdateItem, whose condition decides: nothing read first.
    assert (unsecured.cost["requests"], unsecured.cost["readCapacityUnits"]) == (1, 0)


# ---- a lost answer ---------------------------------------------------------------------------


async def test_the_opener_updating_with_a_lost_answer_succeeds_once(
    monkeypatch: pytest.MonkeyPatch, proxy: FaultProxy, faulty: Store, client: Any, table: str
) -> None:
    """The resend fails its condition; the token on the stored item says this call wrote it,
    which is neither a refusal for the opener nor a ticket moved meanwhile."""
    without_backoff(monkeypatch)
    direct = Store(client, table)
    queue = {"id": "q1", "name": "Support"}
    await entity_writes.create(direct, MODEL, QUEUE_ENTITY, queue, caller=caller("Ann"))
    ticket = {"queueId": "q1", "title": "Help"}
    opened = await entity_writes.create(direct, MODEL, TICKET_ENTITY, ticket, caller=caller("Bob"))
    updating = entity_writes.update(
        faulty,
        ItemLoader(faulty),
        TICKET_ENTITY,
        {"id": opened["id"]},
        {"title": "Help!", "status": None},
        caller=caller("bob"),
        writer_only=True,
    )
    updated = await lost_once(proxy, "UpdateItem", updating)
    assert (updated["title"], updated["openedBy"]) == ("Help!", "Bob")
    [stored] = await items_of_type(client, table, "TICKET")
    assert stored["updatedAt"] == format_timestamp(updated["updatedAt"])
