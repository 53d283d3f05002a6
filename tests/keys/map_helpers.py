"""Oracles, strategies and constants shared by the map key tests (`keys.map`, seed 002).

The oracles count and list cells by descending through cell boxes or by exact (Fraction)
grid arithmetic, independently of the grid arithmetic of `keys.geohash`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from hypothesis import settings
from hypothesis import strategies as st

from keys.codecs import ksuid
from keys.conditions import KeyCondition
from keys.geohash import ALPHABET, Box, cell_box, cell_size, encode
from keys.map import MAX_PLACE_SPAN, Viewport
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


def descend(boxes: Sequence[Box], length: int, cap: int | None = None) -> list[str]:
    """Cells of `length` meeting any of the boxes (length 0: the world cell), by descending
    through every child whose box meets one; a level with more than `cap` cells ends it."""
    level = [""]
    for _ in range(length):
        level = [
            child
            for cell in level
            for child in (cell + c for c in ALPHABET)
            if any(cell_box(child).intersects(box) for box in boxes)
        ]
        if cap is not None and len(level) > cap:
            break
    return level


def meeting_count(view: Viewport, length: int, cap: int) -> int:
    """Cells of `length` meeting the view, or `cap + 1` if more: a level never has more
    cells than the next, so stopping once a level exceeds `cap` is exact."""
    return min(len(descend(view.boxes(), length, cap)), cap + 1)


def rule_precision(view: Viewport) -> int:
    """docs/design.md: the largest length 1..8 with at most 4 cells three characters shorter
    (up to length 3, the one cell of length 0: the world)."""
    return max(p for p in range(1, 9) if meeting_count(view, max(0, p - 3), 4) <= 4)


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


marker_views = viewports(0.01, MAX_PLACE_SPAN)
