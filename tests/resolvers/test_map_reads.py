"""How `markers` reads its key ranges: the first page of every range at once, then the
ranges with more in key order; what it answers is the same as reading one after another."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from store.client import QueryResult, Store
from tests import demo_map as map_keys
from tests.client import Api
from tests.documents import MARKERS
from tests.resolvers.map_helpers import PARIS, Placed, View, add_markers


class InFlight:
    """Counts `Store.query` calls under way at once (the real store, the real table)."""

    def __init__(self) -> None:
        self.now = self.most = self.calls = 0


@pytest.fixture
def in_flight(monkeypatch: pytest.MonkeyPatch) -> Iterator[InFlight]:
    counter = InFlight()
    original = Store.query

    async def counted(self: Store, *args: Any, **kwargs: Any) -> QueryResult:
        counter.now += 1
        counter.calls += 1
        counter.most = max(counter.most, counter.now)
        try:
            await asyncio.sleep(0)  # let every other read of the tick start
            return await original(self, *args, **kwargs)
        finally:
            counter.now -= 1

    monkeypatch.setattr(Store, "query", counted)
    yield counter


def in_key_order(markers: list[Placed], view: View) -> list[str]:
    """The ids of the markers in the view, in the table's key order (geohash, then id)."""
    inside = [m for m in markers if view.contains(m.lat, m.lon)]
    return [m.id for m in sorted(inside, key=lambda m: (m.geohash, m.id))]


def ranges(view: View) -> int:
    viewport = map_keys.Viewport(view.north, view.south, view.east, view.west)
    return len(map_keys.place_queries(viewport))


@pytest.mark.parametrize("plans", ["on", "off"])
async def test_every_range_is_read_at_once(api: Api, in_flight: InFlight, plans: str) -> None:
    """By the plan and by the executor alike (checked, both would read: counted twice)."""
    rng = random.Random(5)
    added = await add_markers(
        api, [(rng.uniform(48.79, 48.91), rng.uniform(2.29, 2.41)) for _ in range(60)]
    )
    async with Api.serving(replace(api.settings, plans=plans)) as served:
        in_flight.most = in_flight.calls = 0
        result = await served(MARKERS, viewport=PARIS.variables(), limit=1000)
    found = result.ok()["markers"]
    assert sorted(m["id"] for m in found["markers"]) == sorted(in_key_order(added, PARIS))
    assert found["truncated"] is False
    assert ranges(PARIS) > 1
    assert in_flight.calls == in_flight.most == ranges(PARIS)
    assert result.cost["requests"] == ranges(PARIS)


async def test_a_full_view_answers_the_first_markers_in_key_order(
    api: Api, in_flight: InFlight
) -> None:
    rng = random.Random(6)
    added = await add_markers(
        api, [(rng.uniform(48.8, 48.9), rng.uniform(2.3, 2.4)) for _ in range(40)]
    )
    expected = in_key_order(added, PARIS)
    for limit in (1, 7, len(expected) - 1):
        result = await api(MARKERS, viewport=PARIS.variables(), limit=limit)
        found = result.ok()["markers"]
        assert [m["id"] for m in found["markers"]] == expected[:limit]
        assert found["truncated"] is True
        # One page of each range at most, then the rest of a range that held more.
        assert result.cost["requests"] <= 2 * ranges(PARIS)
    result = await api(MARKERS, viewport=PARIS.variables(), limit=len(expected))
    found = result.ok()["markers"]
    assert ([m["id"] for m in found["markers"]], found["truncated"]) == (expected, False)
