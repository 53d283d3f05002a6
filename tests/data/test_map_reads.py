"""`read_markers` given more key ranges than it may make calls (a budget above the one
served): what lies past its calls is unread, so the answer says it may be incomplete."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from errors.vocabulary import Unavailable
from store.client import Store
from tests import demo_map as data
from tests import demo_map as map_keys

VIEW = map_keys.Viewport(north=48.9, south=48.8, east=2.4, west=2.3)


async def test_ranges_past_the_calls_leave_the_answer_truncated(client: Any, table: str) -> None:
    store = Store(client, table)
    rng = random.Random(3)
    added = [
        await data.add_marker(store, rng.uniform(48.8, 48.9), rng.uniform(2.3, 2.4), f"m{n}")
        for n in range(80)
    ]
    many = map_keys.place_queries(VIEW, budget=4 * data.MARKER_READS)
    assert len(many) > data.MARKER_READS
    read = many[: data.MARKER_READS]

    def within(marker: data.Marker, conditions: list[Any]) -> bool:
        key = map_keys.place_key(marker.geohash, marker.id)
        return any(c.partition == key["PK"] and c.contains(key["SK"]) for c in conditions)

    reachable = {m.id for m in added if within(m, read)}
    assert 0 < len(reachable) < len(added)  # markers lie past the ranges that can be read
    found = await data.read_markers(store, VIEW, many, limit=1000)
    assert ({m.id for m in found.markers}, found.truncated) == (reachable, True)
    # The served ranges reach every marker: nothing is left unread.
    found = await data.read_markers(store, VIEW, map_keys.place_queries(VIEW), limit=1000)
    assert ({m.id for m in found.markers}, found.truncated) == ({m.id for m in added}, False)


async def test_a_failed_range_read_cancels_the_others(
    client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first pages go out together; when one fails the answer is that error, and the
    reads still under way are cancelled rather than left to spend capacity."""
    store = Store(client, table)
    started: list[int] = []
    finished: list[int] = []

    async def failing_first(self: Store, *args: Any, **kwargs: Any) -> Any:
        number = len(started)
        started.append(number)
        if number == 0:
            await asyncio.sleep(0.01)
            raise Unavailable("the database is unreachable; try again shortly")
        await asyncio.sleep(1.0)
        finished.append(number)

    monkeypatch.setattr(Store, "query", failing_first)
    conditions = map_keys.place_queries(VIEW)
    with pytest.raises(Unavailable):
        await data.read_markers(store, VIEW, conditions, limit=10)
    await asyncio.sleep(1.1)
    assert len(started) == len(conditions) > 1
    assert finished == []
