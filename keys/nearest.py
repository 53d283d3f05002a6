"""The entities within a radius of a point, nearest first, read from their place partitions
(`keys/map.py`: `<places>#<geohash[0:3]>` / `<geohash[3:12]>#<id>`) by key alone.

The circle is covered with geohash cells of one size (`start_cells`): the smallest whose
cells meeting it number at most `START_CELLS`, a place partition's at most. Cells are read
nearest first by the exact distance from the point to their box, each by one Query of at
most `need` places (the page and the one past it) in key order (`keys/bit_cells.py`). A
cell that holds more is cut where the read stopped: the rest of it is read later as its
quarters (the one the read stopped in from that key on), each again by its own distance.
Places are ordered by distance, ties by the entity's key; the search stops once `need` of
them are nearer than any unread cell can hold, or no cell is left. A page after a cursor
passes over the cells wholly nearer than the cursor, and no cell wholly outside the circle
is ever read.

A search makes at most `most_reads` reads: its cells and `REFINE_READS` more, cutting full
ones. A spot so dense that they cannot order `need` places answers those it could order
(`more` then says a page may follow, its cursor goes on from there); one that cannot order
even one is refused. Every place partition meets at the poles (256 at each), so a circle
holding a pole reads every one of them.
"""

from __future__ import annotations

import asyncio
import heapq
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from errors.vocabulary import BadUserInput
from keys.bit_cells import PARTITION_BITS, PLACE_BITS, BitCell, cells_meeting, count_meeting
from keys.conditions import KeyCondition
from keys.distance import Point, circle_boxes, distance, farthest_in, nearest_in
from keys.map import PLACE_PARTITION_LENGTH, Places

T = TypeVar("T")

# The most cells a circle starts with, where a place partition's cells are small enough
# (all but near the poles), and the reads a search may make beyond them, cutting full cells.
START_CELLS = 16
REFINE_READS = 16
# Metres of rounding a computed distance may carry: a cell is read, and a place counted as
# ordered, with this much to spare.
SLACK = 1e-6
READ_ITEMS = 128


@dataclass(frozen=True)
class Placed(Generic[T]):
    """A place read: its position, its entity's key (ties are ordered by it), its sort key
    in the partition (where a read goes on from) and what the reader made of it."""

    latitude: float
    longitude: float
    key: str
    sort_key: str
    value: T


@dataclass(frozen=True)
class Read(Generic[T]):
    """The first places of a key range in key order, and whether more may follow."""

    places: Sequence[Placed[T]]
    more: bool


# read(condition, after, limit): at most `limit` places of `condition` in key order, after
# the sort key `after` (None: from the start): one Query.
Reader = Callable[[KeyCondition, str | None, int], Awaitable[Read[T]]]


@dataclass(frozen=True)
class Position:
    """Where a page starts: after this distance in metres and, at it, this key."""

    distance: float
    key: str


@dataclass(frozen=True)
class Found(Generic[T]):
    """A page: places with their distance in metres, in order, and whether more may follow."""

    places: list[tuple[float, Placed[T]]]
    more: bool
    reads: int


def start_cells(point: Point, radius: float) -> list[BitCell]:
    """The cells of one size meeting the circle (by their exact distance): the smallest
    size whose cells number at most `START_CELLS`, else a place partition's (near a pole)."""
    boxes = circle_boxes(point, radius)
    for bits in range(PLACE_BITS, PARTITION_BITS, -1):
        if count_meeting(boxes, bits) <= 4 * START_CELLS:  # few enough to list
            cells = _meeting(point, radius, bits)
            if len(cells) <= START_CELLS:
                return cells
    return _meeting(point, radius, PARTITION_BITS)


def most_reads(point: Point, radius: float) -> int:
    """The most reads (Queries) a search of the circle makes: its worst case."""
    return _budget(len(start_cells(point, radius)))


def _budget(cells: int) -> int:
    # Near a pole the cells are place partitions, as many as meet there: as many reads
    # again to cut the full ones.
    return cells + max(REFINE_READS, cells)


def _meeting(point: Point, radius: float, bits: int) -> list[BitCell]:
    cells = cells_meeting(circle_boxes(point, radius), bits)
    return [c for c in cells if nearest_in(point, c.box) <= radius + SLACK]


@dataclass(frozen=True, order=True)
class _Unread:
    """Places of `cell` (after the sort key `after`), none nearer than `low` metres."""

    low: float
    cell: BitCell
    after: str | None = field(default=None, compare=False)


async def nearest(
    places: Places,
    point: Point,
    radius: float,
    need: int,
    read: Reader[T],
    *,
    after: Position | None = None,
    reads: int | None = None,
    per_read: int | None = None,
    named: str = "radius",
) -> Found[T]:
    """The places within `radius` metres of `point` past `after`, nearest first: `need - 1`
    of them for a page, and whether more follow; in at most `reads` reads (`most_reads`)
    of at most `per_read` places each (`need` or `READ_ITEMS`, whichever is more). A spot
    too dense to order one place is BAD_USER_INPUT naming the radius's argument, `named`."""
    cells = start_cells(point, radius)
    budget = _budget(len(cells)) if reads is None else reads
    per_read = max(need, READ_ITEMS) if per_read is None else per_read
    search = _Search[T](point, radius, after)
    for cell in cells:
        search.push(cell, None)
    made = 0
    while search.unread and made < budget:
        frontier = search.unread[0].low
        if search.ordered(frontier) >= need:
            break
        # Cells as near as the nearest are read together (every one meeting at a pole).
        batch = []
        while search.unread and search.unread[0].low <= frontier + SLACK and made < budget:
            batch.append(heapq.heappop(search.unread))
            made += 1
        results = await asyncio.gather(
            *(read(u.cell.condition(places), u.after, per_read) for u in batch)
        )
        for unread, result in zip(batch, results, strict=True):
            search.add(unread, result)
    return search.page(need, made, named)


class _Search(Generic[T]):
    def __init__(self, point: Point, radius: float, after: Position | None) -> None:
        self.point, self.radius, self.after = point, radius, after
        self.unread: list[_Unread] = []
        self.found: list[tuple[float, str, Placed[T]]] = []

    def push(self, cell: BitCell, after: str | None) -> None:
        box = cell.box
        low = nearest_in(self.point, box)
        if low > self.radius + SLACK:
            return  # wholly outside the circle
        if self.after is not None and farthest_in(self.point, box) + SLACK < self.after.distance:
            return  # wholly before the cursor
        heapq.heappush(self.unread, _Unread(low, cell, after))

    def add(self, unread: _Unread, result: Read[T]) -> None:
        for place in result.places:
            metres = distance(self.point, place.latitude, place.longitude)
            if metres > self.radius:
                continue
            here = (metres, place.key)
            if self.after is not None and here <= (self.after.distance, self.after.key):
                continue
            self.found.append((metres, place.key, place))
        if result.more and result.places:
            self._rest(unread.cell, result.places[-1].sort_key)

    def _rest(self, cell: BitCell, last: str) -> None:
        """The cell's places after the sort key `last`: the rest of the quarter it is in,
        then the quarters after it (a place's whole geohash goes on by itself)."""
        if cell.bits == PLACE_BITS:
            self.push(cell, last)
            return
        geohash = cell.partition + last[: 12 - PLACE_PARTITION_LENGTH]
        holding = cell.holding(geohash)
        self.push(holding, last)
        for quarter in cell.quarters():
            if quarter.number > holding.number:
                self.push(quarter, None)

    def ordered(self, frontier: float) -> int:
        """How many places found are nearer than any unread one can be."""
        return sum(1 for metres, _, _ in self.found if metres + SLACK < frontier)

    def page(self, need: int, made: int, named: str) -> Found[T]:
        self.found.sort(key=lambda f: (f[0], f[1]))
        ordered = self.found
        more = len(ordered) >= need
        if self.unread:
            frontier = self.unread[0].low
            ordered = [f for f in self.found if f[0] + SLACK < frontier]
            more = True
            if not ordered:
                raise BadUserInput(
                    f"more places lie about this point than {made} reads can put in order:"
                    " narrow it",
                    field=named,
                )
        return Found([(metres, place) for metres, _, place in ordered[: need - 1]], more, made)


def checked_radius(radius: float, most: float, name: str = "radius") -> float:
    """A radius in metres above 0 and at most `most`: BAD_USER_INPUT naming `name`."""
    if not math.isfinite(radius) or radius <= 0:
        raise BadUserInput(f"{radius} is not a distance above 0 metres", field=name)
    if radius > most:
        raise BadUserInput(f"{radius:g} metres is more than the {most:g} allowed", field=name)
    return radius
