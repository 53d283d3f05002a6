"""Map keys (`keys.map`, seed 002): viewports, keys and heatmap precision, against the seed's
table, the API's rules and oracles.

- Keys: a marker lives in `DgMa#<3 chars>` under the rest of its 12-character geohash; a
  cell count of length 3..8 in `DgCe#<all but 3>` under the last 3 (the seed's table), of
  length 1 or 2 in `DgCe1#` or `DgCe2#` under the whole cell.
- Heatmap: the default precision is the largest length 1..8 whose cells three characters
  shorter that meet the view number at most 4 (docs/design.md), counted here by descending
  through cell boxes, independently of the grid arithmetic of `keys.geohash`.

The heatmap and marker queries, and the seed's example, are in `test_keys_geo_queries.py`;
the oracles and strategies in `geo_helpers.py`.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errors.vocabulary import BadUserInput
from keys.codecs import KSUID_LENGTH
from keys.geohash import Box, cell_box, encode
from keys.map import (
    Viewport,
    checked_precision,
    default_precision,
    partitions_needed,
    place_geohash,
)
from tests.demo_map import (
    cell_key,
    cell_keys,
    cell_of,
    marker_key,
    place_key,
)
from tests.keys.map_helpers import (
    FAST,
    FEWER,
    MARKER_ID,
    PK,
    SK,
    geohashes,
    marker_ids,
    meeting_count,
    rule_precision,
    viewports,
)

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
    with pytest.raises(BadUserInput) as raised:
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
        ("DgCe1#", "g"),
        ("DgCe2#", "gc"),
        ("DgCe#", "gcp"),
        ("DgCe#g", "cpj"),
        ("DgCe#gc", "pjf"),
        ("DgCe#gcp", "jfy"),
        ("DgCe#gcpj", "fy6"),
        ("DgCe#gcpjf", "y6d"),
    ]
    assert [cell_of(k) for k in keys] == ["gcpjfy6d"[:n] for n in range(1, 9)]


def test_marker_keys() -> None:
    geohash = "gcpjfy6d0123"
    assert place_key(geohash, MARKER_ID) == {PK: "DgMa#gcp", SK: f"jfy6d0123#{MARKER_ID}"}
    assert marker_key(MARKER_ID) == {PK: f"MARKER#{MARKER_ID}", SK: f"MARKER#{MARKER_ID}"}


@FAST
@given(lat=st.floats(-90.0, 90.0), lon=st.floats(-180.0, 180.0), marker_id=marker_ids)
def test_marker_geohash(lat: float, lon: float, marker_id: str) -> None:
    geohash = place_geohash(lat, lon)
    assert geohash == encode(lat, lon, 12)
    assert len(geohash) == 12
    assert cell_box(geohash).contains(lat, lon)
    place = place_key(geohash, marker_id)
    assert place[PK] == "DgMa#" + geohash[:3]
    assert place[SK] == geohash[3:] + "#" + marker_id


@pytest.mark.parametrize(("lat", "lon"), [(90.01, 0.0), (-91.0, 0.0), (0.0, 180.5), (0.0, -181.0)])
def test_marker_geohash_refuses_outside_the_world(lat: float, lon: float) -> None:
    with pytest.raises(BadUserInput):
        place_geohash(lat, lon)


@FAST
@given(st.lists(geohashes, min_size=1, max_size=20), marker_ids)
def test_sort_keys_have_one_length_per_partition(hashes: list[str], marker_id: str) -> None:
    lengths: dict[str, set[int]] = {}
    for geohash in hashes:
        keys = cell_keys(geohash)
        assert len(keys) == 8
        for length, key in zip(range(1, 9), keys, strict=True):
            assert key[PK] == ("DgCe#" + geohash[: length - 3] if length >= 3 else f"DgCe{length}#")
            assert key[SK] == geohash[max(0, length - 3) : length]
            assert key[SK] == key[SK].lower()
            assert cell_of(key) == geohash[:length]
            assert cell_key(geohash[:length]) == key
            lengths.setdefault(key[PK], set()).add(len(key[SK]))
        place = place_key(geohash, marker_id)
        assert place[PK].startswith("DgMa#")
        suffix, _, rest = place[SK].partition("#")
        assert suffix == suffix.lower() == geohash[3:]
        assert rest == marker_id
        lengths.setdefault(place[PK], set()).add(len(place[SK]))
    assert all(found in ({1}, {2}, {3}, {9 + 1 + KSUID_LENGTH}) for found in lengths.values())


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
@given(view=viewports(0.0, 360.0), precision=st.integers(1, 8))
def test_client_precision_needs_at_most_64_partitions(view: Viewport, precision: int) -> None:
    needed = meeting_count(view, max(0, precision - 3), 64)
    if needed > 64:
        with pytest.raises(BadUserInput) as raised:
            checked_precision(view, precision)
        assert raised.value.field == "precision"
        assert partitions_needed(view, precision) > 64
    else:
        assert checked_precision(view, precision) == precision
        assert partitions_needed(view, precision) == needed


@pytest.mark.parametrize("precision", [-1, 0, 9, 12])
def test_client_precision_outside_1_to_8(precision: int) -> None:
    view = Viewport(north=1.0, south=0.0, east=1.0, west=0.0)
    with pytest.raises(BadUserInput, match=f"{precision} is outside 1 to 8") as raised:
        checked_precision(view, precision)
    assert raised.value.field == "precision"


@pytest.mark.parametrize("precision", [1, 2, 3])
def test_up_to_precision_3_the_world_is_one_partition(precision: int) -> None:
    world = Viewport(north=90.0, south=-90.0, east=180.0, west=-180.0)
    assert partitions_needed(world, precision) == 1
    assert checked_precision(world, precision) == precision


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
