"""ItemLoader coalescing, measured by the requests the store reports in its cost."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

from store.client import Store
from store.loaders import ItemLoader
from store.requests import Item, Key, to_attributes

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

ITEMS: list[Item] = [
    {"PK": "ORG#a", "SK": "MEMBER#1", "v": 1},
    {"PK": "ORG#a", "SK": "MEMBER#2", "v": 2},
    # Between the keys asked for in ORG#a: read by the span Query, never returned.
    {"PK": "ORG#a", "SK": "MEMBER#2b", "v": 99},
    {"PK": "ORG#a", "SK": "MEMBER#3", "v": 3},
    {"PK": "ORG#b", "SK": "ORG#b", "v": 4},
    {"PK": "ORG#c", "SK": "ORG#c", "v": 5},
    {"PK": "ORG#d", "SK": "ORG#d", "v": 6},
]


def key(pk: str, sk: str) -> Key:
    return {"PK": pk, "SK": sk}


async def store_with_items(client: DynamoDBClient, table: str) -> Store:
    await client.batch_write_item(
        RequestItems={table: [{"PutRequest": {"Item": to_attributes(i)}} for i in ITEMS]}
    )
    return Store(client, table)


def values(items: Sequence[Item | None]) -> list[Any]:
    return [None if i is None else i["v"] for i in items]


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        pytest.param(
            [
                key("ORG#b", "ORG#b"),
                key("ORG#a", "MEMBER#3"),
                key("ORG#a", "MEMBER#1"),
                key("ORG#c", "ORG#c"),
                key("ORG#a", "MEMBER#2"),
            ],
            [4, 3, 1, 5, 2],
            id="across partitions",
        ),
        pytest.param(
            [
                key("ORG#a", "MEMBER#0"),
                key("ORG#a", "MEMBER#2"),
                key("ORG#a", "MEMBER#4"),
                key("ORG#x", "ORG#x"),
                key("ORG#d", "ORG#d"),
                key("ORG#y", "ORG#y"),
            ],
            [None, 2, None, None, 6, None],
            id="missing items as None in their place",
        ),
        pytest.param(
            [key(f"ORG#{p}", f"ORG#{p}") for p in "bcdz"], [4, 5, 6, None], id="point lookups"
        ),
    ],
)
async def test_lookups_in_one_tick_are_one_batch(
    client: DynamoDBClient, table: str, keys: list[Key], expected: list[int | None]
) -> None:
    store = await store_with_items(client, table)
    loader = ItemLoader(store)
    found = await asyncio.gather(*(loader.load_item(k) for k in keys))
    assert values(found) == expected
    assert store.cost.requests == 1  # one BatchGetItem, ORG#a's keys included
    # Exactly the keys: a Query spanning MEMBER#1..3 would have read MEMBER#2b too.
    stored = len(expected) - expected.count(None)
    assert store.cost.items_scanned == store.cost.items_returned == stored


async def test_repeated_keys_are_loaded_once(client: DynamoDBClient, table: str) -> None:
    store = await store_with_items(client, table)
    loader = ItemLoader(store)
    b, c = key("ORG#b", "ORG#b"), key("ORG#c", "ORG#c")
    # The same key twice in one tick is one key, not a partition with two sort keys.
    found = await asyncio.gather(loader.load_item(b), loader.load_item(b), loader.load_item(c))
    assert values(found) == [4, 4, 5]
    assert store.cost.requests == 1
    assert store.cost.items_returned == 2
    # Later ticks are answered from the loader's cache, misses included.
    again = await asyncio.gather(loader.load_item(c), loader.load_item(b))
    assert values(again) == [5, 4]
    assert await loader.load_item(key("ORG#x", "ORG#x")) is None
    assert store.cost.requests == 2
    assert await loader.load_item(key("ORG#x", "ORG#x")) is None
    assert store.cost.requests == 2


async def test_each_tick_is_its_own_round(client: DynamoDBClient, table: str) -> None:
    store = await store_with_items(client, table)
    loader = ItemLoader(store)
    assert (await loader.load_item(key("ORG#b", "ORG#b"))) is not None
    assert (await loader.load_item(key("ORG#c", "ORG#c"))) is not None
    assert store.cost.requests == 2


async def test_loaders_do_not_share_a_cache(client: DynamoDBClient, table: str) -> None:
    store = await store_with_items(client, table)
    b = key("ORG#b", "ORG#b")
    assert values([await ItemLoader(store).load_item(b)]) == [4]
    assert values([await ItemLoader(store).load_item(b)]) == [4]
    assert store.cost.requests == 2
