"""An entity kept by place, changed (`model.Update` of an entity with `Places`,
docs/model.md#places):
its own item and its place item written anew in one transaction; a new position moves the
place item and the cell counts — out of the cells it leaves, into those it enters, the
cells both positions share left alone — in the same transaction, so that the counts stay
exact whatever fails or races.

The own item carries the engine's `version`, which each change adds one to and which the
transaction holds the item to: a change that raced another is read again and made again on
what it finds, so a move is always decided on the stored position, never on a stale one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data.callers import AUTHOR_KEY, Caller, wrote
from data.clock import now
from data.copies.writes import VERSION, check_moves, named_key, not_theirs
from data.entities import Record, described, emptied, record, stored
from data.places.items import place_item
from data.writes.keeping import Change
from data.writes.key_changes import index_changes
from errors.vocabulary import Conflict
from keys import map as map_keys
from keys.codecs import format_timestamp, parse_timestamp
from model import Entity
from store.client import TRANSACT_CALLS, Store
from store.errors import TransactionCanceled
from store.loaders import ItemLoader
from store.requests import Item, Key, counter_update, expecting, transaction_delete, transaction_put

ATTEMPTS = 3
# Each attempt reads the item, then sends its transaction.
CHANGE_CALLS = ATTEMPTS * (1 + TRANSACT_CALLS)
CHANGE_READS = ATTEMPTS
# The own item, the place item out and in, and a cell count out and in per length.
MOST_ACTIONS = 3 + 2 * len(map_keys.CELL_LENGTHS)


async def update(store: Store, items: ItemLoader, entity: Entity, change: Change) -> Record:
    """Change the checked values of the entity `change` names, moving its place when its
    position changes; an unchanged entity is not written."""
    arguments, values, caller = change.arguments, change.values, change.caller
    writer_only, transitions = change.writer_only, change.transitions
    key, missing = named_key(entity, arguments)
    if writer_only:
        caller.restriction(f"sign in to change a {entity.noun}")
    for _ in range(ATTEMPTS):
        current = await store.get(key, consistent=True)
        if current is None:
            raise missing
        if writer_only and not wrote(current, caller):
            raise not_theirs(entity, arguments)
        check_moves(entity, arguments, transitions, values, current)
        was = record(entity, current)
        if all(was[name] == value for name, value in values.items()):
            return was
        new = changed_item(entity, current, values)
        writes = actions(store.table, entity, current, new, caller, writer_only)
        try:
            await store.transact(writes)
        except TransactionCanceled as exc:
            if not exc.failed(0):
                raise exc.as_error(f"the {entity.noun} could not be changed; try again") from exc
            found = exc.items[0]
            if found is None:
                raise missing from None
            if writer_only and not wrote(found, caller):
                raise not_theirs(entity, arguments) from None
            continue  # changed meanwhile: read again, and decide on what it is now
        items.refresh(key, new)
        return record(entity, new)
    raise Conflict(f"{described(entity, arguments)} is being changed by other requests; try again")


def changed_item(entity: Entity, current: Item, values: Mapping[str, Any]) -> Item:
    """The own item holding `values`: its stamps, keys and geohash rendered anew."""
    lat, lon, geohash = entity.position
    changed: dict[str, Any] = dict(values)
    merged = {**record(entity, current), **changed}
    if lat in values or lon in values:
        changed[geohash] = map_keys.place_geohash(merged[lat], merged[lon])
    for stamp in entity.write_stamps:
        earlier = current.get(entity.stored_name(stamp))
        # Never back in time, whatever this clock says.
        changed[stamp] = now() if earlier is None else max(now(), parse_timestamp(earlier))
    merged.update(changed)
    keys, removed = index_changes(entity, merged, changed)
    new = {**current, **stored(entity, changed), **keys}
    for stamp in entity.write_stamps:
        new[entity.stored_name(stamp)] = format_timestamp(changed[stamp])
    for name in (*removed, *emptied(entity, changed)):
        new.pop(name, None)
    new[VERSION] = int(current.get(VERSION, 0)) + 1
    return new


def actions(
    table: str, entity: Entity, current: Item, new: Item, caller: Caller, writer_only: bool
) -> list[dict[str, Any]]:
    """The own item at the version read (and, for a writer's rule, while the caller is its
    author); its place item anew; and for a move, the place item out of the old position
    and the counts of the cells it leaves and enters."""
    expected: dict[str, Any] = {}
    if VERSION in current:
        expected[VERSION] = current[VERSION]
    restriction = caller.restriction() if writer_only else None
    if restriction is not None:
        expected[AUTHOR_KEY] = restriction
    absent = () if VERSION in current else (VERSION,)
    own = expecting(transaction_put(table, new), expected, absent=absent, old_on_failure=True)
    _, _, geohash = entity.position
    old, moved = current[geohash], new[geohash]
    place = place_item(entity, new)
    if old == moved:
        return [own, transaction_put(table, place)]
    places = entity.places
    assert places is not None  # an entity kept by place
    before = place_item(entity, current)
    left = [length for length in map_keys.CELL_LENGTHS if old[:length] != moved[:length]]
    return [
        own,
        transaction_delete(table, {n: before[n] for n in places.table.attributes}),
        transaction_put(table, place),
        *(cell(table, map_keys.cell_key(places, old[:length]), -1) for length in left),
        *(cell(table, map_keys.cell_key(places, moved[:length]), +1) for length in left),
    ]


def cell(table: str, key: Key, delta: int) -> dict[str, Any]:
    return counter_update(table, key, "count", delta)
