"""The map API (seed 002): markers, their search, their removal, heatmap counts.

Bad input and failures half way through a transaction are in `test_map_bad_input.py`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from keys.codecs import ksuid_seconds
from keys.geohash import cell_box, encode
from tests.client import Api, assert_well_formed
from tests.documents import ADD_MARKER, MARKERS, MARKERS_DEFAULT_LIMIT, REMOVE_MARKER
from tests.resolvers.map_helpers import (
    MAP_LIMITS,
    PARIS,
    TOWN,
    Placed,
    View,
    add_marker,
    add_markers,
    default_precision,
    expected_cells,
    heatmap,
    search,
    snapshot,
    stored_counts,
)

pytestmark = pytest.mark.overrides(**MAP_LIMITS)


KSUID = re.compile(r"[0-9A-Za-z]{27}")
MILLIS_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
MISSING_KSUID = "1mRb9h140NNyE82chMLiYY6LwDk"


# ---- addMarker ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lat", "lon", "known"),
    [
        # Standard geohashes published with the algorithm (Wikipedia, geohash.org).
        (42.605, -5.603, "ezs42"),
        (57.64911, 10.40744, "u4pruydqqvj"),
        (48.8566, 2.3522, "u09tvw0f"),
        (0.0, 0.0, "s0000000"),
        (-90.0, -180.0, "00000000"),
        (90.0, 180.0, "zzzzzzzz"),
    ],
)
async def test_add_marker_returns_the_marker_with_its_standard_geohash(
    api: Api, client: Any, table: str, lat: float, lon: float, known: str
) -> None:

    before = datetime.now(UTC)
    result = await api(ADD_MARKER, input={"lat": lat, "lon": lon, "label": "Café ☕"})
    assert_well_formed(result)
    marker = result.ok()["addMarker"]
    assert KSUID.fullmatch(marker["id"])
    assert abs(ksuid_seconds(marker["id"]) - before.timestamp()) < 5
    assert (marker["lat"], marker["lon"], marker["label"]) == (lat, lon, "Café ☕")
    geohash = marker["geohash"]
    assert len(geohash) >= 8
    assert geohash == encode(lat, lon, len(geohash))
    assert geohash.startswith(known)
    assert MILLIS_UTC.fullmatch(marker["createdAt"])
    created = datetime.fromisoformat(marker["createdAt"].replace("Z", "+00:00"))
    assert before - timedelta(seconds=1) <= created <= datetime.now(UTC) + timedelta(seconds=1)
    # One TransactWriteItems: the id item, the place item and eight cell counts.
    assert result.cost["requests"] == 1
    assert await stored_counts(client, table) == {geohash[:n]: 1 for n in range(1, 9)}
    assert len(await snapshot(client, table)) == 2 + 8
    # What `markers` returns is what `addMarker` returned.
    view = View(north=lat, south=lat, east=lon, west=lon)
    found = (await api(MARKERS, viewport=view.variables(), limit=10)).ok()["markers"]
    assert found == {"truncated": False, "markers": [marker]}


async def test_markers_get_distinct_ids_and_counts_add_up(
    api: Api, client: Any, table: str
) -> None:
    added = await add_markers(api, [(48.85, 2.35)] * 10)
    assert len({m.id for m in added}) == 10
    counts = await stored_counts(client, table)
    assert counts == {added[0].geohash[:n]: 10 for n in range(1, 9)}


# ---- markers --------------------------------------------------------------------------


async def test_markers_returns_those_in_view_and_no_others(api: Api) -> None:
    inside = await add_markers(api, [(48.85, 2.35), (48.81, 2.31), (48.89, 2.39)])
    await add_markers(
        api, [(48.95, 2.35), (48.75, 2.35), (48.85, 2.45), (48.85, 2.25), (-48.85, 2.35)]
    )
    ids, truncated = await search(api, PARIS)
    assert sorted(ids) == sorted(m.id for m in inside)
    assert truncated is False
    empty = View(north=10.1, south=10.0, east=10.1, west=10.0)
    assert await search(api, empty) == ([], False)


async def test_markers_on_the_edges_and_corners_are_in_view(api: Api) -> None:
    n, s, e, w = 48.9, 48.8, 2.4, 2.3
    on_edges = [
        (n, 2.35), (s, 2.35), (48.85, e), (48.85, w),  # the four edges
        (n, e), (n, w), (s, e), (s, w),  # the four corners
    ]  # fmt: skip
    eps = 1e-9
    just_outside = [(n + eps, 2.35), (s - eps, 2.35), (48.85, e + eps), (48.85, w - eps)]
    edges = await add_markers(api, on_edges)
    await add_markers(api, just_outside)
    ids, truncated = await search(api, View(north=n, south=s, east=e, west=w))
    assert sorted(ids) == sorted(m.id for m in edges)
    assert not truncated


async def test_edges_on_cell_boundaries_are_in_view(api: Api) -> None:
    """A view whose edges are geohash cell boundaries, with markers on them."""
    box = cell_box("u09tv")
    corners = [(box.north, box.east), (box.south, box.west), (box.north, box.west)]
    edges = await add_markers(api, [*corners, (box.south, (box.west + box.east) / 2)])
    view = View(north=box.north, south=box.south, east=box.east, west=box.west)
    ids, _ = await search(api, view)
    assert sorted(ids) == sorted(m.id for m in edges)
    # A view that only touches the cell from the north-east, at its corner.
    touching = View(north=box.north + 0.1, south=box.north, east=box.east + 0.1, west=box.east)
    assert (await search(api, touching))[0] == [edges[0].id]


async def test_a_view_across_the_antimeridian_finds_both_sides(api: Api) -> None:
    west_side = await add_markers(api, [(-17.0, 179.95), (-17.05, 180.0), (-17.1, 179.9)])
    east_side = await add_markers(api, [(-17.0, -179.95), (-17.05, -180.0), (-17.1, -179.9)])
    others = await add_markers(
        api, [(-17.0, 179.89), (-17.0, -179.89), (-17.0, 0.0), (-16.5, 179.95)]
    )
    view = View(north=-16.9, south=-17.2, east=-179.9, west=179.9)
    ids, truncated = await search(api, view)
    assert sorted(ids) == sorted(m.id for m in west_side + east_side)
    assert not truncated
    precision, cells = await heatmap(api, view)
    assert precision == default_precision(view)
    assert cells == expected_cells(west_side + east_side + others, view, precision)
    assert {cell[0] for cell in cells} == {"r", "2"}  # both sides of the antimeridian
    # Each side alone.
    only_west = View(north=-16.9, south=-17.2, east=180.0, west=179.9)
    assert sorted((await search(api, only_west))[0]) == sorted(m.id for m in west_side)
    only_east = View(north=-16.9, south=-17.2, east=-179.9, west=-180.0)
    assert sorted((await search(api, only_east))[0]) == sorted(m.id for m in east_side)


@pytest.mark.parametrize("pole", [90.0, -90.0])
async def test_a_view_touching_a_pole(api: Api, pole: float) -> None:
    sign = 1.0 if pole > 0 else -1.0
    inside = await add_markers(
        api, [(pole, 0.1), (pole, 0.0), (sign * 89.9, 0.3), (sign * 89.8, 0.0), (pole, 0.4)]
    )
    outside = await add_markers(api, [(sign * 89.79, 0.1), (pole, 0.41), (pole, -0.01)])
    north, south = (90.0, 89.8) if pole > 0 else (-89.8, -90.0)
    view = View(north=north, south=south, east=0.4, west=0.0)
    ids, _ = await search(api, view)
    assert sorted(ids) == sorted(m.id for m in inside)
    precision, cells = await heatmap(api, view)
    assert precision == default_precision(view)
    assert cells == expected_cells(inside + outside, view, precision)
    for length in (3, 6, 8):
        assert (await heatmap(api, view, length))[1] == expected_cells(
            inside + outside, view, length
        )


async def test_limit_and_truncated(api: Api) -> None:
    added = await add_markers(api, [(48.85 + i / 1000, 2.35) for i in range(5)])
    everything = sorted(m.id for m in added)
    ids, truncated = await search(api, PARIS, limit=5)
    assert (sorted(ids), truncated) == (everything, False)
    ids, truncated = await search(api, PARIS, limit=4)
    assert len(ids) == 4 and set(ids) < set(everything) and truncated is True
    ids, truncated = await search(api, PARIS, limit=1)
    assert len(ids) == 1 and truncated is True
    ids, truncated = await search(api, PARIS, limit=1000)
    assert (sorted(ids), truncated) == (everything, False)
    found = (await api(MARKERS_DEFAULT_LIMIT, viewport=PARIS.variables())).ok()["markers"]
    assert (len(found["markers"]), found["truncated"]) == (5, False)
    # An explicit null is the default (100).
    ids, truncated = await search(api, PARIS, limit=None)
    assert (sorted(ids), truncated) == (everything, False)


async def test_default_limit_is_100(api: Api) -> None:
    await add_markers(api, [(48.85 + i / 10_000, 2.35) for i in range(101)])
    found = (await api(MARKERS_DEFAULT_LIMIT, viewport=PARIS.variables())).ok()["markers"]
    assert (len(found["markers"]), found["truncated"]) == (100, True)
    ids, truncated = await search(api, PARIS, limit=101)
    assert (len(set(ids)), truncated) == (101, False)


# ---- removeMarker ---------------------------------------------------------------------


async def test_remove_marker_removes_it_and_decrements_counts(
    api: Api, client: Any, table: str
) -> None:
    first, second = await add_markers(api, [(48.85, 2.35), (48.85, 2.35)])
    other = await add_marker(api, 48.86, 2.36)
    _, cells = await heatmap(api, TOWN, 8)
    assert cells == {first.geohash[:8]: 2, other.geohash[:8]: 1}

    removed = await api(REMOVE_MARKER, id=first.id)
    assert removed.ok() == {"removeMarker": True}
    # A consistent GetItem of the id item, then one transaction.
    assert removed.cost["requests"] == 2
    assert sorted((await search(api, PARIS))[0]) == sorted([second.id, other.id])
    _, cells = await heatmap(api, TOWN, 8)
    assert cells == {first.geohash[:8]: 1, other.geohash[:8]: 1}
    for length in range(1, 9):
        assert (await heatmap(api, TOWN, length))[1][first.geohash[:length]] == (
            2 if first.geohash[:length] == other.geohash[:length] else 1
        )

    (await api(REMOVE_MARKER, id=second.id)).ok()
    _, cells = await heatmap(api, TOWN, 8)
    assert cells == {other.geohash[:8]: 1}  # a count of 0 is not listed
    (await api(REMOVE_MARKER, id=other.id)).ok()
    assert await search(api, PARIS) == ([], False)
    assert await heatmap(api, TOWN, 8) == (8, {})
    # Nothing but zero counts is left.
    assert set((await stored_counts(client, table)).values()) == {0}
    assert all(pk.startswith("DgCe") for pk, _, _ in await snapshot(client, table))


async def test_removing_twice_or_a_missing_marker_is_not_found(
    api: Api, client: Any, table: str
) -> None:
    kept = await add_marker(api, 48.85, 2.35)
    gone = await add_marker(api, 48.85, 2.35)
    (await api(REMOVE_MARKER, id=gone.id)).ok()
    before = await snapshot(client, table)
    for missing in (gone.id, MISSING_KSUID, "nope"):
        result = await api(REMOVE_MARKER, id=missing)
        assert_well_formed(result)
        assert result.codes == ["NOT_FOUND"], missing
    for bad in ("a#b", "", " ", "x" * 65, "MARKER#" + kept.id):
        result = await api(REMOVE_MARKER, id=bad)
        assert result.codes == ["BAD_USER_INPUT"], bad
    assert await snapshot(client, table) == before
    assert (await search(api, PARIS))[0] == [kept.id]


# ---- the seed's example: four regions meeting at a corner -------------------------------


async def test_the_four_regions_of_the_seed(api: Api) -> None:
    """gcpjfw | gcpjfy over gcpjft | gcpjfv: a view around their shared corner."""
    regions = {r: cell_box(r) for r in ("gcpjfw", "gcpjfy", "gcpjft", "gcpjfv")}
    corner_lat, corner_lon = regions["gcpjfw"].south, regions["gcpjfw"].east
    assert all(
        corner_lat in (b.south, b.north) and corner_lon in (b.west, b.east)
        for b in regions.values()
    )
    view = View(
        north=corner_lat + 0.002,
        south=corner_lat - 0.002,
        east=corner_lon + 0.004,
        west=corner_lon - 0.004,
    )
    inside: dict[str, list[Placed]] = {}
    outside: dict[str, list[Placed]] = {}
    for region, box in regions.items():
        # Points at 1/4 and 1/8 of the way from the corner (inside the view) and at 7/8
        # (outside it), all strictly inside the region.
        def toward(fraction: float, box: Any = box) -> tuple[float, float]:
            lat = corner_lat + (box.south + box.north - 2 * corner_lat) * fraction
            lon = corner_lon + (box.west + box.east - 2 * corner_lon) * fraction
            return lat, lon

        inside[region] = await add_markers(api, [toward(1 / 4), toward(1 / 8)])
        outside[region] = await add_markers(api, [toward(7 / 8)])
        for marker in inside[region] + outside[region]:
            assert marker.geohash.startswith(region)
            assert cell_box(region).contains(marker.lat, marker.lon)
    ids, truncated = await search(api, view)
    assert sorted(ids) == sorted(m.id for ms in inside.values() for m in ms)
    assert not truncated
    # Default precision: the view lies inside one 5-character cell (gcpjf), so 8.
    precision, cells = await heatmap(api, view)
    assert precision == 8
    every = [m for ms in (*inside.values(), *outside.values()) for m in ms]
    assert cells == expected_cells(every, view, 8)
    assert sum(cells.values()) == 8  # the markers a quarter or an eighth from the corner
    # At precision 6 the four regions are counted whole, markers outside the view included.
    assert (await heatmap(api, view, 6))[1] == {region: 3 for region in regions}
    assert (await heatmap(api, view, 5))[1] == {"gcpjf": 12}
    assert (await heatmap(api, view, 3))[1] == {"gcp": 12}


# ---- heatmap --------------------------------------------------------------------------


async def test_heatmap_precision_and_cells(api: Api) -> None:
    added = await add_markers(api, [(48.85, 2.35), (48.851, 2.351), (48.7, 2.0), (40.0, 2.0)])
    city = View(north=49.0, south=48.6, east=2.6, west=1.9)
    # (Precision 8 on the city needs 160 partitions: refused.)
    for view, length in [*((city, n) for n in range(3, 8)), (TOWN, 7), (TOWN, 8)]:
        precision, cells = await heatmap(api, view, length)
        assert precision == length
        assert cells == expected_cells(added, view, length), length
    # A world view: precision 3, one partition.
    world = View(north=90.0, south=-90.0, east=180.0, west=-180.0)
    precision, cells = await heatmap(api, world)
    assert precision == 3
    assert cells == {"u09": 3, encode(40.0, 2.0, 3): 1}
