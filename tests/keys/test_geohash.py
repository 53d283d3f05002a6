"""Standard geohashes (`keys.geohash`) against published vectors and brute-force oracles.

The oracles are independent of the module's arithmetic: `exact_geohash` computes a point's
cell with `Fraction`s (no rounding), and the cells that meet a box are found by testing
every cell of the length (lengths up to 3, 32,768 cells) or by descending from the world
cell through every child whose box meets the box (a cell that meets a box has a parent that
does). Box edges are drawn from random values, from cell boundaries, and from the floats
just next to cell boundaries, where rounding in a grid computation would show.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keys import geohash
from keys.geohash import ALPHABET, Box, cell_box, encode
from tests.keys.map_helpers import descend

FAST = settings(max_examples=200)
FEWER = settings(max_examples=60)  # examples that test 32,768 cells each

WORLD = Box(-90.0, 90.0, -180.0, 180.0)


def lat_bits(length: int) -> int:
    return 5 * length // 2


def lon_bits(length: int) -> int:
    return (5 * length + 1) // 2


def exact_geohash(lat: float, lon: float, length: int) -> str:
    """The cell of a point by exact grid arithmetic; 90 and 180 fall in the last cell."""
    row = min(
        (1 << lat_bits(length)) - 1,
        math.floor((Fraction(lat) + 90) / 180 * (1 << lat_bits(length))),
    )
    col = min(
        (1 << lon_bits(length)) - 1,
        math.floor((Fraction(lon) + 180) / 360 * (1 << lon_bits(length))),
    )
    value = 0
    for i in range(5 * length):  # bits alternate, longitude first
        if i % 2 == 0:
            bit = col >> (lon_bits(length) - 1 - i // 2) & 1
        else:
            bit = row >> (lat_bits(length) - 1 - i // 2) & 1
        value = value << 1 | bit
    return "".join(ALPHABET[value >> 5 * (length - 1 - i) & 31] for i in range(length))


@cache
def all_cells(length: int) -> tuple[tuple[str, Box], ...]:
    return tuple(
        ("".join(chars), cell_box("".join(chars))) for chars in product(ALPHABET, repeat=length)
    )


def brute_meeting(box: Box, length: int) -> list[str]:
    """Every cell of `length` (at most 3) tested against the box, edges included."""
    return sorted(
        cell
        for cell, bounds in all_cells(length)
        if bounds.south <= box.north
        and box.south <= bounds.north
        and bounds.west <= box.east
        and box.west <= bounds.east
    )


def descend_meeting(box: Box, length: int) -> list[str]:
    """Cells of `length` meeting the box, by descending through the cells that meet it."""
    return sorted(descend([box], length))


@st.composite
def coordinates(draw: st.DrawFn, origin: float, extent: float, longitude: bool) -> float:
    """A coordinate: random, on a cell boundary, or the float next to one."""
    kind = draw(st.sampled_from(["random", "boundary", "next to boundary", "end"]))
    if kind == "random":
        return draw(st.floats(origin, origin + extent, allow_nan=False))
    if kind == "end":
        return draw(st.sampled_from([origin, origin + extent]))
    length = draw(st.integers(1, 12))
    bits = lon_bits(length) if longitude else lat_bits(length)
    value = origin + extent * draw(st.integers(0, 1 << bits)) / (1 << bits)
    if kind == "next to boundary":
        value = math.nextafter(value, draw(st.sampled_from([-math.inf, math.inf])))
    return min(origin + extent, max(origin, value))


latitudes = coordinates(-90.0, 180.0, longitude=False)
longitudes = coordinates(-180.0, 360.0, longitude=True)


@st.composite
def boxes(draw: st.DrawFn) -> Box:
    south, north = sorted([draw(latitudes), draw(latitudes)])
    west, east = sorted([draw(longitudes), draw(longitudes)])
    return Box(south, north, west, east)


@st.composite
def small_boxes(draw: st.DrawFn, max_side: float, min_length: int = 1) -> Box:
    """A box at most `max_side` a side, with edges often on or next to cell boundaries.

    Edges put on boundaries use cells of `min_length` to 12 characters, up to 3 cells apart.
    """
    south = draw(latitudes)
    west = draw(longitudes)
    north = min(90.0, south + draw(st.floats(0.0, max_side)))
    east = min(180.0, west + draw(st.floats(0.0, max_side)))
    edge = draw(st.sampled_from(["as drawn", "on boundaries", "next to boundaries"]))
    if edge != "as drawn":
        length = draw(st.integers(min_length, 12))
        dlat, dlon = 180.0 / (1 << lat_bits(length)), 360.0 / (1 << lon_bits(length))
        south = -90.0 + math.floor((south + 90.0) / dlat) * dlat
        west = -180.0 + math.floor((west + 180.0) / dlon) * dlon
        north = min(90.0, south + draw(st.integers(0, 3)) * dlat)
        east = min(180.0, west + draw(st.integers(0, 3)) * dlon)
        if edge == "next to boundaries":
            south, north, west, east = (
                math.nextafter(v, draw(st.sampled_from([-math.inf, math.inf])))
                for v in (south, north, west, east)
            )
            south, north = sorted([max(-90.0, min(90.0, v)) for v in (south, north)])
            west, east = sorted([max(-180.0, min(180.0, v)) for v in (west, east)])
    return Box(south, north, west, east)


# ---- encoding -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lat", "lon", "length", "expected"),
    [
        (57.64911, 10.40744, 11, "u4pruydqqvj"),  # Wikipedia, "Geohash"
        (42.6, -5.6, 5, "ezs42"),  # Wikipedia, "Geohash"
        # By hand: (0, 0) is on the upper half of the first two splits (bits 1 1), then on
        # the lower half of every later one: 11000 = 24 = "s", then zeros.
        (0.0, 0.0, 6, "s00000"),
        (-90.0, -180.0, 5, "00000"),  # always the lower half
        (90.0, 180.0, 5, "zzzzz"),  # always the upper half: the edges fall in the last cell
        (90.0, -180.0, 3, "bpb"),  # lat bits 1, lon bits 0: 01010 = b, 10101 = p, ...
        (-90.0, 180.0, 3, "pbp"),
        # Just south-west of (0, 0): bits 0 0 then 1 1 1 = "7", then the top-right corner.
        (-1e-9, -1e-9, 7, "7zzzzzz"),
        (45.0, 90.0, 2, "y0"),  # a corner belongs to the cell north-east of it: 11110 0...
        (0.0, 0.0, 0, ""),
    ],
)
def test_known_vectors(lat: float, lon: float, length: int, expected: str) -> None:
    assert encode(lat, lon, length) == expected
    assert exact_geohash(lat, lon, length) == expected


def test_known_cell_box() -> None:
    # Wikipedia: "ezs42" is 42.583..42.627 N, 5.581..5.625 W; the cell is 180/2^12 by 360/2^13.
    assert cell_box("ezs42") == Box(42.5830078125, 42.626953125, -5.625, -5.5810546875)
    assert cell_box("") == WORLD
    assert cell_box("0") == Box(-90.0, -45.0, -180.0, -135.0)
    assert cell_box("z") == Box(45.0, 90.0, 135.0, 180.0)
    assert cell_box("s") == Box(0.0, 45.0, 0.0, 45.0)


@FAST
@given(lat=latitudes, lon=longitudes, length=st.integers(0, 12))
def test_encode_matches_exact_grid(lat: float, lon: float, length: int) -> None:
    cell = encode(lat, lon, length)
    assert cell == exact_geohash(lat, lon, length)
    assert len(cell) == length
    assert set(cell) <= set(ALPHABET)


@FAST
@given(lat=latitudes, lon=longitudes, length=st.integers(1, 12))
def test_point_lies_in_its_cell(lat: float, lon: float, length: int) -> None:
    bounds = cell_box(encode(lat, lon, length))
    assert bounds.contains(lat, lon)
    # Half-open cells: a point on a south or west edge is inside; on a north or east edge
    # only at the pole or the antimeridian, where there is no cell further on.
    assert bounds.south <= lat < bounds.north or lat == bounds.north == 90.0
    assert bounds.west <= lon < bounds.east or lon == bounds.east == 180.0


@pytest.mark.parametrize("lat", [-90.0, 90.0, 0.0])
@pytest.mark.parametrize("lon", [-180.0, 180.0, 0.0])
def test_world_edges(lat: float, lon: float) -> None:
    for length in range(1, 13):
        assert cell_box(encode(lat, lon, length)).contains(lat, lon)


@FAST
@given(lat=latitudes, lon=longitudes, length=st.integers(0, 11))
def test_prefix_property(lat: float, lon: float, length: int) -> None:
    longer = encode(lat, lon, length + 1)
    assert longer.startswith(encode(lat, lon, length))
    assert cell_box(longer).within(cell_box(longer[:-1]))


@FAST
@given(lat=latitudes, lon=longitudes, length=st.integers(0, 12))
def test_cell_size_is_the_box(lat: float, lon: float, length: int) -> None:
    bounds = cell_box(encode(lat, lon, length))
    assert geohash.cell_size(length) == (bounds.north - bounds.south, bounds.east - bounds.west)
    assert geohash.cell_size(length) == (
        180.0 / (1 << lat_bits(length)),
        360.0 / (1 << lon_bits(length)),
    )


@FAST
@given(lat=latitudes, lon=longitudes, length=st.integers(0, 11))
def test_children_tile_their_parent_in_z_order(lat: float, lon: float, length: int) -> None:
    parent = encode(lat, lon, length)
    outer = cell_box(parent)
    children = [cell_box(parent + c) for c in ALPHABET]
    dlat, dlon = geohash.cell_size(length + 1)
    assert all(child.within(outer) for child in children)
    assert {(c.south, c.west) for c in children} == {
        (outer.south + row * dlat, outer.west + col * dlon)
        for row in range(round((outer.north - outer.south) / dlat))
        for col in range(round((outer.east - outer.west) / dlon))
    }
    # The alphabet is in ASCII order, so string order of children is their Z order.
    assert list(ALPHABET) == sorted(ALPHABET)


# ---- cells that meet a box ------------------------------------------------------------------


@FEWER
@given(box=boxes(), length=st.integers(1, 3))
def test_cells_meeting_is_every_cell_that_meets(box: Box, length: int) -> None:
    found = geohash.cells_meeting(box, length)
    assert found == brute_meeting(box, length)
    assert geohash.cell_count(box, length) == len(found)


@FEWER
@given(box=small_boxes(max_side=1.0), length=st.integers(1, 3))
def test_cells_meeting_small_boxes_worldwide(box: Box, length: int) -> None:
    found = geohash.cells_meeting(box, length)
    assert found == brute_meeting(box, length)
    assert geohash.cell_count(box, length) == len(found)


@FAST
@given(data=st.data(), length=st.integers(1, 10))
def test_cells_meeting_by_descent(data: st.DataObject, length: int) -> None:
    dlat, dlon = geohash.cell_size(length)
    box = data.draw(small_boxes(max_side=3 * max(dlat, dlon), min_length=length))
    found = geohash.cells_meeting(box, length)
    assert found == descend_meeting(box, length)
    assert found == sorted(set(found))
    assert geohash.cell_count(box, length) == len(found)
    rows, cols = geohash.grid_span(box, length)
    assert len(rows) * len(cols) == len(found)


@FAST
@given(data=st.data(), length=st.integers(1, 10))
def test_cell_numbers_are_the_ordinals_of_the_cells_meeting(
    data: st.DataObject, length: int
) -> None:
    dlat, dlon = geohash.cell_size(length)
    box = data.draw(small_boxes(max_side=3 * max(dlat, dlon), min_length=length))
    assert geohash.cell_numbers(box, length) == [
        geohash.ordinal(c) for c in geohash.cells_meeting(box, length)
    ]


@FAST
@given(box=boxes())
def test_length_zero_is_the_world_cell(box: Box) -> None:
    assert geohash.cells_meeting(box, 0) == [""]
    assert geohash.cell_count(box, 0) == 1


@pytest.mark.parametrize("length", [1, 2, 3, 5, 8, 12])
def test_box_on_cell_edges_meets_the_neighbours(length: int) -> None:
    # The box is exactly cell "s0...": its edges are shared with the 8 cells around it.
    cell = "s" + "0" * (length - 1)
    bounds = cell_box(cell)
    found = geohash.cells_meeting(bounds, length)
    assert len(found) == 9
    assert cell in found
    assert all(cell_box(c).intersects(bounds) for c in found)
    # Shrunk by one float on every side, it meets only the cell itself.
    inner = Box(
        math.nextafter(bounds.south, math.inf),
        math.nextafter(bounds.north, -math.inf),
        math.nextafter(bounds.west, math.inf),
        math.nextafter(bounds.east, -math.inf),
    )
    assert geohash.cells_meeting(inner, length) == [cell]
    assert geohash.cell_count(inner, length) == 1
    # A degenerate box on a cell corner meets the four cells at the corner.
    corner = Box(bounds.north, bounds.north, bounds.east, bounds.east)
    assert len(geohash.cells_meeting(corner, length)) == 4


def test_whole_world() -> None:
    assert geohash.cells_meeting(WORLD, 1) == sorted(ALPHABET)
    assert geohash.cells_meeting(WORLD, 2) == sorted(a + b for a in ALPHABET for b in ALPHABET)
    assert geohash.cell_count(WORLD, 5) == 32**5


def test_box_predicates_include_edges() -> None:
    box = Box(0.0, 1.0, 10.0, 11.0)
    assert box.contains(0.0, 10.0) and box.contains(1.0, 11.0)
    assert not box.contains(1.0000001, 10.5)
    assert box.intersects(Box(1.0, 2.0, 11.0, 12.0))  # a shared corner
    assert not box.intersects(Box(1.0000001, 2.0, 11.0, 12.0))
    assert box.within(box) and Box(0.5, 0.5, 10.5, 10.5).within(box)
    assert not Box(0.5, 1.5, 10.5, 10.6).within(box)


@given(st.text(ALPHABET, min_size=3, max_size=3), st.text(ALPHABET, min_size=3, max_size=3))
def test_ordinal_ranks_geohashes_in_their_byte_order(a: str, b: str) -> None:
    assert (geohash.ordinal(a) < geohash.ordinal(b)) == (a < b)
    assert 0 <= geohash.ordinal(a) < len(ALPHABET) ** 3
    assert geohash.ordinal("000") == 0 and geohash.ordinal("zzz") == len(ALPHABET) ** 3 - 1


def _bisected(cell: str) -> Box:
    """A cell's bounds by halving the world once per bit, as a geohash is defined."""
    lat, lon = [-90.0, 90.0], [-180.0, 180.0]
    even = True
    for char in cell:
        value = ALPHABET.index(char)
        for shift in range(4, -1, -1):
            interval = lon if even else lat
            middle = (interval[0] + interval[1]) / 2
            interval[0 if value >> shift & 1 else 1] = middle
            even = not even
    return Box(lat[0], lat[1], lon[0], lon[1])


@given(st.text(ALPHABET, max_size=12))
def test_a_cells_bounds_are_those_of_halving_the_world(cell: str) -> None:
    assert cell_box(cell) == _bisected(cell)
