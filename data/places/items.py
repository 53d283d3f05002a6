"""An entity with a position, kept by place and counted by cell (`model.Places`,
docs/model.md#places):
its writes, the search of a viewport and the heatmap.

An entity is written with its own item (found by key), its place item (what searches read)
and the eight cell counts (lengths 1 to 8) it adds to, in one TransactWriteItems (10 actions
of the 100 allowed), so counts are exact even after a failed write; a removal takes all of
it back the same way. Both items record the author; the delete of the own item holds a
caller to a writer's rule.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from data import validation
from data.callers import AUTHOR_KEY, wrote
from data.changes import Followed
from data.copies.writes import not_theirs
from data.entities import Record, described, key_of, most_bytes, record
from data.entity_lists import follower
from data.writes.keeping import Removing
from errors.vocabulary import BadUserInput, Conflict, DynagateError, NotFound
from keys import map as map_keys
from keys.conditions import KeyCondition
from keys.geohash import cell_count
from keys.map import CELL_LENGTHS as CELL_LENGTHS
from keys.map import Places
from keys.map import Viewport as Viewport
from keys.map import precision_choices as precision_choices
from model import Entity, Near
from store.client import TRANSACT_CALLS, Store
from store.errors import TransactionCanceled
from store.loaders import ItemLoader
from store.pagination import query_calls
from store.requests import Item, counter_update, expecting, transaction_delete, transaction_put

T = TypeVar("T")
MAX_LIMIT = 1_000
DEFAULT_LIMIT = 100
# A view's key ranges can also hold entities outside it. A search makes at most this many
# Query calls (each reads at most `limit + 1` items), then answers `truncated`: more may
# exist. Views of real maps need one call per range, at most eight ranges.
SEARCH_READS = 2 * map_keys.PLACE_QUERY_BUDGET
# Attribute names, the type and the two keys of a place item (`<places>#<3 chars>`,
# `<9 chars>#<id>`): well under this.
PLACE_OVERHEAD_BYTES = 1024
# The largest cell count item.
CELL_BYTES = 256
# The read that finds the stored item (and so its place), then the transaction.
REMOVE_CALLS = 1 + TRANSACT_CALLS


@dataclass(frozen=True)
class Search:
    found: list[Record]
    truncated: bool


@dataclass(frozen=True)
class Cells:
    """The cells of one length that meet a view and hold entities, with their counts."""

    precision: int
    counts: list[tuple[str, int]]


def geohash_of(entity: Entity, values: dict[str, Any]) -> str:
    """The geohash of the position `values` hold (checked: BAD_USER_INPUT naming the axis)."""
    lat, lon, _ = entity.position
    return map_keys.place_geohash(values[lat], values[lon])


def place_item(entity: Entity, item: Item) -> Item:
    """The place item of the entity's own `item`: its attributes where searches read them,
    under the entity's `type` (the own item is found by key alone)."""
    places, (_, _, geohash) = _places(entity), entity.position
    own = set(entity.templates)
    fields = {name: value for name, value in item.items() if name not in own}
    ids = [str(item[name]) for name in entity.key_attributes]
    place = map_keys.place_key(places, item[geohash], "#".join(ids))
    return {**place, **fields, "type": entity.label}


def count_updates(entity: Entity, table: str, geohash: str, delta: int) -> list[dict[str, Any]]:
    places = _places(entity)
    return [counter_update(table, k, "count", delta) for k in map_keys.cell_keys(places, geohash)]


async def create(store: Store, entity: Entity, item: Item, done: str) -> None:
    """Write the new entity's own item, its place and its counts at once."""
    _, _, geohash = entity.position
    actions = [
        transaction_put(store.table, item, new_on=store.layout.table),
        transaction_put(store.table, place_item(entity, item)),
        *count_updates(entity, store.table, item[geohash], +1),
    ]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        taken = Conflict(f"{described(entity, record(entity, item))} already exists")
        retry = f"the {entity.noun} could not be {done}; try again"
        raise exc.explained({0: taken}, retry) from exc


async def delete(store: Store, items: ItemLoader, entity: Entity, removing: Removing) -> bool:
    """Remove the entity `removing` names, its place and its counts at once."""
    arguments, caller, writer_only = removing.arguments, removing.caller, removing.writer_only
    key = key_of(entity, arguments)
    missing = f"{described(entity, arguments)} does not exist"
    restriction = None
    if writer_only:
        restriction = caller.restriction(f"sign in to remove a {entity.noun}")
    found = None if key is None else await store.get(key, consistent=True)
    if key is None or found is None:
        raise NotFound(missing)
    # Refused from the read already, which saves a write its condition would refuse.
    if writer_only and not wrote(found, caller):
        raise not_theirs(entity, arguments)
    _, _, geohash = entity.position
    # Where it was read: a delete racing a remove and an add under the same id (an id the
    # client chose) takes back nothing that was not added.
    expected = {geohash: found[geohash]}
    if restriction is not None:
        expected[AUTHOR_KEY] = restriction
    own = transaction_delete(store.table, key, must_exist=True)
    own = expecting(own, expected, old_on_failure=True)
    place = place_item(entity, found)
    actions = [
        own,
        transaction_delete(store.table, {"PK": place["PK"], "SK": place["SK"]}),
        *count_updates(entity, store.table, found[geohash], -1),
    ]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        stored = exc.items[0]
        refusal: DynagateError = NotFound(missing)
        if stored is not None and not wrote(stored, caller):
            refusal = not_theirs(entity, arguments)
        elif stored is not None:
            refusal = Conflict(f"{described(entity, arguments)} was changed meanwhile; try again")
        retry = f"the {entity.noun} could not be removed; try again"
        raise exc.explained({0: refusal}, retry) from exc
    items.forget(key)
    return True


def checked_limit(limit: int | None) -> int:
    """`limit: null` is the default; 0 is out of range, not "the default"."""
    chosen = DEFAULT_LIMIT if limit is None else limit
    return validation.number(chosen, "limit", 1, MAX_LIMIT)


async def search(
    store: Store, entity: Entity, viewport: Viewport, limit: int | None, counts: str | None = None
) -> Search:
    """The entities inside the view (edges included): up to `limit`, and whether there are
    more; a view too wide is pointed to the field `counts` of their cells, if any."""
    most = checked_limit(limit)
    advice = "zoom in" if counts is None else f"zoom in, or ask `{counts}` for {entity.noun} counts"
    map_keys.checked_place_view(viewport, advice)
    conditions = map_keys.place_queries(_places(entity), viewport)
    return await read_places(store, entity, viewport, conditions, most)


async def read_places(
    store: Store,
    entity: Entity,
    viewport: Viewport,
    conditions: Sequence[KeyCondition],
    limit: int,
) -> Search:
    """Entities of `conditions` in the view, in key order: up to `limit`, and whether more
    may exist.

    The first page of every range is read at once (a view's ranges are few, and most views
    hold fewer than `limit` entities, which a one-range-at-a-time read reads in full
    anyway). A range with more is then read on in order until `limit + 1` are in hand, or
    `SEARCH_READS` calls are made. A dense view can so read one page more per range than
    strictly needed, within its bound (`search_bound`).
    """
    lat, lon, _ = entity.position

    def inside(page: Sequence[Item]) -> list[Item]:
        return [m for m in page if viewport.contains(float(m[lat]), float(m[lon]))]

    # More ranges than calls (a budget above SEARCH_READS): those past it stay unread.
    first, beyond = conditions[:SEARCH_READS], conditions[SEARCH_READS:]
    firsts = await _all(
        [store.query(condition, forward=True, limit=limit + 1) for condition in first]
    )
    found: list[Item] = []
    calls = len(first)
    unread = False  # a range left unread when the calls ran out
    for condition, page in zip(first, firsts, strict=True):
        found.extend(inside(page.items))
        start = page.last_key
        while start is not None and len(found) <= limit:
            if calls == SEARCH_READS:
                unread = True
                break
            page = await store.query(
                condition, forward=True, limit=limit + 1 - len(found), start_key=start
            )
            calls += 1
            found.extend(inside(page.items))
            start = page.last_key
        if len(found) > limit or unread:
            break
    else:
        unread = bool(beyond)
    records = [record(entity, item) for item in found[:limit]]
    return Search(records, truncated=len(found) > limit or unread)


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


def search_bound(entity: Entity, limit: int) -> tuple[int, int]:
    """The most DynamoDB calls and items a search for `limit` entities can take."""
    calls = query_calls(limit + 1, place_bytes(entity))
    return SEARCH_READS * calls, SEARCH_READS * (limit + 1)


def place_bytes(entity: Entity) -> int:
    """The most bytes a place item takes: its values, and its names and two short keys (a
    place is in no index: far less than the overhead of an item in several)."""
    values = most_bytes(entity) - validation.ITEM_OVERHEAD_BYTES
    return -(-(PLACE_OVERHEAD_BYTES + values) // 1024) * 1024  # whole KiB


def heatmap_bound(
    places: Places, viewport: Viewport, precision: int | None
) -> tuple[int, int, int]:
    """The most DynamoDB calls and items a heatmap can take (every key its ranges can
    hold), and the most cells it can answer with (every cell meeting the view)."""
    length = map_keys.checked_precision(viewport, precision)
    spans = [query.span for query in map_keys.heatmap_queries(places, viewport, length)]
    cells = sum(cell_count(box, length) for box in viewport.boxes())
    return sum(query_calls(span, CELL_BYTES) for span in spans), sum(spans), cells


async def heatmap(store: Store, places: Places, viewport: Viewport, precision: int | None) -> Cells:
    """Exact counts of the cells of one length that meet the view and hold entities."""
    length = map_keys.checked_precision(viewport, precision)
    queries = map_keys.heatmap_queries(places, viewport, length)
    results = await _all([store.query(q.condition, forward=True) for q in queries])
    cell_of = map_keys.cells_of(places)
    counts = [
        (geohash, int(item["count"]))
        for query, result in zip(queries, results, strict=True)
        for item in result.items
        if item.get("count", 0) > 0 and query.wants(geohash := cell_of(item))
    ]
    return Cells(length, sorted(counts))


def followed(pattern: Near) -> Followed:
    """How the change feed files changes of the entities `pattern` follows: all under one
    topic, matched by position."""
    return follower(pattern.entity, pattern.subscription or pattern.field, lambda _item: "")


def _places(entity: Entity) -> Places:
    if entity.places is None:
        raise BadUserInput(f"{entity.name} has no places")  # the model refuses it first
    return entity.places
