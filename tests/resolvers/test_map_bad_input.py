"""The map API (seed 002): bad input and atomicity.

Every bad input is refused before anything is written: each such test compares a scan of
the table before and after. Failures half way through a transaction are made by appending
a failing ConditionCheck to it: had any part been written by a separate call, it would
remain.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.client import Api, assert_well_formed
from tests.documents import ADD_MARKER, HEATMAP, MARKERS, REMOVE_MARKER
from tests.resolvers.map_helpers import (
    MAP_LIMITS,
    PARIS,
    TOWN,
    View,
    add_marker,
    heatmap,
    search,
    snapshot,
    stored_counts,
)
from tests.table import fail_every_transaction_last

# ---- bad input: refused, nothing written ------------------------------------------------


pytestmark = pytest.mark.overrides(**MAP_LIMITS)


GOOD = PARIS.variables()
BAD_VIEWS = [
    {**GOOD, "north": 91.0},
    {**GOOD, "south": -91.0},
    {**GOOD, "east": 181.0},
    {**GOOD, "west": -181.0},
    {**GOOD, "north": 90.0001},
    {**GOOD, "east": -180.0001},
    {**GOOD, "south": 48.95},  # south > north
    {"north": 10.0, "south": 10.1, "east": 1.0, "west": 0.9},
]


# `refused(document, mention=None, **variables)`: BAD_USER_INPUT, naming `mention`.
Refused = Callable[..., Awaitable[None]]


@pytest.fixture
async def refused(api: Api, client: Any, table: str) -> Refused:
    """With one marker stored, a check that a call is refused, shows no key and writes
    nothing."""
    await add_marker(api, 48.85, 2.35)
    before = await snapshot(client, table)

    async def check(document: str, mention: str | None = None, **variables: Any) -> None:
        result = await api(document, **variables)
        assert_well_formed(result)
        assert result.codes == ["BAD_USER_INPUT"], (variables, result.body)
        assert result.data is None
        if mention is not None:
            assert mention in result.errors[0]["message"]
        assert "PK" not in str(result.body) and "Dg" not in str(result.body)
        assert await snapshot(client, table) == before

    return check


@pytest.mark.parametrize(
    ("lat", "lon"),
    [(91.0, 0.0), (-91.0, 0.0), (0.0, 181.0), (0.0, -181.0), (90.000001, 0.0), (0.0, -180.1)],
)
async def test_add_marker_out_of_range_is_refused(refused: Refused, lat: float, lon: float) -> None:
    await refused(ADD_MARKER, input={"lat": lat, "lon": lon, "label": "x"})


@pytest.mark.parametrize("label", ["", "x" * 201])
async def test_add_marker_bad_label_is_refused(refused: Refused, label: str) -> None:
    await refused(ADD_MARKER, "label", input={"lat": 1.0, "lon": 1.0, "label": label})


async def test_label_of_200_characters_is_fine(api: Api) -> None:
    marker = (await api(ADD_MARKER, input={"lat": 1.0, "lon": 1.0, "label": "é" * 200})).ok()
    assert marker["addMarker"]["label"] == "é" * 200


@pytest.mark.parametrize("viewport", BAD_VIEWS)
async def test_bad_viewports_are_refused(refused: Refused, viewport: dict[str, float]) -> None:
    await refused(MARKERS, viewport=viewport, limit=10)
    await refused(HEATMAP, viewport=viewport, precision=None)
    await refused(HEATMAP, viewport=viewport, precision=5)


@pytest.mark.parametrize(
    "viewport",
    [
        {"north": 48.9, "south": 48.39, "east": 2.4, "west": 2.3},  # 0.51 tall
        {"north": 48.9, "south": 48.8, "east": 2.81, "west": 2.3},  # 0.51 wide
        {"north": 1.0, "south": 0.0, "east": 1.0, "west": 0.0},
        {"north": 1.0, "south": 0.9, "east": -179.74, "west": 179.75},  # 0.51 across
        {"north": 1.0, "south": 0.9, "east": 179.8, "west": 179.9},  # nearly the whole world
        {"north": 90.0, "south": -90.0, "east": 180.0, "west": -180.0},
    ],
)
async def test_a_markers_view_over_half_a_degree_points_to_heatmap(
    api: Api, refused: Refused, viewport: dict[str, float]
) -> None:
    await refused(MARKERS, "heatmap", viewport=viewport)
    # The heatmap takes it.
    (await api(HEATMAP, viewport=viewport, precision=None)).ok()


async def test_a_markers_view_of_exactly_half_a_degree_is_fine(api: Api) -> None:
    for view in (
        View(north=49.0, south=48.5, east=2.5, west=2.0),
        View(north=1.0, south=0.5, east=-179.75, west=179.75),
        View(north=90.0, south=89.5, east=180.0, west=179.5),
    ):
        assert (await search(api, view))[1] is False


@pytest.mark.parametrize("limit", [0, -1, 1001, 10_000])
async def test_limit_out_of_range_is_refused(refused: Refused, limit: int) -> None:
    await refused(MARKERS, "limit", viewport=PARIS.variables(), limit=limit)


@pytest.mark.parametrize(
    ("viewport", "precision"),
    [
        (PARIS.variables(), 9),
        (PARIS.variables(), 0),
        (PARIS.variables(), -3),
        # A continent at precision 8: thousands of 5-character partitions.
        ({"north": 60.0, "south": 40.0, "east": 20.0, "west": -5.0}, 8),
        # 65 partitions: 5 by 13 cells of 5 characters (0.0439 by 0.0439 degrees).
        ({"north": 0.2, "south": 0.01, "east": 0.55, "west": 0.01}, 8),
        # 65 partitions in a line (64 is allowed: see below).
        ({"north": 0.01, "south": 0.01, "east": 2.83, "west": 0.01}, 8),
        # The world at precision 4 needs 32 partitions (fine); at 5, 1,024.
        ({"north": 90.0, "south": -90.0, "east": 180.0, "west": -180.0}, 5),
    ],
)
async def test_bad_precision_is_refused(
    refused: Refused, viewport: dict[str, float], precision: int
) -> None:
    await refused(HEATMAP, "precision", viewport=viewport, precision=precision)


async def test_64_partitions_is_the_most_allowed(api: Api) -> None:
    world = View(north=90.0, south=-90.0, east=180.0, west=-180.0)
    assert (await heatmap(api, world, 4))[0] == 4  # 32 partitions of 1 character
    # 5-character cells are 0.0439453125 degrees a side, from 0, 0: a line meeting 64 of
    # them (65 is refused, above), and a square of 8 by 8.
    line = View(north=0.01, south=0.01, east=2.78, west=0.01)
    square = View(north=0.34, south=0.01, east=0.34, west=0.01)
    for view in (line, square):
        started = time.monotonic()
        assert (await heatmap(api, view, 8))[0] == 8
        # Nearly two million cells of 8 characters meet the square: they are not listed
        # one by one (that took 24 s of CPU, blocking the server).
        assert time.monotonic() - started < 5


# ---- atomicity -------------------------------------------------------------------------


async def test_an_add_failing_on_its_last_action_writes_nothing(
    api: Api, client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    existing = await add_marker(api, 48.85, 2.35)
    counts = await stored_counts(client, table)
    before = await snapshot(client, table)
    sizes = fail_every_transaction_last(monkeypatch)
    result = await api(ADD_MARKER, input={"lat": 48.85, "lon": 2.35, "label": "doomed"})
    monkeypatch.undo()
    assert sizes == [1 + 1 + 8]
    assert result.codes == ["CONFLICT"]
    assert "NOWHERE" not in str(result.body) and "Transaction" not in str(result.body)
    assert await snapshot(client, table) == before
    assert await stored_counts(client, table) == counts
    assert (await search(api, PARIS))[0] == [existing.id]
    assert (await heatmap(api, TOWN, 8))[1] == {existing.geohash[:8]: 1}


async def test_a_remove_failing_on_its_last_action_keeps_everything(
    api: Api, client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = await add_marker(api, 48.85, 2.35)
    before = await snapshot(client, table)
    assert len(before) == 2 + 8
    sizes = fail_every_transaction_last(monkeypatch)
    result = await api(REMOVE_MARKER, id=marker.id)
    monkeypatch.undo()
    assert sizes == [2 + 8]
    assert result.codes == ["CONFLICT"]
    assert await snapshot(client, table) == before
    assert (await search(api, PARIS))[0] == [marker.id]
    assert (await heatmap(api, TOWN, 8))[1] == {marker.geohash[:8]: 1}
    # Once nothing stands in its way, the same removal goes through.
    (await api(REMOVE_MARKER, id=marker.id)).ok()
    assert await search(api, PARIS) == ([], False)
