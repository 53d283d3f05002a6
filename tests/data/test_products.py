"""Products (`data/products.py`) called straight against DynamoDB Local."""

from __future__ import annotations

from typing import Any

import pytest

from errors.vocabulary import BadUserInput, Conflict
from keys.codecs import format_timestamp
from store.client import Store
from store.loaders import ItemLoader
from store.requests import WRITE_TOKEN
from tests import demo_comments as data
from tests.data.patterns_helpers import within_declared
from tests.table import scan_all


async def test_a_product_is_one_item_read_back_as_its_record(store: Store, client: Any) -> None:
    made, spent = await within_declared(store, data.create_product, "p1", "Lamp")
    assert spent.requests == 1
    [stored] = await scan_all(client, store.table)
    assert stored == {
        "PK": "PRODUCT#p1",
        "SK": "PRODUCT#p1",
        "type": "PRODUCT",
        "id": "p1",
        "name": "Lamp",
        "createdAt": format_timestamp(made.created_at),
        WRITE_TOKEN: stored[WRITE_TOKEN],
    }
    assert data.Product.from_item(stored) == made
    with pytest.raises(Conflict, match="product 'p1' already exists"):
        await data.create_product(store, "p1", "Other lamp")

    items = ItemLoader(store)
    assert await data.load_product(items, "p1") == made
    assert await data.load_product(items, "p2") is None
    with pytest.raises(BadUserInput):  # refused before any key is built
        await data.load_product(items, "p#1")
