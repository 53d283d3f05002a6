"""Nearest first (`keys.nearest`, `keys.distance`, `keys.bit_cells`), against a brute-force
sort of every place: any point (near the poles and across the antimeridian too), any
radius and page size, paged to the end, answers every place within the radius exactly
once, by distance and then key; no read is of a cell wholly outside the circle, and a
search never reads more than its worst case. The distances to a cell's box bound every
point of it."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errors.vocabulary import BadUserInput
from keys.bit_cells import PARTITION_BITS, PLACE_BITS, BitCell, of_geohash
from keys.codecs import KEY_MAX
from keys.conditions import KeyCondition
from keys.distance import EARTH_RADIUS, Point, distance, farthest_in, nearest_in
from keys.geohash import Box, cell_box, encode
from keys.map import Places, place_key
from keys.nearest import (
    READ_ITEMS,
    SLACK,
    Found,
    Placed,
    Position,
    Read,
    checked_radius,
    most_reads,
    nearest,
    start_cells,
)

PLACES = Places("LbBr", "LbCe")
EXAMPLES = settings(max_examples=60)


def oracle(a: Point, b_lat: float, b_lon: float) -> float:
    """The great-circle distance by the spherical law of cosines' vector form (atan2 of
    the cross and dot products): another formula than the code's haversine."""
    phi1, lam1, phi2, lam2 = map(math.radians, (a.latitude, a.longitude, b_lat, b_lon))
    u = (math.cos(phi1) * math.cos(lam1), math.cos(phi1) * math.sin(lam1), math.sin(phi1))
    v = (math.cos(phi2) * math.cos(lam2), math.cos(phi2) * math.sin(lam2), math.sin(phi2))
    cross = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    dot = sum(x * y for x, y in zip(u, v, strict=True))
    return EARTH_RADIUS * math.atan2(math.hypot(*cross), dot)


@dataclass
class Table:
    """Place items as `keys.map.place_key` writes them, and every read made of them."""

    rows: list[tuple[str, str, Placed[int]]]
    reads: list[KeyCondition] = field(default_factory=list)
    limits: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, spots: Sequence[tuple[float, float]]) -> Table:
        rows = []
        for n, (lat, lon) in enumerate(spots):
            key = place_key(PLACES, encode(lat, lon, 12), f"e{n:03d}")
            pk, sk = key["PK"], key["SK"]
            rows.append((pk, sk, Placed(lat, lon, f"e{n:03d}", sk, n)))
        return cls(sorted(rows, key=lambda r: (r[0], r[1])))

    async def read(self, condition: KeyCondition, after: str | None, limit: int) -> Read[int]:
        self.reads.append(condition)
        self.limits.append(limit)
        held = [
            place
            for pk, sk, place in self.rows
            if pk == condition.partition
            and condition.contains(sk)
            and (after is None or sk > after)
        ]
        return Read(held[:limit], len(held) > limit)


def box_read(condition: KeyCondition) -> Box:
    """The box of the cells a read's key range holds (its first and last cells' union)."""
    cell = condition.partition.split("#", 1)[1]
    if condition.low is None:
        return cell_box(cell)
    assert condition.high is not None and condition.high.endswith(KEY_MAX)
    first, last = cell_box(cell + condition.low), cell_box(cell + condition.high[:-1])
    return Box(first.south, last.north, first.west, last.east)


def brute(point: Point, radius: float, spots: Sequence[tuple[float, float]]) -> list[str]:
    within = [
        (distance(point, lat, lon), f"e{n:03d}")
        for n, (lat, lon) in enumerate(spots)
        if distance(point, lat, lon) <= radius
    ]
    return [key for _, key in sorted(within)]


def paged(
    point: Point,
    radius: float,
    first: int,
    table: Table,
    per_read: int | None = None,
    reads: int | None = None,
) -> Iterator[Found[int]]:
    """Each page as it is read, from the last one's end cursor: the one way the tests
    page through a search."""
    after = None
    while True:
        page = asyncio.run(
            nearest(
                PLACES,
                point,
                radius,
                first + 1,
                table.read,
                after=after,
                reads=reads,
                per_read=per_read,
            )
        )
        yield page
        if not page.more:
            return
        assert page.places, "a page that may be followed holds a place"
        metres, last = page.places[-1]
        after = Position(metres, last.key)


# ---- strategies ---------------------------------------------------------------------------

latitudes = st.one_of(
    st.floats(-90, 90),
    st.floats(89.9, 90),
    st.floats(-90, -89.9),
    st.sampled_from([90.0, -90.0, 0.0]),
)
longitudes = st.one_of(
    st.floats(-180, 180),
    st.floats(179.9, 180),
    st.floats(-180, -179.9),
    st.sampled_from([180.0, -180.0, 0.0]),
)
radii = st.one_of(st.floats(1, 60_000), st.sampled_from([5.0, 500.0, 5_000.0, 50_000.0]))


@st.composite
def scenes(draw: st.DrawFn) -> tuple[Point, float, list[tuple[float, float]]]:
    """A point, a radius, and places about it: inside the circle and out, some at one
    spot (equal distances, told apart by key), across the antimeridian and the poles."""
    point = Point(draw(latitudes), draw(longitudes))
    radius = draw(radii)
    spread = math.degrees(2 * radius / EARTH_RADIUS)
    spots = []
    for _ in range(draw(st.integers(0, 40))):
        lat = point.latitude + draw(st.floats(-spread, spread))
        lon = point.longitude + draw(st.floats(-spread, spread)) / max(
            0.01, math.cos(math.radians(point.latitude))
        )
        lat = max(-90.0, min(90.0, lat))
        lon = (lon + 180.0) % 360.0 - 180.0
        spots.append((lat, lon))
        if draw(st.integers(0, 5)) == 0:
            spots.append((lat, lon))  # another at the very same spot
    return point, radius, spots


# ---- the search ---------------------------------------------------------------------------


@EXAMPLES
@given(scenes(), st.integers(1, 6), st.booleans())
def test_every_page_to_the_end_is_the_brute_force_order(
    scene: tuple[Point, float, list[tuple[float, float]]], first: int, small_reads: bool
) -> None:
    """Read as served (a read takes a whole cell of these few places), and with reads of
    the page and one more each (and reads enough), so that full cells are cut into
    quarters down to a place's own geohash."""
    point, radius, spots = scene
    table = Table.of(spots)
    per_read = first + 1 if small_reads else None
    pages = list(paged(point, radius, first, table, per_read, 10_000 if small_reads else None))
    answered = [place.key for page in pages for _, place in page.places]
    assert answered == brute(point, radius, spots)
    worst = 10_000 if small_reads else most_reads(point, radius)
    for page in pages:
        assert len(page.places) <= first
        assert page.reads <= worst
        for metres, place in page.places:
            assert metres == pytest.approx(oracle(point, place.latitude, place.longitude), abs=1e-6)
    # No cell wholly outside the circle is read; each read takes its declared most.
    for condition in table.reads:
        assert nearest_in(point, box_read(condition)) <= radius + SLACK
    assert set(table.limits) <= {per_read or max(first + 1, READ_ITEMS)}


@EXAMPLES
@given(scenes(), st.integers(1, 4), st.integers(0, 6))
def test_a_search_short_of_reads_answers_a_prefix_in_order(
    scene: tuple[Point, float, list[tuple[float, float]]], first: int, extra: int
) -> None:
    """With too few reads, a page holds only places it could order (a short page whose
    cursor goes on), or is refused when it can order none: never one out of order."""
    point, radius, spots = scene
    reads = len(start_cells(point, radius)) + extra
    table = Table.of(spots)
    answered: list[str] = []
    try:
        for page in paged(point, radius, first, table, per_read=first + 1, reads=reads):
            answered += [place.key for _, place in page.places]
    except BadUserInput as refused:
        assert refused.field == "radius"
        assert answered == brute(point, radius, spots)[: len(answered)]
    else:
        assert answered == brute(point, radius, spots)


def test_dense_spots_are_cut_into_quarters_and_read_within_the_worst_case() -> None:
    """Hundreds of places in one cell: read by quarters, the page exact, the reads few."""
    point = Point(48.8566, 2.3522)
    spots = [(48.8566 + (n % 31 - 15) * 1e-4, 2.3522 + (n // 31 - 15) * 1.5e-4) for n in range(961)]
    table = Table.of(spots)
    pages = list(paged(point, 300.0, 20, table))
    assert [p.key for page in pages for _, p in page.places] == brute(point, 300.0, spots)
    assert max(page.reads for page in pages) <= most_reads(point, 300.0)


@pytest.mark.parametrize(
    ("point", "spots", "expected"),
    [
        # Across the antimeridian: 2.2 km east of lon 179.99 is lon -179.99.
        (Point(0.0, 179.99), [(0.0, -179.99), (0.0, 179.9), (0.0, -179.9)], ["e000"]),
        (Point(-16.5, -179.999), [(-16.5, 179.999), (-16.5, -179.99)], ["e000", "e001"]),
        # At a pole every longitude is as near: places in many partitions, by distance.
        (Point(90.0, 0.0), [(89.99, 170.0), (89.995, -60.0), (89.9, 0.0)], ["e001", "e000"]),
        (Point(-89.999, 45.0), [(-90.0, 0.0), (-89.998, -135.0)], ["e000", "e001"]),
    ],
)
def test_the_antimeridian_and_the_poles(
    point: Point, spots: list[tuple[float, float]], expected: list[str]
) -> None:
    table = Table.of(spots)
    pages = list(paged(point, 5_000.0, 20, table))
    assert [p.key for page in pages for _, p in page.places] == expected


def test_a_circle_holding_a_pole_reads_every_partition_meeting_there() -> None:
    cells = start_cells(Point(90.0, 0.0), 500.0)
    assert len({cell.partition for cell in cells}) == 256
    assert all(cell.bits == PARTITION_BITS for cell in cells)
    # Away from the poles a circle starts with a few cells of the size that fits it.
    for radius in (500.0, 5_000.0, 50_000.0):
        assert len(start_cells(Point(48.85, 2.35), radius)) <= 16


# ---- distances to a box ------------------------------------------------------------------

boxes = st.builds(
    lambda bits, lat, lon: BitCell(bits, of_geohash(encode(lat, lon, 12)) >> (PLACE_BITS - bits)),
    st.integers(PARTITION_BITS, 40),
    st.floats(-90, 90),
    st.floats(-180, 180),
)


@settings(max_examples=150)
@given(boxes, latitudes, longitudes, st.floats(0, 1), st.floats(0, 1))
def test_a_box_distance_bounds_every_point_of_it(
    cell: BitCell, lat: float, lon: float, u: float, v: float
) -> None:
    point, box = Point(lat, lon), cell.box
    inside_lat = box.south + u * (box.north - box.south)
    inside_lon = box.west + v * (box.east - box.west)
    metres = oracle(point, inside_lat, inside_lon)
    slack = SLACK + 1e-9 * metres
    assert nearest_in(point, box) <= metres + slack
    assert farthest_in(point, box) >= metres - slack


@settings(max_examples=150)
@given(boxes, latitudes, longitudes)
def test_the_nearest_distance_is_reached_on_the_box(cell: BitCell, lat: float, lon: float) -> None:
    """Sampled along its edges, the box comes no nearer than `nearest_in` says, and as
    near within the sampling's step."""
    point, box = Point(lat, lon), cell.box
    steps = 200
    edge = [
        (box.south + (box.north - box.south) * i / steps, x)
        for i in range(steps + 1)
        for x in (box.west, box.east)
    ] + [
        (y, box.west + (box.east - box.west) * i / steps)
        for i in range(steps + 1)
        for y in (box.south, box.north)
    ]
    if box.contains(lat, lon):
        assert nearest_in(point, box) == 0.0
        return
    sampled = min(oracle(point, y, x) for y, x in edge)
    step = 2 * oracle(Point(box.south, box.west), box.north, box.east) / steps
    # Near the antipode the formulas part by a few parts in 10^12 of the distance.
    slack = SLACK + 1e-9 * sampled
    assert sampled - step - slack <= nearest_in(point, box) <= sampled + slack


# ---- arguments ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("latitude", "longitude", "field"),
    [
        (math.nan, 0.0, "latitude"),
        (90.5, 0.0, "latitude"),
        (0.0, -180.01, "longitude"),
        (0.0, math.inf, "longitude"),
    ],
)
def test_a_point_is_checked(latitude: float, longitude: float, field: str) -> None:
    with pytest.raises(BadUserInput) as refused:
        Point(latitude, longitude)
    assert refused.value.field == field


@pytest.mark.parametrize("radius", [0.0, -1.0, math.nan, math.inf, 50_000.5])
def test_a_radius_is_checked(radius: float) -> None:
    with pytest.raises(BadUserInput) as refused:
        checked_radius(radius, 50_000.0, "radiusMeters")
    assert refused.value.field == "radiusMeters"
    assert checked_radius(50_000.0, 50_000.0) == 50_000.0
