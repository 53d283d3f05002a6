"""The entities within a radius of a point, nearest first (`model.Nearest`,
docs/model.md#nearest): the arguments checked, the place partitions read by the search of
`keys/nearest.py` through the store, each edge's cursor sealed and bound to the field, the
point and the radius, and the worst case of a page.

A cursor holds its edge's distance and entity key (the order's two terms), so the next
page starts right after it, whatever was added or removed meanwhile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from data.entities import Record, record
from data.places.items import place_bytes
from errors.vocabulary import BadCursor, BadUserInput
from keys.conditions import KeyCondition
from keys.distance import Point
from keys.nearest import (
    READ_ITEMS,
    REFINE_READS,
    START_CELLS,
    Placed,
    Position,
    Read,
    checked_radius,
    most_reads,
    nearest,
)
from model import Nearest
from store.client import Store
from store.cursors import Binding, CursorCodec
from store.pagination import PageArgs, query_calls
from store.requests import Item

RADIUS = "radiusMeters"


@dataclass(frozen=True)
class Edge:
    cursor: str
    distance: float
    record: Record


@dataclass(frozen=True)
class Nearby:
    """A page of entities nearest first, whether more may follow, and whether it began
    after a cursor (the cursor's own entity, at least, lies before it)."""

    edges: list[Edge]
    has_next_page: bool
    has_previous_page: bool


@dataclass(frozen=True)
class Asked:
    """A search's arguments, checked."""

    point: Point
    radius: float
    page: PageArgs


def asked(pattern: Nearest, args: dict[str, Any]) -> Asked:
    """The field's arguments by GraphQL name, checked: BAD_USER_INPUT naming the argument."""
    point = Point(float(args["latitude"]), float(args["longitude"]))
    radius = checked_radius(float(args[RADIUS]), pattern.max_radius, RADIUS)
    page = PageArgs.parse(args.get("first"), args.get("after"), None, None)
    return Asked(point, radius, page)


def binding(pattern: Nearest, point: Point, radius: float) -> Binding:
    """Where a cursor is valid: this field, around this point, within this radius."""
    where = {"latitude": point.latitude, "longitude": point.longitude, RADIUS: radius}
    return Binding(f"Query.{pattern.field}", "", where)


async def nearby(
    store: Store, cursors: CursorCodec, pattern: Nearest, args: dict[str, Any]
) -> Nearby:
    """A page of the entities within the radius of the point, nearest first."""
    entity, search = pattern.entity, asked(pattern, args)
    places = entity.places
    assert places is not None  # checked when the model is built
    bound = binding(pattern, search.point, search.radius)
    after = None if search.page.cursor is None else _position(cursors, bound, search.page.cursor)
    lat, lon, _ = entity.position
    table = places.table

    async def read(condition: KeyCondition, start: str | None, limit: int) -> Read[Item]:
        start_key = None
        if start is not None:
            start_key = {table.partition_key: condition.partition, table.sort_key: start}
        found = await store.query(condition, forward=True, limit=limit, start_key=start_key)
        return Read(
            [_placed(item, lat, lon, table.sort_key) for item in found.items],
            found.last_key is not None,
        )

    found = await nearest(
        places, search.point, search.radius, search.page.size + 1, read, after=after, named=RADIUS
    )
    edges = [
        Edge(cursors.encode(bound, [repr(metres), place.key]), metres, record(entity, place.value))
        for metres, place in found.places
    ]
    return Nearby(edges, found.more, after is not None)


def _placed(item: Item, lat: str, lon: str, sort_key: str) -> Placed[Item]:
    sort = str(item[sort_key])
    # A place's sort key is `<geohash[3:12]>#<the entity's key>`.
    return Placed(float(item[lat]), float(item[lon]), sort.split("#", 1)[1], sort, item)


def _position(cursors: CursorCodec, bound: Binding, cursor: str) -> Position:
    values = cursors.decode(bound, cursor)
    if len(values) == 2:
        try:
            metres = float(values[0])
        except ValueError:
            metres = math.nan
        if math.isfinite(metres) and metres >= 0:
            return Position(metres, values[1])
    raise BadCursor("the cursor is malformed; use a cursor returned by this field")


def bound(pattern: Nearest, args: dict[str, Any]) -> tuple[int, int]:
    """The most DynamoDB calls and items a page can take: each read at most
    `max(first + 1, READ_ITEMS)` places, in as many calls as their size needs; arguments the
    field refuses read nothing."""
    try:
        search = asked(pattern, args)
    except (BadUserInput, TypeError, ValueError):
        return 0, 0
    reads = _reads(search.point.latitude, search.point.longitude, search.radius)
    return _figures(pattern, reads, search.page.size)


@lru_cache(maxsize=1024)
def _reads(latitude: float, longitude: float, radius: float) -> int:
    return most_reads(Point(latitude, longitude), radius)


def _figures(pattern: Nearest, reads: int, first: int) -> tuple[int, int]:
    per_read = max(first + 1, READ_ITEMS)
    return reads * query_calls(per_read, place_bytes(pattern.entity)), reads * per_read


def described(pattern: Nearest, first: int) -> str:
    """What `model check` says of the field: its requests and its worst case for pages of
    `first`, wherever 16 cells cover the circle, and for a circle holding a pole."""
    places = pattern.entity.places
    assert places is not None  # checked when the model is built
    calls, items = _figures(pattern, START_CELLS + REFINE_READS, first)
    polar = _figures(pattern, _reads(90.0, 0.0, pattern.max_radius), first)
    most = max(first + 1, READ_ITEMS)
    return (
        f"Query per geohash cell of the circle, nearest first, on {places.places}#<geohash[0:3]>"
        f" (SK begins_with or BETWEEN the cell's), at most {most} places each, a full cell"
        f" again by its quarters; worst {calls} calls, {items} items (first {first}, any radius"
        f" up to {pattern.max_radius:g} m, where {START_CELLS} cells cover it); a circle holding"
        f" a pole reads the 256 partitions meeting there: {polar[0]} calls, {polar[1]} items"
    )
