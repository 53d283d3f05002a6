"""What removing one stored entity writes, by how it is kept: its item; its copies in every
list (`model.Copies`); its place and the cell counts it added to (`model.Places`). Each is
a TransactWriteItems action; the own item's is held to what was read (its version, its
position), so an entity changed meanwhile cancels the transaction rather than leaving a
copy, a place or a count behind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data.copies.writes import VERSION, copies
from data.entities import record
from data.places.items import count_updates, place_item
from keys.map import CELL_LENGTHS
from model import Entity
from model.kinds import copies_made
from store.requests import Item, Key, expecting, primary_key, transaction_delete

Action = dict[str, Any]


def own_key(entity: Entity, item: Item) -> Key:
    """The table key of the entity's own item, from its item or from a copy of it (which
    holds every value; its own key is a copy's)."""
    if entity.copies is not None and not entity.is_kind_of(item):
        return entity.primary_key(record(entity, item))
    return primary_key(item, entity.table)


def removal(
    table: str, entity: Entity, item: Item, held: Mapping[str, Any] | None = None
) -> list[Action]:
    """The actions removing the entity read as `item` (its own item or a copy), the own
    item's first: only while it is as read, and holds `held`."""
    expected = dict(held or {})
    absent: list[str] = []
    if entity.copies is not None:
        if VERSION in item:
            expected[VERSION] = item[VERSION]
        else:
            absent.append(VERSION)  # written before it kept copies
    if entity.places is not None:
        _, _, geohash = entity.position
        expected[geohash] = item[geohash]
    own = transaction_delete(table, own_key(entity, item), must_exist=True)
    if expected or absent:
        own = expecting(own, expected, absent=absent, old_on_failure=True)
    actions = [own]
    if entity.copies is not None:
        actions += [
            transaction_delete(table, primary_key(copy, entity.table))
            for copy in copies(entity, item)
        ]
    if entity.places is not None:
        place = place_item(entity, item)
        _, _, geohash = entity.position
        actions.append(transaction_delete(table, primary_key(place, entity.table)))
        actions += count_updates(entity, table, item[geohash], -1)
    return actions


def removal_size(entity: Entity) -> int:
    """How many actions `removal` makes for one of the entity's."""
    if entity.copies is not None:
        return 1 + copies_made(entity)
    if entity.places is not None:
        return 2 + len(CELL_LENGTHS)
    return 1
