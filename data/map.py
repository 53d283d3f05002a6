"""Map markers and the cell counts kept with them (seed 002): writes, reads and records.

A marker is written with its id item and the eight cell counts (lengths 1 to 8) it adds to,
in one TransactWriteItems (10 actions of the 100 allowed), so counts are exact even after a
failed write. Both marker items
record its creator; the delete of the id item holds a caller to the rule that only the
creator (or an admin) removes it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from data import validation
from data.callers import AUTHOR_KEY, OPEN, Caller, author_of, wrote
from data.clock import new_ksuid, now
from keys import map as map_keys
from keys.codecs import format_timestamp, parse_timestamp
from keys.conditions import KeyCondition
from keys.errors import DynagateError, Forbidden, NotFound
from keys.geohash import cell_count
from keys.map import CELL_LENGTHS as CELL_LENGTHS
from keys.map import Viewport as Viewport
from keys.map import precision_choices as precision_choices
from store.client import TRANSACT_CALLS, Store
from store.cost import worst_case
from store.errors import TransactionCanceled
from store.pagination import query_calls
from store.requests import (
    Item,
    counter_update,
    expecting,
    transaction_delete,
    transaction_put,
)

T = TypeVar("T")

MAX_LIMIT = 1_000
# A view's key ranges can also hold markers outside it. A search makes at most this many
# Query calls (each reads at most `limit + 1` markers), then answers `truncated`: more may
# exist. Views of real maps need one call per range, at most eight ranges.
MARKER_READS = 2 * map_keys.MARKER_QUERY_BUDGET
# The largest marker item (a 200-character label) and cell count item.
MARKER_BYTES = 2 * 1024
CELL_BYTES = 256


@dataclass(frozen=True)
class Marker:
    id: str
    lat: float
    lon: float
    geohash: str
    label: str
    created_at: datetime
    # None for a marker added in open mode.
    created_by: str | None = None

    @classmethod
    def from_item(cls, item: Item) -> Marker:
        return cls(
            id=item["id"],
            # A whole-degree coordinate comes back from the table as an int.
            lat=float(item["lat"]),
            lon=float(item["lon"]),
            geohash=item["geohash"],
            label=item["label"],
            created_at=parse_timestamp(item["createdAt"]),
            created_by=author_of(item),
        )


@dataclass(frozen=True)
class Cell:
    """A geohash cell and how many markers it holds."""

    geohash: str
    count: int


@dataclass(frozen=True)
class MarkerSearch:
    markers: list[Marker]
    truncated: bool


@dataclass(frozen=True)
class Heatmap:
    precision: int
    cells: list[Cell]


def marker_items(
    marker_id: str, lat: float, lon: float, label: str, created: datetime, caller: Caller = OPEN
) -> tuple[Item, Item]:
    """The marker's id item and its place item (what `markers` reads)."""
    geohash = map_keys.marker_geohash(lat, lon)
    fields = {
        "id": marker_id,
        "lat": lat,
        "lon": lon,
        "geohash": geohash,
        "label": validation.text(label, "label"),
        "createdAt": format_timestamp(created),
        **caller.authored(),
    }
    return (
        {**map_keys.marker_key(marker_id), **fields},
        {**map_keys.marker_place(geohash, marker_id), **fields, "type": "MARKER"},
    )


@worst_case(requests=TRANSACT_CALLS)
async def add_marker(
    store: Store, lat: float, lon: float, label: str, *, caller: Caller = OPEN
) -> Marker:
    created = now()
    by_id, marker = marker_items(new_ksuid(created), lat, lon, label, created, caller)
    actions = [
        transaction_put(store.table, by_id, must_be_new=True),
        transaction_put(store.table, marker),
        *_count_updates(store.table, marker["geohash"], +1),
    ]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        raise exc.as_error("the marker could not be added; try again") from exc
    return Marker.from_item(marker)


@worst_case(requests=1 + TRANSACT_CALLS, items=1)
async def remove_marker(store: Store, marker_id: str, *, caller: Caller = OPEN) -> None:
    validation.ident(marker_id)
    key = map_keys.marker_key(marker_id)
    found = await store.get(key, consistent=True)
    if found is None:
        raise NotFound(f"marker {marker_id!r} does not exist")
    # Refused from the read already, which saves a write its condition would refuse.
    if not wrote(found, caller):
        raise _forbidden(marker_id)
    geohash = found["geohash"]
    actions = [
        _guarded(transaction_delete(store.table, key, must_exist=True), caller),
        transaction_delete(store.table, map_keys.marker_place(geohash, marker_id)),
        *_count_updates(store.table, geohash, -1),
    ]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        refusals = {0: _refusal(exc.items[0], marker_id, caller)}
        raise exc.explained(refusals, "the marker could not be removed; try again") from exc


def _guarded(action: dict[str, Any], caller: Caller) -> dict[str, Any]:
    """The id item's delete, applied only while the caller is its creator (unless the
    caller is unrestricted); the stored item comes back with a refusal, to tell why."""
    restriction = caller.restriction()
    if restriction is None:
        return action
    return expecting(action, {AUTHOR_KEY: restriction}, old_on_failure=True)


def _refusal(stored: Item | None, marker_id: str, caller: Caller) -> DynagateError:
    """Why the id item's delete failed: gone meanwhile, or not the caller's."""
    if stored is not None and not wrote(stored, caller):
        return _forbidden(marker_id)
    return NotFound(f"marker {marker_id!r} does not exist")


def _forbidden(marker_id: str) -> Forbidden:
    return Forbidden(f"only its creator may remove marker {marker_id!r}")


def _count_updates(table: str, geohash: str, delta: int) -> list[dict[str, Any]]:
    return [counter_update(table, key, "count", delta) for key in map_keys.cell_keys(geohash)]


async def search_markers(store: Store, viewport: Viewport, limit: int) -> MarkerSearch:
    """Markers inside the view (edges included): up to `limit`, and whether there are more."""
    validation.number(limit, "limit", 1, MAX_LIMIT)
    map_keys.checked_marker_view(viewport)
    return await read_markers(store, viewport, map_keys.marker_queries(viewport), limit)


async def read_markers(
    store: Store, viewport: Viewport, conditions: Sequence[KeyCondition], limit: int
) -> MarkerSearch:
    """Markers of `conditions` in the view, in key order: up to `limit`, and whether more
    may exist.

    The first page of every range is read at once (a view's ranges are few, and most views
    hold fewer than `limit` markers, which a one-range-at-a-time read reads in full anyway).
    A range with more is then read on in order until `limit + 1` markers are in hand, or
    `MARKER_READS` calls are made. A dense view can so read one page more per range than
    strictly needed, within its bound (`markers_bound`).
    """
    # More ranges than calls (a budget above MARKER_READS): those past it stay unread.
    first, beyond = conditions[:MARKER_READS], conditions[MARKER_READS:]
    firsts = await _all(
        [store.query(condition, forward=True, limit=limit + 1) for condition in first]
    )
    found: list[Item] = []
    calls = len(first)
    unread = False  # a range left unread when the calls ran out
    for condition, page in zip(first, firsts, strict=True):
        found.extend(m for m in page.items if viewport.contains(m["lat"], m["lon"]))
        start = page.last_key
        while start is not None and len(found) <= limit:
            if calls == MARKER_READS:
                unread = True
                break
            page = await store.query(
                condition, forward=True, limit=limit + 1 - len(found), start_key=start
            )
            calls += 1
            found.extend(m for m in page.items if viewport.contains(m["lat"], m["lon"]))
            start = page.last_key
        if len(found) > limit or unread:
            break
    else:
        unread = bool(beyond)
    markers = [Marker.from_item(item) for item in found[:limit]]
    return MarkerSearch(markers, truncated=len(found) > limit or unread)


async def _all(reads: Sequence[Coroutine[Any, Any, T]]) -> list[T]:
    """Every read's result; on the first failure the others are cancelled, so no capacity
    goes to an answer that is already an error."""
    tasks = [asyncio.ensure_future(read) for read in reads]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        raise


def markers_bound(limit: int) -> tuple[int, int]:
    """The most DynamoDB calls and items a search for `limit` markers can take."""
    return MARKER_READS * query_calls(limit + 1, MARKER_BYTES), MARKER_READS * (limit + 1)


def heatmap_bound(viewport: Viewport, precision: int | None) -> tuple[int, int, int]:
    """The most DynamoDB calls and items `heatmap` can take (every key its ranges can
    hold), and the most cells it can answer with (every cell meeting the view)."""
    length = map_keys.checked_precision(viewport, precision)
    spans = [query.span for query in map_keys.heatmap_queries(viewport, length)]
    cells = sum(cell_count(box, length) for box in viewport.boxes())
    return sum(query_calls(span, CELL_BYTES) for span in spans), sum(spans), cells


async def heatmap(store: Store, viewport: Viewport, precision: int | None) -> Heatmap:
    """Exact marker counts of the cells of one length that meet the view and hold markers."""
    length = map_keys.checked_precision(viewport, precision)
    queries = map_keys.heatmap_queries(viewport, length)
    results = await _all([store.query(q.condition, forward=True) for q in queries])
    cells = [
        Cell(geohash, item["count"])
        for query, result in zip(queries, results, strict=True)
        for item in result.items
        if item.get("count", 0) > 0 and query.wants(geohash := map_keys.cell_of(item))
    ]
    return Heatmap(length, sorted(cells, key=lambda cell: cell.geohash))
