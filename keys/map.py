"""Places and cell counts over geohash partitions (docs/model.md#places), for any entity
with a position.

    place     PK = <places>#<geohash[0:3]>      SK = <geohash[3:12]>#<id>   where it is
    cell      PK = <cells>#<geohash[0:L-3]>     SK = <geohash[L-3:L]>       count, L = 3..8
              PK = <cells><L>#                  SK = <geohash[0:L]>         count, L = 1, 2

The labels are the entity's (`Places`: the demo's markers are `DgMa` and `DgCe`: `Dg` the
app, `Ma`/`Ce` the purpose). Within a partition every sort key has the same length and is
lower case, so a BETWEEN over geohash characters never mixes lengths (the seed's caution):
cells of lengths 3, 2 and 1 each cover the world in one partition, the shorter two named by
their length. A place partition is a 3-character cell (about 156 km by 156 km), so a
viewport of at most 0.5 degrees meets at most 4 of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from errors.vocabulary import BadUserInput
from keys.codecs import KEY_MAX
from keys.conditions import KeyCondition
from keys.geohash import (
    Box,
    cell_box,
    cell_numbers,
    cell_size,
    cells_meeting,
    encode,
    from_ordinal,
    grid_span,
    ordinal,
)
from keys.table import TABLE, Index

PLACE_PARTITION_LENGTH = 3
PLACE_GEOHASH_LENGTH = 12
CELL_LENGTHS = range(1, 9)
SORT_KEY_LENGTH = 3
MAX_PLACE_SPAN = 0.5
DEFAULT_PARTITIONS = 4
MAX_PARTITIONS = 64
# The most Queries one viewport search makes: the measured balance between requests and
# items read outside the viewport (docs/decisions/map-ranges.md).
PLACE_QUERY_BUDGET = 8
# Cover cells on the view's edge are divided until one is at most this fraction of a side.
COVER_FRACTION = 8


@dataclass(frozen=True)
class Places:
    """The labels of an entity's place partitions (`DgMa`) and cell-count partitions (`DgCe`):
    letters and digits."""

    places: str
    cells: str
    # The table the place and cell items are keyed on: the entity's (set when declared).
    table: Index = TABLE


@dataclass(frozen=True)
class Viewport:
    """A map view; `west > east` crosses the antimeridian."""

    north: float
    south: float
    east: float
    west: float

    def __post_init__(self) -> None:
        for name in ("north", "south"):
            value = getattr(self, name)
            if not -90.0 <= value <= 90.0:
                raise BadUserInput(f"{value} is outside -90 to 90", field=f"viewport.{name}")
        for name in ("east", "west"):
            value = getattr(self, name)
            if not -180.0 <= value <= 180.0:
                raise BadUserInput(f"{value} is outside -180 to 180", field=f"viewport.{name}")
        if self.south > self.north:
            raise BadUserInput(
                f"south {self.south} is north of north {self.north}", field="viewport"
            )

    @property
    def width(self) -> float:
        return self.east - self.west if self.west <= self.east else 360.0 - self.west + self.east

    @property
    def height(self) -> float:
        return self.north - self.south

    def boxes(self) -> list[Box]:
        """One box, or two when the view crosses the antimeridian."""
        if self.west <= self.east:
            return [Box(self.south, self.north, self.west, self.east)]
        return [
            Box(self.south, self.north, self.west, 180.0),
            Box(self.south, self.north, -180.0, self.east),
        ]

    def contains(self, lat: float, lon: float) -> bool:
        return any(box.contains(lat, lon) for box in self.boxes())


def place_geohash(lat: float, lon: float) -> str:
    if not -90.0 <= lat <= 90.0:
        raise BadUserInput(f"{lat} is outside -90 to 90", field="lat")
    if not -180.0 <= lon <= 180.0:
        raise BadUserInput(f"{lon} is outside -180 to 180", field="lon")
    return encode(lat, lon, PLACE_GEOHASH_LENGTH)


def place_key(places: Places, geohash: str, entity_id: str) -> dict[str, str]:
    """Where an entity's data lives: its 3-character cell, sorted by the rest of its hash."""
    table, rest = places.table, geohash[PLACE_PARTITION_LENGTH:PLACE_GEOHASH_LENGTH]
    return {
        table.partition_key: _partition(places.places, geohash[:PLACE_PARTITION_LENGTH]),
        table.sort_key: f"{rest}#{entity_id}",
    }


def cell_keys(places: Places, geohash: str) -> list[dict[str, str]]:
    """The count items an entity at `geohash` adds to: one per length 1 to 8."""
    return [cell_key(places, geohash[:length]) for length in CELL_LENGTHS]


def cell_key(places: Places, cell: str) -> dict[str, str]:
    split = max(0, len(cell) - SORT_KEY_LENGTH)
    table = places.table
    return {table.partition_key: cell_partition(places, cell), table.sort_key: cell[split:]}


def cell_partition(places: Places, cell: str) -> str:
    """The partition of a cell's count: its first L-3 characters, or for a cell shorter
    than a sort key, the world's partition of its length (never length 3's)."""
    if len(cell) < SORT_KEY_LENGTH:
        return _partition(f"{places.cells}{len(cell)}", "")
    return _partition(places.cells, cell[: len(cell) - SORT_KEY_LENGTH])


def cell_of(places: Places, key: Mapping[str, Any]) -> str:
    """The geohash a cell item counts, from its key."""
    return cells_of(places)(key)


def cells_of(places: Places) -> Callable[[Mapping[str, Any]], str]:
    """`cell_of` for many cell items of `places`: the key's names looked up once."""
    partition, sort = places.table.partition_key, places.table.sort_key

    def cell(key: Mapping[str, Any]) -> str:
        return str(key[partition]).split("#", 1)[1] + str(key[sort])

    return cell


def kept_by(places: Places, partition: str) -> str | None:
    """What an item of the partition `partition` is to an entity with `places`: "place",
    "cell" (a count) or None (not one of its places' items)."""
    if partition.startswith(f"{places.places}#"):
        return "place"
    rest = partition.removeprefix(places.cells)
    if rest != partition and (rest.startswith("#") or rest[:1].isdigit()):
        return "cell"
    return None


def _partition(label: str, prefix: str) -> str:
    return f"{label}#{prefix}"


# ---- heatmap ---------------------------------------------------------------------------


def default_precision(viewport: Viewport) -> int:
    """The largest length 1 to 8 whose partitions (3 shorter) cover the view in at most 4:
    3 at least, since lengths 1 to 3 each have one partition, the world."""
    for length in reversed(CELL_LENGTHS):
        if partitions_needed(viewport, length) <= DEFAULT_PARTITIONS:
            return length
    return CELL_LENGTHS[0]


def precision_choices(viewport: Viewport, precision: int | None) -> list[int]:
    """Lengths to fall back on when a bound is over the limits, largest first: from the
    seed rule's down to 1 (`precision` left out), or the valid ones below `precision`."""
    top = default_precision(viewport) if precision is None else precision - 1
    return [
        length
        for length in reversed(CELL_LENGTHS)
        if length <= top and partitions_needed(viewport, length) <= MAX_PARTITIONS
    ]


def partitions_needed(viewport: Viewport, length: int) -> int:
    """Cells of `length - 3` that meet the view (the world's one cell up to length 3); one
    both halves of a view across the antimeridian meet (a view nearly round the world)
    counts once."""
    spans = [grid_span(box, _partition_length(length)) for box in viewport.boxes()]
    rows = spans[0][0]  # both halves have the view's latitudes
    columns = set().union(*(cols for _, cols in spans))
    return len(rows) * len(columns)


def checked_precision(viewport: Viewport, precision: int | None) -> int:
    if precision is None:
        return default_precision(viewport)
    if precision not in CELL_LENGTHS:
        first, last = CELL_LENGTHS[0], CELL_LENGTHS[-1]
        raise BadUserInput(f"{precision} is outside {first} to {last}", field="precision")
    needed = partitions_needed(viewport, precision)
    if needed > MAX_PARTITIONS:
        raise BadUserInput(
            f"{precision} needs {needed} partitions for this viewport (at most {MAX_PARTITIONS}):"
            " zoom in or lower the precision",
            field="precision",
        )
    return precision


@dataclass(frozen=True)
class CellQuery:
    """One Query over a cell partition, and the part of the view inside that partition."""

    condition: KeyCondition
    boxes: tuple[Box, ...]
    length: int

    def wants(self, cell: str) -> bool:
        """Whether a cell read by this Query meets the view (the span holds others too)."""
        bounds, boxes = cell_box(cell), self.boxes  # most views have one box: no generator
        return any(map(bounds.intersects, boxes)) if len(boxes) > 1 else bounds.intersects(boxes[0])

    @property
    def span(self) -> int:
        """How many cell keys the Query's range can hold: its most items read."""
        low, high = self.condition.low, self.condition.high
        assert low is not None and high is not None
        return ordinal(high) - ordinal(low) + 1

    @property
    def cells(self) -> frozenset[str]:
        """Every cell of the view in this partition (enumerated: for checks, not serving)."""
        prefix = self.condition.partition.split("#", 1)[1]
        return frozenset(
            c for box in self.boxes for c in cells_meeting(box, self.length) if c.startswith(prefix)
        )


def heatmap_queries(places: Places, viewport: Viewport, precision: int) -> list[CellQuery]:
    """One Query per partition: the span from its first to its last cell in the view.

    Geohash order is Morton order, which grows with both row and column, so within the
    part of the view a partition holds the first cell is the south-west one and the last
    the north-east one: no cell in between needs listing.
    """
    parts: dict[str, list[Box]] = {}
    for box in viewport.boxes():
        for partition in cells_meeting(box, _partition_length(precision)):
            parts.setdefault(partition, []).append(_clip(cell_box(partition), box))
    queries = []
    for partition, boxes in sorted(parts.items()):
        corners = [_corner_cells(box, partition, precision) for box in boxes]
        first = min(c[0] for c in corners)
        last = max(c[1] for c in corners)
        low, high = cell_key(places, first), cell_key(places, last)
        table = places.table
        condition = KeyCondition(
            table, low[table.partition_key], low[table.sort_key], high[table.sort_key]
        )
        queries.append(CellQuery(condition, tuple(boxes), precision))
    return queries


def _partition_length(length: int) -> int:
    """How many characters of a cell of `length` name its count's partition."""
    return max(0, length - SORT_KEY_LENGTH)


def _corner_cells(box: Box, partition: str, length: int) -> tuple[str, str]:
    """The south-west and north-east cells of `length` in `partition` that meet `box`."""
    dlat, dlon = cell_size(length)
    bounds = cell_box(partition)
    # A box clipped to the partition shares its edges, so `grid_span` also takes in the
    # neighbours' cells on them; keep the partition's own rows and columns (exact bounds).
    own_rows = range(round((bounds.south + 90.0) / dlat), round((bounds.north + 90.0) / dlat))
    own_cols = range(round((bounds.west + 180.0) / dlon), round((bounds.east + 180.0) / dlon))
    span_rows, span_cols = grid_span(box, length)
    rows = range(max(span_rows[0], own_rows[0]), min(span_rows[-1], own_rows[-1]) + 1)
    cols = range(max(span_cols[0], own_cols[0]), min(span_cols[-1], own_cols[-1]) + 1)
    south_west = encode(-90.0 + (rows[0] + 0.5) * dlat, -180.0 + (cols[0] + 0.5) * dlon, length)
    north_east = encode(-90.0 + (rows[-1] + 0.5) * dlat, -180.0 + (cols[-1] + 0.5) * dlon, length)
    return south_west, north_east


# ---- places ----------------------------------------------------------------------------


def checked_place_view(viewport: Viewport, advice: str = "zoom in") -> Viewport:
    # Differences of decimal degrees carry float error (-127.8 - -128.3 is 0.50000000000001):
    # a view of exactly 0.5 degrees must pass, so allow far less than a millimetre more.
    limit = MAX_PLACE_SPAN + 1e-9
    if viewport.width > limit or viewport.height > limit:
        raise BadUserInput(
            f"{viewport.width:g} by {viewport.height:g} degrees is more than {MAX_PLACE_SPAN}"
            f" on a side: {advice}",
            field="viewport",
        )
    return viewport


def place_queries(
    places: Places, viewport: Viewport, budget: int = PLACE_QUERY_BUDGET
) -> list[KeyCondition]:
    """Key ranges that hold every place in the view, in at most `budget` Queries if it can.

    The view is covered with geohash cells: whole cells inside it, and cells on its edge
    down to a length where one is about an eighth of the view. Neighbouring cells merge
    into one range; while there are more ranges than the budget, the two ranges of one
    partition with the smallest gap between them merge (reading the gap). A view that
    meets more partitions than the budget gets one range per partition.
    """
    depth = cover_depth(viewport)
    return [r.condition(places, depth) for r in within_budget(cover(viewport, depth), budget)]


def cover(viewport: Viewport, depth: int) -> list[PlaceRange]:
    """The view's cells of length `depth`, runs of neighbours in key order as one range.

    Every cell of that length meeting the view is read (a cell wholly inside it is read
    whole, so are all its descendants; one on the edge down to `depth`): in key order,
    its numbers, with consecutive ones of one partition merged.
    """
    numbers = sorted({n for box in viewport.boxes() for n in cell_numbers(box, depth)})
    shift = 5 * (depth - PLACE_PARTITION_LENGTH)
    ranges: list[PlaceRange] = []
    low = previous = -2
    for number in [*numbers, -2]:
        if number != previous + 1 or number >> shift != previous >> shift:
            if previous >= 0:
                partition = from_ordinal(previous >> shift, PLACE_PARTITION_LENGTH)
                mask = (1 << shift) - 1
                ranges.append(PlaceRange(partition, low & mask, previous & mask))
            low = number
        previous = number
    return ranges


def within_budget(ranges: list[PlaceRange], budget: int) -> list[PlaceRange]:
    """Merge the two ranges of one partition with the smallest gap until `budget` remain."""
    merged = list(ranges)
    while len(merged) > budget:
        gaps = [
            (b.low - a.high, i)
            for i, (a, b) in enumerate(pairwise(merged))
            if a.partition == b.partition
        ]
        if not gaps:
            break
        _, i = min(gaps)
        merged[i : i + 2] = [PlaceRange(merged[i].partition, merged[i].low, merged[i + 1].high)]
    return merged


@dataclass(frozen=True, order=True)
class PlaceRange:
    """Cells `low..high` (indices at the cover depth) of one 3-character partition."""

    partition: str
    low: int
    high: int

    def condition(self, places: Places, depth: int) -> KeyCondition:
        digits = depth - PLACE_PARTITION_LENGTH
        low, high = from_ordinal(self.low, digits), from_ordinal(self.high, digits)
        partition = _partition(places.places, self.partition)
        return KeyCondition(places.table, partition, low, high + KEY_MAX)


def cover_depth(viewport: Viewport, fraction: int = COVER_FRACTION) -> int:
    """The shortest cell length at which a cell is at most 1/`fraction` of the view a side.

    A side shorter than an eighth of the other counts as that eighth: a thin view would
    otherwise be divided into thousands of cells along its length (a line into millions).
    """
    longer = max(viewport.height, viewport.width)
    view_height, view_width = max(viewport.height, longer / 8), max(viewport.width, longer / 8)
    for length in range(PLACE_PARTITION_LENGTH, PLACE_GEOHASH_LENGTH + 1):
        height, width = cell_size(length)
        if height <= view_height / fraction and width <= view_width / fraction:
            return length
    return PLACE_GEOHASH_LENGTH


def _clip(a: Box, b: Box) -> Box:
    return Box(
        max(a.south, b.south), min(a.north, b.north), max(a.west, b.west), min(a.east, b.east)
    )
