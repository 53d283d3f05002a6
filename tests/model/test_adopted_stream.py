"""A table another app writes, with its stream on (`tests/model/adopted.py`, keyed
`pk`/`sk`): what the app writes reaches dynagate's subscribers through the table's stream,
and the read cache, kept exact by that stream, answers the app's changes as soon as they
are heard, as it does on a table of dynagate's own layout."""

from __future__ import annotations

import asyncio
from functools import partial

import pytest

from tests.caching import ask, caching, hot
from tests.client import settings_for
from tests.live import Served, connected, served
from tests.model.test_adopted_table import (
    ADOPTED,
    ON_DAY,
    app_table,
    event_item,
    made_by_the_app,
    table_made_by_the_app,
)
from tests.subscribing import until

pytestmark = pytest.mark.streamed
CHANGES = 'subscription { eventsOnChanges(day: "2025-03-01") { kind id event { title } } }'


table = table_made_by_the_app("adopted-streamed", partial(made_by_the_app, stream=True))


async def test_the_app_s_writes_reach_subscribers(endpoint: str, table: str) -> None:
    async with served(settings_for(endpoint, table, model=ADOPTED)) as gateway:
        feed = gateway.runtime.feed
        async with connected(gateway) as client:
            ident = await client.subscribe(CHANGES)
            await until(lambda: feed.active == 1)
            mine = app_table(endpoint, table)
            await asyncio.to_thread(
                mine.put_item, Item=event_item("2025-03-01", "e9", "Added by the app")
            )
            added = await client.next_for(ident, within=20)
            await asyncio.to_thread(
                mine.put_item, Item=event_item("2025-04-01", "e8", "Another day")
            )
            await asyncio.to_thread(
                mine.put_item, Item=event_item("2025-03-01", "e9", "Renamed by the app")
            )
            changed = await client.next_for(ident, within=20)
    assert added["payload"]["data"]["eventsOnChanges"] == {
        "kind": "ADDED",
        "id": "e9",
        "event": {"title": "Added by the app"},
    }
    # The event of another day is no change of this list's.
    assert changed["payload"]["data"]["eventsOnChanges"] == {
        "kind": "CHANGED",
        "id": "e9",
        "event": {"title": "Renamed by the app"},
    }


async def test_the_read_cache_answers_the_app_s_changes_once_heard(
    endpoint: str, table: str
) -> None:
    async with caching(settings_for(endpoint, table, model=ADOPTED)) as gateway:
        first = await hot(gateway, ON_DAY, day="2025-03-01")
        titles = [e["node"]["title"] for e in first.data["eventsOn"]["edges"]]
        assert titles == ["Launch", "Party"]
        mine = app_table(endpoint, table)
        await asyncio.to_thread(mine.put_item, Item=event_item("2025-03-01", "e1", "Moved"))
        await until_fresh(gateway, ["Moved", "Party"])
        again = await hot(gateway, ON_DAY, day="2025-03-01")
        assert [e["node"]["title"] for e in again.data["eventsOn"]["edges"]] == ["Moved", "Party"]


async def until_fresh(gateway: Served, titles: list[str]) -> None:
    """Until the list answers `titles`: the app's write is heard within the stream's delay."""
    for _ in range(400):
        answer = await ask(gateway, ON_DAY, day="2025-03-01")
        if [e["node"]["title"] for e in answer.data["eventsOn"]["edges"]] == titles:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never answered {titles}")
