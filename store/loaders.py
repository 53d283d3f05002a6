"""Per-request loaders that coalesce point lookups.

Within one tick, keys that share a partition become one Query over the span of their sort
keys; the rest go out together as BatchGetItem calls of at most 100 keys.
"""

from __future__ import annotations

from collections.abc import Sequence

from aiodataloader import DataLoader

from keys.table import TABLE
from store.client import Store
from store.requests import Item, Key

ItemKey = tuple[str, str]


def item_key(key: Key) -> ItemKey:
    return (key[TABLE.partition_key], key[TABLE.sort_key])


class ItemLoader(DataLoader[ItemKey, Item | None]):
    """Loads items by primary key; a missing item loads as None."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store

    async def load_item(self, key: Key) -> Item | None:
        item: Item | None = await self.load(item_key(key))
        return item

    def refresh(self, key: Key, item: Item) -> None:
        """Replace what this request has cached for `key` after writing it."""
        self.clear(item_key(key)).prime(item_key(key), item)

    async def batch_load_fn(self, keys: Sequence[ItemKey]) -> list[Item | None]:
        # One BatchGetItem per 100 keys, same partition or not: it reads exactly the keys,
        # where a Query spanning two keys of one partition would read all between them.
        wanted = [{TABLE.partition_key: p, TABLE.sort_key: s} for p, s in keys]
        found = {item_key(item): item for item in await self.store.get_many(wanted)}
        return [found.get(k) for k in keys]
