"""The demo's map markers, derived from their declaration (`demo/model/markers.py`), called
as the tests call each area's access patterns (each declaring the worst case the engine
derives for it), and the keys of `keys/map.py` at the markers' places."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from data.callers import OPEN, Caller
from data.places import items as entity_places
from data.writes import entities as entity_writes
from demo.model import MODEL
from demo.model.markers import MARKER, MARKER_PLACES
from keys import map as map_keys
from keys.conditions import KeyCondition
from keys.map import CELL_LENGTHS, Viewport, place_geohash
from store.client import Store
from store.cost import worst_case
from store.loaders import ItemLoader
from store.requests import Item
from tests.records import FromRecord

__all__ = ["CELL_LENGTHS", "Viewport", "cell_of", "place_geohash"]
MAX_LIMIT = entity_places.MAX_LIMIT
MARKER_READS = entity_places.SEARCH_READS
CELL_BYTES = entity_places.CELL_BYTES
PLACE_QUERY_BUDGET = map_keys.PLACE_QUERY_BUDGET


class Marker(FromRecord, entity=MARKER):
    id: str
    lat: float
    lon: float
    geohash: str
    label: str
    created_at: datetime
    created_by: str | None = None


@dataclass(frozen=True)
class MarkerSearch:
    markers: list[Marker]
    truncated: bool

    @classmethod
    def of(cls, found: entity_places.Search) -> MarkerSearch:
        return cls([Marker.of(r) for r in found.found], found.truncated)


@dataclass(frozen=True)
class Cell:
    geohash: str
    count: int


@dataclass(frozen=True)
class Heatmap:
    precision: int
    cells: list[Cell]


def marker_items(
    marker_id: str, lat: float, lon: float, label: str, created: datetime, caller: Caller = OPEN
) -> tuple[Item, Item]:
    """The marker's id item and its place item (what `markers` reads)."""
    given = {"lat": lat, "lon": lon, "label": label}
    _, made, _ = entity_writes.new_items(
        MARKER, given, caller=caller, created=created, current=created
    )
    own = {**made, **MARKER.primary_key({"id": marker_id}), "id": marker_id}
    return own, entity_places.place_item(MARKER, own)


@worst_case(requests=entity_writes.create_calls(MODEL, MARKER))
async def add_marker(
    store: Store, lat: float, lon: float, label: str, *, caller: Caller = OPEN
) -> Marker:
    given = {"lat": lat, "lon": lon, "label": label}
    made = await entity_writes.create(store, MODEL, MARKER, given, done="added", caller=caller)
    return Marker.of(made)


_REMOVE, _REMOVE_ITEMS = entity_writes.delete_calls(MARKER)


@worst_case(requests=_REMOVE, items=_REMOVE_ITEMS)
async def remove_marker(store: Store, marker_id: str, *, caller: Caller = OPEN) -> None:
    arguments = {"id": marker_id}
    await entity_writes.delete(
        store, ItemLoader(store), MARKER, arguments, caller=caller, writer_only=True
    )


async def search_markers(store: Store, viewport: Viewport, limit: int) -> MarkerSearch:
    return MarkerSearch.of(await entity_places.search(store, MARKER, viewport, limit))


async def read_markers(
    store: Store, viewport: Viewport, conditions: Sequence[KeyCondition], limit: int
) -> MarkerSearch:
    return MarkerSearch.of(
        await entity_places.read_places(store, MARKER, viewport, conditions, limit)
    )


async def heatmap(store: Store, viewport: Viewport, precision: int | None) -> Heatmap:
    found = await entity_places.heatmap(store, MARKER_PLACES, viewport, precision)
    return Heatmap(found.precision, [Cell(g, c) for g, c in found.counts])


def markers_bound(limit: int) -> tuple[int, int]:
    return entity_places.search_bound(MARKER, limit)


def heatmap_bound(viewport: Viewport, precision: int | None) -> tuple[int, int, int]:
    return entity_places.heatmap_bound(MARKER_PLACES, viewport, precision)


def marker_changes(viewport: Viewport) -> tuple[tuple[str, str], Callable[[Any], bool]]:
    """The topic `markerChanges` follows, and which states are in the view."""
    return ("markerChanges", ""), lambda state: viewport.contains(state["lat"], state["lon"])


# ---- keys, at the markers' places -------------------------------------------------------


def marker_key(marker_id: str) -> dict[str, str]:
    return {"PK": f"MARKER#{marker_id}", "SK": f"MARKER#{marker_id}"}


def place_key(geohash: str, marker_id: str) -> dict[str, str]:
    return map_keys.place_key(MARKER_PLACES, geohash, marker_id)


def cell_keys(geohash: str) -> list[dict[str, str]]:
    return map_keys.cell_keys(MARKER_PLACES, geohash)


def cell_of(key: Mapping[str, Any]) -> str:
    return map_keys.cell_of(MARKER_PLACES, key)


def cell_key(cell: str) -> dict[str, str]:
    return map_keys.cell_key(MARKER_PLACES, cell)


def cell_partition(cell: str) -> str:
    return map_keys.cell_partition(MARKER_PLACES, cell)


def place_queries(
    viewport: Viewport, budget: int = map_keys.PLACE_QUERY_BUDGET
) -> list[KeyCondition]:
    return map_keys.place_queries(MARKER_PLACES, viewport, budget)


def heatmap_queries(viewport: Viewport, precision: int) -> list[map_keys.CellQuery]:
    return map_keys.heatmap_queries(MARKER_PLACES, viewport, precision)
