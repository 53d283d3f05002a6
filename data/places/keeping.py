"""An entity kept by place (`model.Places`, docs/model.md#places) as a kind of keeping
(`data/writes/keeping.py`): its own item, found by key, beside its place item, which
searches read, and the eight cell counts it adds to; written, moved and removed together
(`data/places/items.py`, `data/places/moves.py`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from data.entities import Record
from data.places import items as places
from data.places import moves
from data.writes.keeping import Action, Change, ReadFirst, Removing
from keys.map import CELL_LENGTHS
from model import Entity
from store.client import TRANSACT_CALLS, Store
from store.loaders import ItemLoader
from store.requests import Item, Key, expecting, primary_key, transaction_delete


class Placed(ReadFirst):
    """An entity kept by place."""

    answers_unchanged = False
    updates = (
        "TransactWriteItems (the item and its place; on a move the old place and the cell"
        " counts left and entered), again when raced"
    )
    deletes = "TransactWriteItems (the item, its place and the counts of its cells)"

    def derive(self, entity: Entity, values: dict[str, Any]) -> None:
        _, _, geohash = entity.position
        values[geohash] = places.geohash_of(entity, values)

    def written(self, entity: Entity, item: Item) -> tuple[Item, list[Item]]:
        # Listed from its place item, which carries the type: the own item does not.
        return item, []

    def create_calls(self) -> int:
        return TRANSACT_CALLS

    async def create(
        self, store: Store, entity: Entity, item: Item, beside: list[Item], done: str
    ) -> None:
        await places.create(store, entity, item, done)

    def update_calls(self, entity: Entity, changes: Iterable[str]) -> tuple[int, int]:
        return moves.CHANGE_CALLS, moves.CHANGE_READS

    async def update(
        self, store: Store, items: ItemLoader, entity: Entity, change: Change
    ) -> Record:
        return await moves.update(store, items, entity, change)

    def delete_calls(self, entity: Entity) -> tuple[int, int]:
        return places.REMOVE_CALLS, 1

    async def delete(
        self, store: Store, items: ItemLoader, entity: Entity, removing: Removing
    ) -> bool:
        return await places.delete(store, items, entity, removing)

    def own_key(self, entity: Entity, item: Item) -> Key:
        return primary_key(item, entity.table)

    def removal(
        self, table: str, entity: Entity, item: Item, held: Mapping[str, Any]
    ) -> list[Action]:
        _, _, geohash = entity.position
        own = transaction_delete(table, self.own_key(entity, item), must_exist=True)
        place = places.place_item(entity, item)
        return [
            expecting(own, {**held, geohash: item[geohash]}, old_on_failure=True),
            transaction_delete(table, primary_key(place, entity.table)),
            *places.count_updates(entity, table, item[geohash], -1),
        ]

    def removal_size(self, entity: Entity) -> int:
        return 2 + len(CELL_LENGTHS)
