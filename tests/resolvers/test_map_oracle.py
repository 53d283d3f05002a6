"""`markers` and `heatmap` against a brute-force model, over random viewports.

One pool of markers is written once for the module (pure builders, BatchWriteItem):
clusters around Paris, Fiji (across the antimeridian), the north pole (also across the
antimeridian there) and 0, 0 (where the four top-level cells meet), plus markers exactly
on the corners and edges of geohash cells of every length, and on the poles and the
antimeridian. Hypothesis draws viewports in and around those places, sometimes with an
edge exactly on a marker; each answer is compared with a filter over the whole pool.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keys.geohash import cell_box, encode
from tests.client import Api
from tests.documents import HEATMAP
from tests.resolvers.map_helpers import (
    MAP_LIMITS,
    MAX_PARTITIONS,
    Placed,
    View,
    batch_write,
    cells_meeting,
    default_precision,
    expected_cells,
    expected_ids,
    heatmap,
    new_marker_id,
    placed,
    pool_items,
    search,
)

pytestmark = pytest.mark.overrides(**MAP_LIMITS)


@dataclass(frozen=True)
class Region:
    name: str
    south: float
    north: float
    west: float
    east: float  # east < west: across the antimeridian
    markers: int

    @property
    def width(self) -> float:
        return (self.east - self.west) % 360.0

    def point(self, rng: random.Random) -> tuple[float, float]:
        lat = rng.uniform(self.south, self.north)
        return lat, wrap(self.west + rng.uniform(0.0, self.width))


REGIONS = [
    Region("paris", 48.6, 49.1, 2.0, 2.7, 55),
    Region("paris-centre", 48.84, 48.87, 2.33, 2.37, 25),
    Region("fiji", -17.4, -16.9, 179.7, -179.7, 55),
    Region("fiji-180", -17.06, -17.02, 179.98, -179.98, 25),
    Region("pole", 89.6, 90.0, -0.3, 0.3, 40),
    Region("pole-antimeridian", 89.7, 90.0, 179.8, -179.8, 25),
    Region("origin", -0.3, 0.3, -0.3, 0.3, 40),
]


def wrap(lon: float) -> float:
    if lon > 180.0:
        return lon - 360.0
    if lon < -180.0:
        return lon + 360.0
    return lon


def make_pool() -> list[Placed]:
    rng = random.Random(2024)
    points: list[tuple[float, float]] = []
    for region in REGIONS:
        points += [region.point(rng) for _ in range(region.markers)]
        # On corners and edges of cells of every length from 3 to 12.
        for _ in range(10):
            box = cell_box(encode(*region.point(rng), rng.randint(3, 12)))
            lat = rng.choice([box.south, box.north, (box.south + box.north) / 2])
            lon = rng.choice([box.west, box.east, (box.west + box.east) / 2])
            points.append((lat, lon))
    points += [
        (90.0, 0.0), (90.0, 0.1), (90.0, 180.0), (90.0, -180.0), (89.9, 180.0),
        (-17.0, 180.0), (-17.0, -180.0), (-17.1, 180.0),
        (0.0, 0.0), (0.0, 0.0), (0.0, 0.1), (0.1, 0.0), (-0.1, 0.0), (0.0, -0.1),
        (48.75, 2.25), (48.75, 2.25),
    ]  # fmt: skip
    return [placed(new_marker_id(n), lat, lon) for n, (lat, lon) in enumerate(points)]


POOL = make_pool()


@pytest.fixture(scope="module")
async def pool(app: Api, endpoint: str, shared_table: str) -> Api:
    await batch_write(endpoint, shared_table, pool_items(POOL))
    return app


# ---- viewports ------------------------------------------------------------------------


def sides(max_side: float) -> st.SearchStrategy[float]:
    """0.01 to `max_side` degrees, spread over the scales (plain floats favour 0.01)."""
    scales = [x for x in (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.5) if x <= max_side]
    scale = st.sampled_from([*scales, max_side])
    return st.builds(lambda s, f: max(0.01, s * f), scale, st.floats(0.6, 1.0))


@st.composite
def viewports(draw: st.DrawFn, max_side: float = 0.49) -> View:
    """A view of 0.01 to `max_side` degrees a side in or around one of the regions,
    sometimes with one edge exactly on a marker of the pool."""
    height = draw(sides(max_side))
    width = draw(sides(max_side))
    anchor = draw(st.sampled_from(["centre", "centre", "north", "south", "east", "west"]))
    if anchor == "centre":
        region = draw(st.sampled_from(REGIONS))
        lat = region.south + draw(st.floats(-0.1, 1.1)) * (region.north - region.south)
        lon = region.west + draw(st.floats(-0.1, 1.1)) * region.width
    else:
        marker = draw(st.sampled_from(POOL))
        lat = marker.lat + (draw(st.floats(0.0, 1.0)) - 0.5) * height
        lon = marker.lon + (draw(st.floats(0.0, 1.0)) - 0.5) * width
    south = min(max(lat - height / 2, -90.0), 90.0 - height)
    north = min(south + height, 90.0)
    west = wrap(lon - width / 2)
    east = wrap(west + width)
    if anchor == "north":
        north, south = marker.lat, max(marker.lat - height, -90.0)
    elif anchor == "south":
        south, north = marker.lat, min(marker.lat + height, 90.0)
    elif anchor == "east":
        east, west = marker.lon, wrap(marker.lon - width)
    elif anchor == "west":
        west, east = marker.lon, wrap(marker.lon + width)
    return View(north=north, south=south, east=east, west=west)


def examples(n: int) -> int:
    """`n` under the CI profile; a tenth of the profile's count when exploring deeper
    (`HYPOTHESIS_PROFILE=explore`)."""
    return max(n, settings().max_examples // 10)


# ---- markers --------------------------------------------------------------------------


@settings(max_examples=examples(25))
@given(view=viewports())
async def test_markers_are_exactly_those_in_view(pool: Api, view: View) -> None:
    ids, truncated = await search(pool, view, limit=1000)
    assert len(ids) == len(set(ids))
    assert set(ids) == expected_ids(POOL, view), view
    assert truncated is False


@settings(max_examples=examples(15))
@given(view=viewports(), limit=st.integers(1, 40))
async def test_markers_honour_the_limit(pool: Api, view: View, limit: int) -> None:
    expected = expected_ids(POOL, view)
    ids, truncated = await search(pool, view, limit=limit)
    assert set(ids) <= expected and len(ids) == len(set(ids))
    assert len(ids) == min(limit, len(expected))
    assert truncated is (len(expected) > limit)


# ---- heatmap --------------------------------------------------------------------------


@settings(max_examples=examples(20))
@given(view=st.one_of(viewports(), viewports(max_side=2.5)))
async def test_heatmap_at_the_default_precision(pool: Api, view: View) -> None:
    precision, cells = await heatmap(pool, view)
    assert precision == default_precision(view), view
    assert cells == expected_cells(POOL, view, precision), view
    assert all(count > 0 for count in cells.values())


@settings(max_examples=examples(20))
@given(view=st.one_of(viewports(), viewports(max_side=2.5)), precision=st.integers(1, 8))
async def test_heatmap_at_a_given_precision(pool: Api, view: View, precision: int) -> None:
    partitions = len(cells_meeting(view, max(0, precision - 3)))
    if partitions > MAX_PARTITIONS:
        result = await pool(HEATMAP, viewport=view.variables(), precision=precision)
        assert result.codes == ["BAD_USER_INPUT"], (view, precision)
        assert "precision" in result.errors[0]["message"]
        return
    answered, cells = await heatmap(pool, view, precision)
    assert answered == precision
    assert cells == expected_cells(POOL, view, precision), (view, precision)


def test_the_pool_is_varied() -> None:
    """The pool has what the tests rely on: clusters, edges, poles, both sides of 180."""
    assert 300 <= len(POOL) <= 400
    assert len({m.id for m in POOL}) == len(POOL)
    assert any(m.lat == 90.0 for m in POOL)
    assert any(m.lon == 180.0 for m in POOL) and any(m.lon == -180.0 for m in POOL)
    assert sum(1 for m in POOL if m.lon > 179.0) >= 30
    assert sum(1 for m in POOL if m.lon < -179.0) >= 30
    on_edges = [m for m in POOL if cell_box(m.geohash[:8]).south == m.lat]
    assert len(on_edges) >= 15
