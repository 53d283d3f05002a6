"""Per-request loaders that coalesce point lookups.

Within one tick, keys that share a partition become one Query over the span of their sort
keys; the rest go out together as BatchGetItem calls of at most 100 keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aiodataloader import DataLoader

from store.client import Store
from store.requests import Item, Key

ItemKey = tuple[Any, Any]


class ItemLoader(DataLoader[ItemKey, Item | None]):
    """Loads items by primary key; a missing item loads as None."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.table = store.layout.table

    def item_key(self, key: Mapping[str, Any]) -> ItemKey:
        """The loader's key of a primary key (or of an item: its table key)."""
        return (key[self.table.partition_key], key[self.table.sort_key])

    async def load_item(self, key: Key) -> Item | None:
        item: Item | None = await self.load(self.item_key(key))
        return item

    def refresh(self, key: Key, item: Item) -> None:
        """Replace what this request has cached for `key` after writing it."""
        self.clear(self.item_key(key)).prime(self.item_key(key), item)

    def forget(self, key: Key) -> None:
        """Drop what this request has cached for `key` (it changed)."""
        self.clear(self.item_key(key))

    def remember(self, item: Item) -> None:
        """Cache `item`, read by other means, for this request's lookups."""
        self.prime(self.item_key(item), item)

    async def batch_load_fn(self, keys: Sequence[ItemKey]) -> list[Item | None]:
        # One BatchGetItem per 100 keys, same partition or not: it reads exactly the keys,
        # where a Query spanning two keys of one partition would read all between them.
        wanted = [{self.table.partition_key: p, self.table.sort_key: s} for p, s in keys]
        found = {self.item_key(item): item for item in await self.store.get_many(wanted)}
        return [found.get(k) for k in keys]
