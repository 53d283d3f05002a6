"""Per-request loaders that coalesce point lookups.

Within one tick, keys that share a partition become one Query over the span of their sort
keys; the rest go out together as BatchGetItem calls of at most 100 keys.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence

from aiodataloader import DataLoader

from keys.conditions import KeyCondition
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
        by_partition: dict[str, list[str]] = defaultdict(list)
        for partition, sort in keys:
            by_partition[partition].append(sort)
        shared = {p: s for p, s in by_partition.items() if len(s) > 1}
        single = [(p, s[0]) for p, s in by_partition.items() if len(s) == 1]
        reads = [self._span(p, sorts) for p, sorts in shared.items()]
        if single:
            reads.append(
                self.store.get_many(
                    [{TABLE.partition_key: p, TABLE.sort_key: s} for p, s in single]
                )
            )
        found: dict[ItemKey, Item] = {}
        for items in await asyncio.gather(*reads):
            for item in items:
                found[(item[TABLE.partition_key], item[TABLE.sort_key])] = item
        return [found.get(k) for k in keys]

    async def _span(self, partition: str, sorts: list[str]) -> list[Item]:
        wanted = set(sorts)
        condition = KeyCondition(TABLE, partition, min(sorts), max(sorts))
        result = await self.store.query(condition, forward=True)
        return [i for i in result.items if i[TABLE.sort_key] in wanted]
