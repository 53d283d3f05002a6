"""Map keys (`keys.geo`, seed 002) against the seed's table, the API's rules and oracles.

- Keys: a marker lives in `DgMa#<3 chars>` under the rest of its 12-character geohash; a
  cell count of length 3..8 in `DgCe#<all but 3>` under the last 3 (the seed's table).
- Heatmap: the default precision is the largest length 3..8 whose cells three characters
  shorter that meet the view number at most 4 (API.md §3), counted here by descending
  through cell boxes, independently of the grid arithmetic of `keys.geohash`.
- Markers: ORACLE - a marker at any point of the view (edges and corners included, across
  the antimeridian and at the poles) has a key inside exactly one returned condition.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keys.codecs import KSUID_LENGTH, ksuid
from keys.conditions import KeyCondition
from keys.errors import InvalidInput
from keys.geo import (
    MARKER_QUERY_BUDGET,
    MAX_MARKER_SPAN,
    CellQuery,
    Viewport,
    cell_key,
    cell_keys,
    cell_of,
    checked_marker_view,
    checked_precision,
    default_precision,
    heatmap_queries,
    marker_geohash,
    marker_key,
    marker_place,
    marker_queries,
    partitions_needed,
)
from keys.geohash import ALPHABET, Box, cell_box, cell_size, cells_meeting, encode
from keys.table import TABLE

FAST = settings(max_examples=150)
FEWER = settings(max_examples=50)  # examples that plan a whole heatmap or marker search

PK, SK = TABLE.partition_key, TABLE.sort_key
MARKER_ID = ksuid(1_700_000_000, bytes(range(16)))
# The seed's example: four 6-character regions meeting at one corner.
SEED_REGIONS = ("gcpjft", "gcpjfv", "gcpjfw", "gcpjfy")

geohashes = st.text(ALPHABET, min_size=12, max_size=12)
marker_ids = st.builds(
    ksuid, st.integers(1_400_000_000, 4_000_000_000), st.binary(min_size=16, max_size=16)
)


# ---- oracles --------------------------------------------------------------------------------


def meeting_count(view: Viewport, length: int, cap: int) -> int:
    """Cells of `length` meeting the view (length 0: the world cell), or `cap + 1` if more.

    Descends through every child whose box meets one of the view's boxes; a level never has
    more cells than the next, so stopping once a level exceeds `cap` is exact.
    """
    boxes = view.boxes()
    level = [""]
    for _ in range(length):
        level = [
            child
            for cell in level
            for child in (cell + c for c in ALPHABET)
            if any(cell_box(child).intersects(box) for box in boxes)
        ]
        if len(level) > cap:
            return cap + 1
    return len(level)


def rule_precision(view: Viewport) -> int:
    """API.md §3: the largest length 3..8 with at most 4 cells three characters shorter."""
    return max(p for p in range(3, 9) if meeting_count(view, p - 3, 4) <= 4)


def exact_cells(view: Viewport, length: int) -> set[str]:
    """Cells of `length` meeting the view, from exact (Fraction) grid arithmetic."""
    lat_bits, lon_bits = 5 * length // 2, (5 * length + 1) // 2
    dlat, dlon = Fraction(180, 1 << lat_bits), Fraction(360, 1 << lon_bits)

    def span(low: float, high: float, origin: int, size: Fraction, bits: int) -> range:
        first = max(0, math.ceil((Fraction(low) - origin) / size) - 1)
        last = min((1 << bits) - 1, math.floor((Fraction(high) - origin) / size))
        return range(first, last + 1)

    cells = set()
    for box in view.boxes():
        for row in span(box.south, box.north, -90, dlat, lat_bits):
            for col in span(box.west, box.east, -180, dlon, lon_bits):
                # The middle of a cell is exact in binary, so `encode` cannot misplace it.
                lat = float(-90 + (row + Fraction(1, 2)) * dlat)
                lon = float(-180 + (col + Fraction(1, 2)) * dlon)
                cells.add(encode(lat, lon, length))
    return cells


def holders(conditions: list[KeyCondition], key: dict[str, str]) -> list[KeyCondition]:
    return [c for c in conditions if c.partition == key[PK] and c.contains(key[SK])]


# ---- strategies -----------------------------------------------------------------------------


def snapped(value: float, size: float, origin: float) -> float:
    return origin + math.floor((value - origin) / size) * size


@st.composite
def viewports(draw: st.DrawFn, min_side: float, max_side: float) -> Viewport:
    """A view with sides in the range (or 0 / 360 as drawn), often touching a pole, crossing
    the antimeridian, or with edges on cell boundaries or one float next to them."""
    height = draw(st.floats(min_side, min(max_side, 180.0)))
    width = draw(st.floats(min_side, min(max_side, 360.0)))
    place = draw(st.sampled_from(["anywhere", "north pole", "south pole", "antimeridian"]))
    if place == "north pole":
        south = 90.0 - height
    elif place == "south pole":
        south = -90.0
    else:
        south = draw(st.floats(-90.0, 90.0 - height))
    west = draw(st.floats(-180.0, 180.0))
    if place == "antimeridian":
        west = 180.0 - draw(st.floats(0.0, 1.0)) * width
    edges = draw(st.sampled_from(["as drawn", "on boundaries", "next to boundaries"]))
    if edges != "as drawn":
        # Cells of a length no larger than the largest side.
        fits = [n for n in range(1, 13) if max(cell_size(n)) <= max_side] or [12]
        dlat, dlon = cell_size(draw(st.sampled_from(fits)))
        south = snapped(south, dlat, -90.0)
        height = max(dlat, snapped(height, dlat, 0.0))
        west = snapped(west, dlon, -180.0)
        width = max(dlon, snapped(width, dlon, 0.0))
    north = 90.0 if place == "north pole" else min(90.0, south + height)
    east = west + width
    if east > 180.0:
        east -= 360.0  # crosses the antimeridian
    if edges == "next to boundaries":
        towards = draw(st.sampled_from([-math.inf, math.inf]))
        south = min(90.0, max(-90.0, math.nextafter(south, towards)))
        north = min(90.0, max(south, math.nextafter(north, -towards)))
        west = max(-180.0, min(180.0, math.nextafter(west, towards)))
        east = max(-180.0, min(180.0, math.nextafter(east, -towards)))
    return Viewport(north=north, south=south, east=east, west=west)


@st.composite
def points_in(draw: st.DrawFn, view: Viewport) -> tuple[float, float]:
    """A point of the view: random, or on an edge or a corner (edges are included)."""
    box = draw(st.sampled_from(view.boxes()))
    lat = draw(
        st.one_of(
            st.sampled_from([box.south, box.north]),
            st.floats(box.south, box.north),
        )
    )
    lon = draw(
        st.one_of(
            st.sampled_from([box.west, box.east]),
            st.floats(box.west, box.east),
        )
    )
    assert view.contains(lat, lon)
    return lat, lon


marker_views = viewports(0.01, MAX_MARKER_SPAN)


# ---- viewports ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("north", "south", "east", "west", "field"),
    [
        (90.5, 0.0, 1.0, 0.0, "viewport.north"),
        (1.0, -90.0001, 1.0, 0.0, "viewport.south"),
        (1.0, 0.0, 180.25, 0.0, "viewport.east"),
        (1.0, 0.0, 1.0, -181.0, "viewport.west"),
        (math.nan, 0.0, 1.0, 0.0, "viewport.north"),
        (1.0, 0.0, 1.0, math.inf, "viewport.west"),
        (0.0, 0.5, 1.0, 0.0, "viewport"),  # south of north
    ],
)
def test_viewport_refusals(
    north: float, south: float, east: float, west: float, field: str
) -> None:
    with pytest.raises(InvalidInput) as raised:
        Viewport(north=north, south=south, east=east, west=west)
    assert raised.value.field == field


def test_viewport_extremes_are_accepted() -> None:
    world = Viewport(north=90.0, south=-90.0, east=180.0, west=-180.0)
    assert (world.width, world.height) == (360.0, 180.0)
    assert world.boxes() == [Box(-90.0, 90.0, -180.0, 180.0)]
    line = Viewport(north=10.0, south=10.0, east=5.0, west=5.0)
    assert (line.width, line.height) == (0.0, 0.0)
    assert line.contains(10.0, 5.0)


def test_antimeridian_view() -> None:
    view = Viewport(north=1.0, south=-1.0, east=-179.8, west=179.8)
    assert view.width == pytest.approx(0.4)
    assert view.boxes() == [Box(-1.0, 1.0, 179.8, 180.0), Box(-1.0, 1.0, -180.0, -179.8)]
    for lat, lon in [(0.0, 180.0), (0.0, -180.0), (1.0, 179.8), (-1.0, -179.8), (0.5, 179.9)]:
        assert view.contains(lat, lon)
    for lat, lon in [(0.0, 0.0), (0.0, 179.7), (0.0, -179.7), (1.01, 180.0)]:
        assert not view.contains(lat, lon)
    # West just east of east: the view goes almost all the way round.
    assert Viewport(north=1.0, south=0.0, east=0.0, west=0.25).width == 359.75


@FAST
@given(view=viewports(0.0, 360.0), lat=st.floats(-90.0, 90.0), lon=st.floats(-180.0, 180.0))
def test_viewport_geometry(view: Viewport, lat: float, lon: float) -> None:
    boxes = view.boxes()
    assert len(boxes) == (2 if view.west > view.east else 1)
    assert view.height == view.north - view.south
    assert view.width == pytest.approx(sum(b.east - b.west for b in boxes), abs=1e-9)
    assert 0.0 <= view.width <= 360.0
    for box in boxes:
        assert -180.0 <= box.west <= box.east <= 180.0
        assert (box.south, box.north) == (view.south, view.north)
    # Edges and corners are in the view.
    for corner_lat in (view.south, view.north):
        for corner_lon in (view.west, view.east):
            assert view.contains(corner_lat, corner_lon)
    # A point is in the view when it is between the edges, eastwards from west to east.
    between = view.south <= lat <= view.north and (
        view.west <= lon <= view.east
        if view.west <= view.east
        else lon >= view.west or lon <= view.east
    )
    assert view.contains(lat, lon) == between


# ---- keys -----------------------------------------------------------------------------------


def test_cell_keys_are_the_seed_table() -> None:
    keys = cell_keys("gcpjfy6d0000")
    assert [(k[PK], k[SK]) for k in keys] == [
        ("DgCe#", "gcp"),
        ("DgCe#g", "cpj"),
        ("DgCe#gc", "pjf"),
        ("DgCe#gcp", "jfy"),
        ("DgCe#gcpj", "fy6"),
        ("DgCe#gcpjf", "y6d"),
    ]
    assert [cell_of(k) for k in keys] == ["gcp", "gcpj", "gcpjf", "gcpjfy", "gcpjfy6", "gcpjfy6d"]


def test_marker_keys() -> None:
    geohash = "gcpjfy6d0123"
    assert marker_place(geohash, MARKER_ID) == {PK: "DgMa#gcp", SK: f"jfy6d0123#{MARKER_ID}"}
    assert marker_key(MARKER_ID) == {PK: f"MARKER#{MARKER_ID}", SK: f"MARKER#{MARKER_ID}"}


@FAST
@given(lat=st.floats(-90.0, 90.0), lon=st.floats(-180.0, 180.0), marker_id=marker_ids)
def test_marker_geohash(lat: float, lon: float, marker_id: str) -> None:
    geohash = marker_geohash(lat, lon)
    assert geohash == encode(lat, lon, 12)
    assert len(geohash) == 12
    assert cell_box(geohash).contains(lat, lon)
    place = marker_place(geohash, marker_id)
    assert place[PK] == "DgMa#" + geohash[:3]
    assert place[SK] == geohash[3:] + "#" + marker_id


@pytest.mark.parametrize(("lat", "lon"), [(90.01, 0.0), (-91.0, 0.0), (0.0, 180.5), (0.0, -181.0)])
def test_marker_geohash_refuses_outside_the_world(lat: float, lon: float) -> None:
    with pytest.raises(InvalidInput):
        marker_geohash(lat, lon)


@FAST
@given(st.lists(geohashes, min_size=1, max_size=20), marker_ids)
def test_sort_keys_have_one_length_per_partition(hashes: list[str], marker_id: str) -> None:
    lengths: dict[str, set[int]] = {}
    for geohash in hashes:
        keys = cell_keys(geohash)
        assert len(keys) == 6
        for length, key in zip(range(3, 9), keys, strict=True):
            assert key[PK].startswith("DgCe#")
            assert key[SK] == geohash[length - 3 : length]
            assert key[SK] == key[SK].lower()
            assert cell_of(key) == geohash[:length]
            assert cell_key(geohash[:length]) == key
            lengths.setdefault(key[PK], set()).add(len(key[SK]))
        place = marker_place(geohash, marker_id)
        assert place[PK].startswith("DgMa#")
        suffix, _, rest = place[SK].partition("#")
        assert suffix == suffix.lower() == geohash[3:]
        assert rest == marker_id
        lengths.setdefault(place[PK], set()).add(len(place[SK]))
    assert all(found in ({3}, {9 + 1 + KSUID_LENGTH}) for found in lengths.values())


# ---- heatmap precision ----------------------------------------------------------------------


@FAST
@given(view=viewports(0.0, 360.0))
def test_default_precision_is_the_rule(view: Viewport) -> None:
    expected = rule_precision(view)
    assert default_precision(view) == expected
    assert checked_precision(view, None) == expected
    if expected < 8:  # the next length needs more than 4
        assert meeting_count(view, expected - 2, 4) > 4


@FAST
@given(view=viewports(1e-7, 30.0))
def test_default_precision_of_small_views(view: Viewport) -> None:
    assert default_precision(view) == rule_precision(view)


@FEWER
@given(view=viewports(0.0, 360.0), precision=st.integers(3, 8))
def test_client_precision_needs_at_most_64_partitions(view: Viewport, precision: int) -> None:
    needed = meeting_count(view, precision - 3, 64)
    if needed > 64:
        with pytest.raises(InvalidInput) as raised:
            checked_precision(view, precision)
        assert raised.value.field == "precision"
        assert partitions_needed(view, precision) > 64
    else:
        assert checked_precision(view, precision) == precision
        assert partitions_needed(view, precision) == needed


@pytest.mark.parametrize("precision", [-1, 0, 1, 2, 9, 12])
def test_client_precision_outside_3_to_8(precision: int) -> None:
    view = Viewport(north=1.0, south=0.0, east=1.0, west=0.0)
    with pytest.raises(InvalidInput) as raised:
        checked_precision(view, precision)
    assert raised.value.field == "precision"


def test_precision_counts_a_cell_both_halves_meet_once() -> None:
    # Nearly round the world, 2 rows of 5.6 degree cells: 64 cells of length 2, the column
    # at -180..-168.75 met by both halves of the view.
    view = Viewport(north=6.0, south=1.0, east=-175.0, west=-170.0)
    assert meeting_count(view, 2, 64) == 64
    assert partitions_needed(view, 5) == 64
    assert checked_precision(view, 5) == 5


def test_precision_of_a_view_one_float_inside_cell_edges() -> None:
    # 2 by 2 cells of length 3 (1.40625 degrees), shrunk by one float: 4 partitions at
    # precision 6. `edge + 90` rounds back onto the boundary; it must not count the
    # neighbouring row or column.
    view = Viewport(
        north=math.nextafter(46.40625, -math.inf),
        south=math.nextafter(43.59375, math.inf),
        east=math.nextafter(91.40625, -math.inf),
        west=math.nextafter(88.59375, math.inf),
    )
    assert partitions_needed(view, 6) == 4
    assert default_precision(view) == rule_precision(view) == 6


# ---- heatmap queries ------------------------------------------------------------------------


@st.composite
def heatmap_cases(draw: st.DrawFn) -> tuple[Viewport, int]:
    """A precision and a view of up to about 40 by 40 cells of it."""
    precision = draw(st.integers(3, 8))
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
        assert len(condition.low) == len(condition.high) == 3
        for cell in query.cells:
            key = cell_key(cell)
            assert condition.partition == key[PK] == "DgCe#" + cell[: precision - 3]
            assert condition.contains(key[SK])


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
        key = marker_place(marker_geohash(lat, lon), MARKER_ID)
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
    if view.width <= MAX_MARKER_SPAN and view.height <= MAX_MARKER_SPAN:
        assert checked_marker_view(view) is view
    conditions = marker_queries(view)
    points = data.draw(st.lists(points_in(view), min_size=1, max_size=30))
    corners = [
        (lat, lon)
        for box in view.boxes()
        for lat in (box.south, box.north)
        for lon in (box.west, box.east)
    ]
    check_marker_queries(view, conditions, points + corners)
    if len(marker_partitions(view)) <= MARKER_QUERY_BUDGET:
        assert len(conditions) <= MARKER_QUERY_BUDGET


@FEWER
@given(data=st.data(), view=marker_views, budget=st.integers(1, 12))
def test_marker_query_budget(data: st.DataObject, view: Viewport, budget: int) -> None:
    conditions = marker_queries(view, budget)
    partitions = marker_partitions(view)
    if len(partitions) <= budget:
        assert len(conditions) <= budget
    else:  # one range per partition
        assert len(conditions) == len(partitions)
    check_marker_queries(view, conditions, data.draw(st.lists(points_in(view), max_size=10)))


@FEWER
@given(
    data=st.data(),
    view=viewports(0.0, MAX_MARKER_SPAN),
    thin=st.sampled_from(["height", "width", "both"]),
)
def test_thin_marker_views(data: st.DataObject, view: Viewport, thin: str) -> None:
    # A line (a view 0 degrees high or wide) is a valid view: it is planned in a bounded
    # number of cells, not divided down to 12-character cells along its length.
    if thin in ("height", "both"):
        view = Viewport(north=view.south, south=view.south, east=view.east, west=view.west)
    if thin in ("width", "both"):
        view = Viewport(north=view.north, south=view.south, east=view.west, west=view.west)
    assert len(marker_queries(view, budget=1_000_000)) <= 2_000
    conditions = marker_queries(view)
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
    with pytest.raises(InvalidInput) as raised:
        checked_marker_view(Viewport(north=north, south=south, east=east, west=west))
    assert raised.value.field == "viewport"
    assert "heatmap" in str(raised.value)


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
    assert checked_marker_view(view) is view


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
    conditions = marker_queries(checked_marker_view(view))
    assert 1 <= len(conditions) <= MARKER_QUERY_BUDGET
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
    held = {marker_geohash(lat, lon)[:6] for lat, lon in points}
    assert held == set(SEED_REGIONS)
