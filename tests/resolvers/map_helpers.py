"""Shared helpers of the map tests (seed 002): calls, a brute-force model, bulk writes.

The model here is written from the contract (docs/design.md, the map), not with the code
under test: a viewport is one closed box, or two when `west > east`; a cell meets it when
their closed boxes intersect; the cells meeting a box are found by descending the geohash
tree from the root (no grid arithmetic). Only `keys.geohash.encode`/`cell_box` are used,
as the definition of a standard geohash and its cell.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from keys.codecs import ksuid
from keys.geohash import ALPHABET, Box, cell_box, encode
from store.requests import Item
from tests import demo_map as map_data
from tests import demo_map as map_keys
from tests.client import Api
from tests.documents import ADD_MARKER, HEATMAP, HEATMAP_DEFAULT, MARKERS
from tests.table import bulk_client, bulk_write, scan_all

CELL_LENGTHS = range(1, 9)
# A cell count's partition is its cell without the last 3 characters: the world up to here.
SORT_KEY_LENGTH = 3
MAX_DEFAULT_PARTITIONS = 4
MAX_PARTITIONS = 64
CONCURRENCY = 16

# Limits no map test reaches (`pytest.mark.overrides(**MAP_LIMITS)`): these tests check the
# map's answers, not demand control, and a heatmap at a fine precision can need more calls,
# items and response fields than the default limits allow.
MAP_LIMITS = {"max_requests": 1_000, "max_items": 10_000_000, "max_fields": 10_000_000}


@dataclass(frozen=True)
class View:
    """A viewport as a client sends it; `west > east` crosses the antimeridian."""

    north: float
    south: float
    east: float
    west: float

    def variables(self) -> dict[str, float]:
        return {"north": self.north, "south": self.south, "east": self.east, "west": self.west}

    def boxes(self) -> list[Box]:
        spans = [(self.west, self.east)]
        if self.west > self.east:  # across the antimeridian: a box on each side
            spans = [(self.west, 180.0), (-180.0, self.east)]
        return [Box(self.south, self.north, west, east) for west, east in spans]

    def contains(self, lat: float, lon: float) -> bool:
        return any(b.south <= lat <= b.north and b.west <= lon <= b.east for b in self.boxes())

    def meets(self, cell: str) -> bool:
        c = cell_box(cell)
        return any(
            c.south <= b.north and b.south <= c.north and c.west <= b.east and b.west <= c.east
            for b in self.boxes()
        )


PARIS = View(north=48.9, south=48.8, east=2.4, west=2.3)
# Small enough for a heatmap at precision 8 (9 partitions of 5 characters).
TOWN = View(north=48.86, south=48.84, east=2.36, west=2.34)


@dataclass(frozen=True)
class Placed:
    """What a test believes about one stored marker."""

    id: str
    lat: float
    lon: float
    geohash: str


# ---- the brute-force model ------------------------------------------------------------


def cells_meeting(view: View, length: int) -> set[str]:
    """Every cell of `length` characters meeting the view, by descent from the root."""
    cells = {""}
    for _ in range(length):
        cells = {c + char for c in cells for char in ALPHABET if view.meets(c + char)}
    return cells


def default_precision(view: View) -> int:
    """The seed 002 rule: the largest length whose cells 3 shorter cover the view in <= 4
    (up to length 3 that is the world, one cell).

    Cells only multiply as they get longer, so the descent stops at the first length
    that needs more than 4 (and never lists the thousands of cells of a large view).
    """
    partitions = {""}
    chosen = CELL_LENGTHS[0]
    for length in CELL_LENGTHS:
        if length > SORT_KEY_LENGTH:
            partitions = {c + char for c in partitions for char in ALPHABET if view.meets(c + char)}
        if len(partitions) > MAX_DEFAULT_PARTITIONS:
            break
        chosen = length
    return chosen


def expected_ids(pool: Iterable[Placed], view: View) -> set[str]:
    return {m.id for m in pool if view.contains(m.lat, m.lon)}


def expected_cells(pool: Iterable[Placed], view: View, length: int) -> dict[str, int]:
    """Marker counts of the cells of `length` that meet the view and hold markers."""
    counts = Counter(m.geohash[:length] for m in pool)
    return {cell: n for cell, n in counts.items() if view.meets(cell)}


# ---- calls ----------------------------------------------------------------------------


async def add_marker(api: Api, lat: float, lon: float, label: str = "m") -> Placed:
    new = {"lat": lat, "lon": lon, "label": label}
    added = (await api(ADD_MARKER, input=new)).ok()["addMarker"]
    return Placed(added["id"], added["lat"], added["lon"], added["geohash"])


async def add_markers(api: Api, points: Iterable[tuple[float, float]]) -> list[Placed]:
    return list(await asyncio.gather(*(add_marker(api, lat, lon) for lat, lon in points)))


async def search(api: Api, view: View, limit: int | None = 1000) -> tuple[list[str], bool]:
    result = await api(MARKERS, viewport=view.variables(), limit=limit)
    found = result.ok()["markers"]
    return [m["id"] for m in found["markers"]], found["truncated"]


async def heatmap(api: Api, view: View, precision: int | None = None) -> tuple[int, dict[str, int]]:
    if precision is None:
        result = await api(HEATMAP_DEFAULT, viewport=view.variables())
    else:
        result = await api(HEATMAP, viewport=view.variables(), precision=precision)
    found = result.ok()["heatmap"]
    cells = {c["geohash"]: c["count"] for c in found["cells"]}
    assert len(cells) == len(found["cells"]), "a cell is listed twice"
    return found["precision"], cells


async def snapshot(client: Any, table: str) -> list[tuple[str, str, str]]:
    """Every item of the table, comparable (sorted by key)."""
    items = await scan_all(client, table)
    return sorted((i["PK"], i["SK"], repr(sorted(i.items()))) for i in items)


async def stored_counts(client: Any, table: str) -> dict[str, int]:
    """The count of every cell item, read straight from the table."""
    return {
        map_keys.cell_of(i): i["count"]
        for i in await scan_all(client, table)
        if i["PK"].startswith("DgCe")
    }


# ---- bulk writes with pure builders ----------------------------------------------------


def new_marker_id(n: int, at: datetime | None = None) -> str:
    """A deterministic, distinct KSUID for the n-th bulk-written marker."""
    moment = at or datetime(2024, 1, 1, tzinfo=UTC)
    return ksuid(int(moment.timestamp()), n.to_bytes(16, "big"))


def marker_items(marker_id: str, lat: float, lon: float, label: str = "bulk") -> list[Item]:
    """The id item and the place item `addMarker` writes, from its pure builder."""
    return list(map_data.marker_items(marker_id, lat, lon, label, datetime(2024, 1, 1, tzinfo=UTC)))


def place_item(marker_id: str, lat: float, lon: float) -> Item:
    """Only the item `markers` reads (for cost tests of the search alone)."""
    return marker_items(marker_id, lat, lon)[1]


def cell_items(geohashes: Iterable[str]) -> list[Item]:
    """The count items of the markers at `geohashes`, one per cell of length 1 to 8."""
    counts = Counter(gh[:length] for gh in geohashes for length in CELL_LENGTHS)
    return [{**map_keys.cell_key(cell), "count": n} for cell, n in sorted(counts.items())]


def pool_items(pool: Sequence[Placed]) -> list[Item]:
    items = [i for m in pool for i in marker_items(m.id, m.lat, m.lon)]
    return items + cell_items(m.geohash for m in pool)


def placed(marker_id: str, lat: float, lon: float) -> Placed:
    return Placed(marker_id, lat, lon, encode(lat, lon, 12))


async def batch_write(endpoint: str, table: str, items: Sequence[Item]) -> None:
    """`bulk_write` through a client of its own, CONCURRENCY calls at once."""
    async with bulk_client(endpoint) as client:
        await bulk_write(client, table, items, concurrency=CONCURRENCY)
