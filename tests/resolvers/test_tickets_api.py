"""Ticket queues through the API: lookups, most recently updated first, updates in place.

The expected order is a model built from what the API returned (tests.resolvers.org_helpers):
`updatedAt` descending, the KSUID breaking ties within a millisecond.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from functools import partial
from itertools import pairwise
from typing import Any

import data.writes.plain
from keys.codecs import parse_timestamp
from tests.client import Api
from tests.documents import CREATE_QUEUE, OPEN_TICKET, QUEUE, TICKET, TICKETS, UPDATE_TICKET
from tests.resolvers.connections import assert_walks, flags
from tests.resolvers.org_helpers import (
    MISSING_KSUID,
    NOT_KSUIDS,
    TICK,
    assert_not_found,
    create_queue,
    items_of_type,
    most_recently_updated_first,
    open_ticket,
    open_tickets,
    snapshot,
    ticket_ids,
    tickets,
    update_ticket,
)

# ---- queues and tickets by id ----------------------------------------------------------------


async def test_create_queue_and_look_it_up(api: Api, client: Any, table: str) -> None:
    created = (await api(CREATE_QUEUE, input={"id": "support", "name": "Support desk"})).ok()
    assert created == {"createQueue": {"id": "support", "name": "Support desk"}}
    assert (await api(QUEUE, id="support")).ok() == {"queue": created["createQueue"]}
    before = await snapshot(client, table)
    result = await api(CREATE_QUEUE, input={"id": "support", "name": "Another"})
    assert result.codes == ["CONFLICT"], result.body
    assert await snapshot(client, table) == before
    assert (await api(QUEUE, id="support")).ok()["queue"]["name"] == "Support desk"


async def test_missing_queue_is_null_with_or_without_tickets(api: Api) -> None:
    await create_queue(api, "support")
    await open_ticket(api, "support", "first")
    assert (await api(QUEUE, id="billing")).ok() == {"queue": None}
    assert (await api(TICKETS, id="billing", first=5)).ok() == {"queue": None}
    assert (await api(TICKETS, id="billing", last=5)).ok() == {"queue": None}


async def test_bad_queue_input_is_bad_user_input(api: Api, client: Any, table: str) -> None:
    await create_queue(api, "support")
    before = await snapshot(client, table)
    for bad in ("a#b", "a b", "", "a/b", "-a", "x" * 65):
        assert (await api(CREATE_QUEUE, input={"id": bad, "name": "N"})).codes == [
            "BAD_USER_INPUT"
        ], bad
        opened = await api(OPEN_TICKET, input={"queueId": bad, "title": "T"})
        assert opened.codes == ["BAD_USER_INPUT"], bad
    for title in ("", "x" * 201):
        opened = await api(OPEN_TICKET, input={"queueId": "support", "title": title})
        assert opened.codes == ["BAD_USER_INPUT"], title
    assert await snapshot(client, table) == before


async def test_ticket_on_unknown_queue_is_not_found_and_writes_nothing(
    api: Api, client: Any, table: str
) -> None:
    await create_queue(api, "support")
    new = [{"queueId": queue_id, "title": "Help"} for queue_id in ("billing", "Support")]
    await assert_not_found(api, client, table, [(OPEN_TICKET, {"input": t}) for t in new])


async def test_ticket_by_id(api: Api) -> None:
    await create_queue(api, "support")
    opened = [await open_ticket(api, "support", f"Ticket {n}") for n in range(3)]
    assert len({t["id"] for t in opened}) == 3
    for ticket in opened:
        assert ticket["status"] == "OPEN"
        assert ticket["createdAt"] == ticket["updatedAt"]
        assert (await api(TICKET, id=ticket["id"])).ok() == {"ticket": ticket}


async def test_unknown_or_non_ksuid_ticket_is_null(api: Api) -> None:
    await create_queue(api, "support")
    await open_ticket(api, "support", "real")
    for ticket_id in (MISSING_KSUID, *NOT_KSUIDS):
        result = await api(TICKET, id=ticket_id)
        assert result.ok() == {"ticket": None}, ticket_id
    assert (await api(TICKET, id="a#b")).codes == ["BAD_USER_INPUT"]


# ---- most recently updated first -------------------------------------------------------------


async def test_any_update_moves_the_ticket_to_the_top(api: Api) -> None:
    known = await open_tickets(api, 5, pause=TICK)
    order = most_recently_updated_first(known.values())
    assert ticket_ids(await tickets(api, "support")) == order

    # The oldest, by title; then the next oldest, by status alone; then one in the middle.
    changes = [(order[-1], {"title": "Renamed"}), (order[-2], {"status": "IN_PROGRESS"})]
    changes.append((order[2], {"title": "Both", "status": "CLOSED"}))
    for ticket_id, change in changes:
        await asyncio.sleep(TICK)
        updated = await update_ticket(api, ticket_id, **change)
        assert {k: updated[k] for k in change} == change
        previous = known[ticket_id]
        assert updated["createdAt"] == previous["createdAt"]
        assert updated["updatedAt"] > previous["updatedAt"]
        unchanged = {"title", "status"} - set(change)
        assert {k: updated[k] for k in unchanged} == {k: previous[k] for k in unchanged}
        known[ticket_id] = updated
        listed = await tickets(api, "support")
        assert ticket_ids(listed) == most_recently_updated_first(known.values())
        assert ticket_ids(listed)[0] == ticket_id
        assert listed["edges"][0]["node"] == updated
        assert (await api(TICKET, id=ticket_id)).ok() == {"ticket": updated}


async def test_paging_25_tickets_both_ways_against_the_model(api: Api) -> None:
    known = await open_tickets(api, 25)
    await create_queue(api, "billing")
    other = await open_ticket(api, "billing", "elsewhere")

    async def check() -> None:
        model = most_recently_updated_first(known.values())

        await assert_walks(partial(tickets, api, "support"), model, 8, ticket_ids)
        everything = await tickets(api, "support", first=100)
        assert ticket_ids(everything) == model and flags(everything) == (False, False)
        assert {e["node"]["id"]: e["node"] for e in everything["edges"]} == known

    await check()
    # Updates reorder the queue: every fourth ticket in creation order, oldest first.
    created_order = sorted(known.values(), key=lambda t: (t["createdAt"], t["id"]))
    for n, ticket in enumerate(created_order[::4]):
        await asyncio.sleep(TICK)
        change = {"title": f"Again {n}"} if n % 2 else {"status": "IN_PROGRESS"}
        known[ticket["id"]] = await update_ticket(api, ticket["id"], **change)
    await check()
    assert ticket_ids(await tickets(api, "billing")) == [other["id"]]


async def test_a_cursor_from_before_an_update_still_pages_on(api: Api) -> None:
    known = await open_tickets(api, 6)
    first = await tickets(api, "support", first=3)
    page_ids = ticket_ids(first)
    # The top ticket moves again; the cursor of the page's last edge still marks its place.
    await asyncio.sleep(TICK)
    known[page_ids[0]] = await update_ticket(api, page_ids[0], title="bumped")
    rest = await tickets(api, "support", first=10, after=first["pageInfo"]["endCursor"])
    model = most_recently_updated_first(known.values())
    assert ticket_ids(rest) == model[model.index(page_ids[-1]) + 1 :]
    assert flags(rest) == (True, False)


# ---- updates -----------------------------------------------------------------------------------


async def test_update_with_nothing_to_change_is_bad_user_input(
    api: Api, client: Any, table: str
) -> None:
    await create_queue(api, "support")
    ticket = await open_ticket(api, "support", "T")
    before = await snapshot(client, table)
    for change in ({}, {"title": None}, {"status": None}, {"title": None, "status": None}):
        result = await api(UPDATE_TICKET, input={"id": ticket["id"], **change})
        assert result.codes == ["BAD_USER_INPUT"], (change, result.body)
    for title in ("", "x" * 201):
        result = await api(UPDATE_TICKET, input={"id": ticket["id"], "title": title})
        assert result.codes == ["BAD_USER_INPUT"], (title, result.body)
    assert await snapshot(client, table) == before


async def test_update_of_an_unknown_ticket_is_not_found_and_creates_nothing(
    api: Api, client: Any, table: str
) -> None:
    await create_queue(api, "support")
    await open_ticket(api, "support", "T")
    before = await snapshot(client, table)
    for ticket_id in (MISSING_KSUID, *NOT_KSUIDS):
        for change in ({"title": "x"}, {"status": "CLOSED"}):
            result = await api(UPDATE_TICKET, input={"id": ticket_id, **change})
            assert result.codes == ["NOT_FOUND"], (ticket_id, change, result.body)
    assert await snapshot(client, table) == before


async def test_an_update_keeps_the_table_key_and_moves_the_index_key(
    api: Api, client: Any, table: str
) -> None:
    await create_queue(api, "support")
    opened = [await open_ticket(api, "support", f"T{n}") for n in range(4)]
    stored = {i["id"]: i for i in await items_of_type(client, table, "TICKET")}
    for ticket in opened:
        item = stored[ticket["id"]]
        assert item["PK"] == item["SK"] == f"TICKET#{ticket['id']}"
        assert item["GSI1PK"] == "QUEUE#support"
        assert item["GSI1SK"] == f"#TICKET#{ticket['updatedAt']}#{ticket['id']}"

    latest = {t["id"]: t for t in opened}
    for n, ticket in enumerate(opened[:3]):
        await asyncio.sleep(TICK)
        change = {"title": f"new {n}"} if n != 1 else {"status": "CLOSED"}
        latest[ticket["id"]] = await update_ticket(api, ticket["id"], **change)
    updated = {t["id"] for t in opened[:3]}
    after = await items_of_type(client, table, "TICKET")
    # One item per ticket: moved in the index, never deleted and put again under a new key.
    assert sorted(i["id"] for i in after) == sorted(stored)
    for item in after:
        ticket = latest[item["id"]]
        before = stored[item["id"]]
        assert (item["PK"], item["SK"], item["GSI1PK"]) == (
            before["PK"],
            before["SK"],
            before["GSI1PK"],
        )
        assert item["GSI1SK"] == f"#TICKET#{ticket['updatedAt']}#{ticket['id']}"
        assert (item["GSI1SK"] != before["GSI1SK"]) == (item["id"] in updated)
        assert (item["title"], item["status"]) == (ticket["title"], ticket["status"])
    assert len(await snapshot(client, table)) == 1 + len(opened)


async def test_a_clock_behind_or_a_repeat_in_one_millisecond_never_moves_a_ticket_down(
    api: Api, monkeypatch: Any
) -> None:
    await create_queue(api, "support")
    first = await open_ticket(api, "support", "First")
    await asyncio.sleep(TICK)
    second = await open_ticket(api, "support", "Second")
    # This gateway's clock now stands still, five seconds behind the one that opened them.
    behind = parse_timestamp(first["createdAt"]) - timedelta(seconds=5)
    monkeypatch.setattr(data.writes.plain, "now", lambda: behind)  # the clock updates read
    stamps = [second["updatedAt"]]
    for title in ("Again", "And again", "Once more"):
        updated = await update_ticket(api, second["id"], title=title)
        stamps.append(updated["updatedAt"])
        assert ticket_ids(await tickets(api, "support"))[0] == second["id"]
    # Each write is one millisecond past the stored one: strictly later, never earlier.
    steps = [parse_timestamp(b) - parse_timestamp(a) for a, b in pairwise(stamps)]
    assert steps == [timedelta(milliseconds=1)] * 3
    updated = await update_ticket(api, first["id"], status="CLOSED")
    assert updated["updatedAt"] > first["updatedAt"]
