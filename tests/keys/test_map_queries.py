"""Map key queries (`keys.map`, seed 002): heatmap cells, marker ranges, the seed's example.

- Heatmap: every cell of the view at the precision is in exactly one query, and a view at
  the default precision needs at most 4 partitions.
- Markers: ORACLE - a marker at any point of the view (edges and corners included, across
  the antimeridian and at the poles) has a key inside exactly one returned condition.
"""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errors.vocabulary import BadUserInput
from keys.conditions import KeyCondition
from keys.geohash import ALPHABET, cell_box, cell_size, cells_meeting, ordinal
from keys.map import (
    MAX_PLACE_SPAN,
    PLACE_QUERY_BUDGET,
    CellQuery,
    Viewport,
    checked_place_view,
    cover,
    cover_depth,
    default_precision,
    partitions_needed,
    place_geohash,
)
from keys.table import TABLE
from tests.demo_map import (
    cell_key,
    heatmap_queries,
    place_key,
    place_queries,
)
from tests.keys.map_helpers import (
    FEWER,
    MARKER_ID,
    PK,
    SEED_REGIONS,
    SK,
    exact_cells,
    holders,
    marker_views,
    points_in,
    viewports,
)

# ---- heatmap queries ------------------------------------------------------------------------


@st.composite
def heatmap_cases(draw: st.DrawFn) -> tuple[Viewport, int]:
    """A precision and a view of up to about 40 by 40 cells of it."""
    precision = draw(st.integers(1, 8))
    dlat, dlon = cell_size(precision)
    view = draw(viewports(0.0, 40 * max(dlat, dlon)))
    return view, precision


def check_heatmap(view: Viewport, precision: int, queries: list[CellQuery]) -> None:
    expected = exact_cells(view, precision)
    found = [cell for query in queries for cell in query.cells]
    assert len(found) == len(set(found))  # each cell in exactly one query
    assert set(found) == expected
    partitions = [query.condition.partition for query in queries]
    assert len(partitions) == len(set(partitions))
    assert len(queries) <= partitions_needed(view, precision)
    for query in queries:
        condition = query.condition
        assert condition.index == TABLE
        assert condition.low is not None and condition.high is not None
        assert len(condition.low) == len(condition.high) == min(3, precision)
        for cell in query.cells:
            key = cell_key(cell)
            partition = "DgCe#" + cell[: precision - 3] if precision >= 3 else f"DgCe{precision}#"
            assert condition.partition == key[PK] == partition
            assert condition.contains(key[SK])
        # What the read keeps of its span: exactly the view's cells.
        prefix = condition.partition.split("#", 1)[1]
        span = [prefix + suffix for suffix in _suffixes(condition.low, condition.high)]
        assert {cell for cell in span if query.wants(cell)} == query.cells


def _suffixes(low: str, high: str) -> list[str]:
    first, last = ordinal(low), ordinal(high)
    digits = len(low)
    return [
        "".join(ALPHABET[n >> (5 * (digits - 1 - i)) & 31] for i in range(digits))
        for n in range(first, last + 1)
    ]


@FEWER
@given(case=heatmap_cases())
def test_heatmap_queries_hold_every_cell_once(case: tuple[Viewport, int]) -> None:
    view, precision = case
    check_heatmap(view, precision, heatmap_queries(view, precision))


@settings(max_examples=15)
@given(view=viewports(1e-6, 2.0))
def test_heatmap_at_the_default_precision(view: Viewport) -> None:
    precision = default_precision(view)
    queries = heatmap_queries(view, precision)
    assert 1 <= len(queries) <= 4
    check_heatmap(view, precision, queries)


# ---- markers --------------------------------------------------------------------------------


def marker_partitions(view: Viewport) -> set[str]:
    return {"DgMa#" + c for box in view.boxes() for c in cells_meeting(box, 3)}


def check_marker_queries(
    view: Viewport, conditions: list[KeyCondition], points: list[tuple[float, float]]
) -> None:
    for lat, lon in points:
        key = place_key(place_geohash(lat, lon), MARKER_ID)
        assert len(holders(conditions, key)) == 1, (lat, lon, key)
    assert {c.partition for c in conditions} <= marker_partitions(view)
    for i, a in enumerate(conditions):
        assert a.low is not None and a.high is not None
        assert a.low <= a.high
        for b in conditions[i + 1 :]:
            if a.partition == b.partition:
                assert a.high < b.low or b.high < a.low  # no key is read twice


@FEWER
@given(data=st.data(), view=marker_views)
def test_marker_queries_hold_every_marker_in_view(data: st.DataObject, view: Viewport) -> None:
    if view.width <= MAX_PLACE_SPAN and view.height <= MAX_PLACE_SPAN:
        assert checked_place_view(view) is view
    conditions = place_queries(view)
    points = data.draw(st.lists(points_in(view), min_size=1, max_size=30))
    corners = [
        (lat, lon)
        for box in view.boxes()
        for lat in (box.south, box.north)
        for lon in (box.west, box.east)
    ]
    check_marker_queries(view, conditions, points + corners)
    if len(marker_partitions(view)) <= PLACE_QUERY_BUDGET:
        assert len(conditions) <= PLACE_QUERY_BUDGET


@FEWER
@given(view=marker_views)
def test_cover_reads_exactly_the_cells_meeting_the_view(view: Viewport) -> None:
    depth = cover_depth(view)
    ranges = [(r.partition, r.low, r.high) for r in cover(view, depth)]
    covered = {(p, i) for p, low, high in ranges for i in range(low, high + 1)}
    meeting = {c for box in view.boxes() for c in cells_meeting(box, depth)}
    assert covered == {(c[:3], ordinal(c[3:])) for c in meeting}
    assert ranges == sorted(ranges)
    # Neighbours in one partition are one range.
    assert all(a[2] + 1 < b[1] for a, b in pairwise(ranges) if a[0] == b[0])


@FEWER
@given(data=st.data(), view=marker_views, budget=st.integers(1, 12))
def test_marker_query_budget(data: st.DataObject, view: Viewport, budget: int) -> None:
    conditions = place_queries(view, budget)
    partitions = marker_partitions(view)
    if len(partitions) <= budget:
        assert len(conditions) <= budget
    else:  # one range per partition
        assert len(conditions) == len(partitions)
    check_marker_queries(view, conditions, data.draw(st.lists(points_in(view), max_size=10)))


@FEWER
@given(
    data=st.data(),
    view=viewports(0.0, MAX_PLACE_SPAN),
    thin=st.sampled_from(["height", "width", "both"]),
)
def test_thin_marker_views(data: st.DataObject, view: Viewport, thin: str) -> None:
    # A line (a view 0 degrees high or wide) is a valid view: it is planned in a bounded
    # number of cells, not divided down to 12-character cells along its length.
    if thin in ("height", "both"):
        view = Viewport(north=view.south, south=view.south, east=view.east, west=view.west)
    if thin in ("width", "both"):
        view = Viewport(north=view.north, south=view.south, east=view.west, west=view.west)
    assert len(place_queries(view, budget=1_000_000)) <= 2_000
    conditions = place_queries(view)
    check_marker_queries(view, conditions, data.draw(st.lists(points_in(view), max_size=20)))


@pytest.mark.parametrize(
    ("north", "south", "east", "west"),
    [
        (0.6, 0.0, 0.1, 0.0),  # too tall
        (0.1, 0.0, 10.75, 10.2),  # too wide
        (0.1, 0.0, -179.7, 179.7),  # 0.6 wide across the antimeridian
        (0.1, 0.0, 0.0, 0.25),  # west just east of east: almost round the world
    ],
)
def test_marker_view_larger_than_half_a_degree(
    north: float, south: float, east: float, west: float
) -> None:
    with pytest.raises(BadUserInput) as raised:
        view = Viewport(north=north, south=south, east=east, west=west)
        checked_place_view(view, "zoom in, or ask `heatmap`")
    assert raised.value.field == "viewport"
    assert "on a side: zoom in, or ask `heatmap`" in str(raised.value)


@pytest.mark.parametrize(
    ("north", "south", "east", "west"),
    [
        (0.5, 0.0, 10.75, 10.25),  # exactly 0.5 a side
        (90.0, 89.5, 180.0, 179.5),  # a pole and the antimeridian
        (1.0, 0.5, -179.8, 179.8),  # 0.4 wide across the antimeridian
        (1.0, 0.5, -179.75, 179.75),  # exactly 0.5 across it
    ],
)
def test_marker_view_of_half_a_degree(north: float, south: float, east: float, west: float) -> None:
    view = Viewport(north=north, south=south, east=east, west=west)
    assert checked_place_view(view) is view


# ---- the seed's example ---------------------------------------------------------------------


def seed_view() -> Viewport:
    """A view around the corner where gcpjfw, gcpjfy, gcpjft and gcpjfv meet (gcpjfy6d is
    the cell north-east of it), 0.4 of a 6-character cell each way."""
    north_west, south_east = cell_box("gcpjfw"), cell_box("gcpjfv")
    lat, lon = north_west.south, north_west.east
    assert (lat, lon) == (south_east.north, south_east.west)
    dlat, dlon = cell_size(6)
    return Viewport(
        north=lat + 0.4 * dlat, south=lat - 0.4 * dlat, east=lon + 0.4 * dlon, west=lon - 0.4 * dlon
    )


def test_seed_example_regions() -> None:
    view = seed_view()
    (box,) = view.boxes()
    assert cells_meeting(box, 6) == list(SEED_REGIONS)
    assert "gcpjfy6d" in cells_meeting(box, 8)
    corner = cell_box("gcpjfy").south, cell_box("gcpjfy").west
    assert all(cell_box(region).contains(*corner) for region in SEED_REGIONS)


def test_seed_example_heatmap() -> None:
    view = seed_view()
    # All four regions are in the 5-character cell gcpjf: one partition at precision 8.
    assert default_precision(view) == 8
    queries = heatmap_queries(view, 8)
    assert [q.condition.partition for q in queries] == ["DgCe#gcpjf"]
    (query,) = queries
    assert {cell[:6] for cell in query.cells} == set(SEED_REGIONS)
    # One range from the first cell in view to the last: within t00..yzz (seed: w00..wzz,
    # y00..yzz, t00..tzz, v00..vzz).
    low, high = query.condition.low, query.condition.high
    assert low is not None and high is not None
    assert "t00" <= low <= high <= "yzz"
    check_heatmap(view, 8, queries)
    # At precision 6 the four regions themselves, in partition DgCe#gcp.
    (query6,) = heatmap_queries(view, 6)
    assert query6.condition.partition == "DgCe#gcp"
    assert query6.cells == frozenset(SEED_REGIONS)
    assert (query6.condition.low, query6.condition.high) == ("jft", "jfy")


def test_seed_example_markers() -> None:
    view = seed_view()
    (box,) = view.boxes()
    conditions = place_queries(checked_place_view(view))
    assert 1 <= len(conditions) <= PLACE_QUERY_BUDGET
    assert {c.partition for c in conditions} == {"DgMa#gcp"}
    points = []
    for region in SEED_REGIONS:
        part = cell_box(region)
        south, north = max(part.south, box.south), min(part.north, box.north)
        west, east = max(part.west, box.west), min(part.east, box.east)
        points += [
            (lat, lon)
            for lat in (south, (south + north) / 2, north)
            for lon in (west, (west + east) / 2, east)
        ]
    check_marker_queries(view, conditions, points)
    held = {place_geohash(lat, lon)[:6] for lat, lon in points}
    assert held == set(SEED_REGIONS)


@pytest.mark.parametrize(
    ("west", "east", "south", "north"),
    [(-128.3, -127.8, 10.0, 10.5), (-64.4, -63.9, 0.0, 0.5), (0.0, 0.5, -32.2, -31.7)],
)
def test_a_view_of_exactly_half_a_degree_is_allowed_wherever_it_lies(
    west: float, east: float, south: float, north: float
) -> None:
    # As a client sends them: literals whose float difference is a hair over 0.5.
    view = Viewport(north=north, south=south, east=east, west=west)
    assert checked_place_view(view) is view
