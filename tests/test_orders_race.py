"""A lost race on `setOrderStatus` is CONFLICT and changes nothing (deterministic)."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.data import orders as data
from gateway.errors import Conflict
from gateway.loaders import ItemLoader, item_key
from gateway.store import Store
from keys.orders import order_key
from tests.api import scan_all


async def test_a_move_based_on_a_stale_read_is_conflict(client: Any, table: str) -> None:
    store = Store(client, table)
    await data.create_customer(store, "alice", "Alice", "a@x.io")
    placed = await data.place_order(store, "alice", [data.OrderLine("A", 1, 1)], None)
    order_id = placed["id"]

    # Another request ships the order after this one read it as PLACED.
    stale = ItemLoader(store)
    stale.prime(item_key(order_key(order_id)), placed)
    await data.set_order_status(store, ItemLoader(store), order_id, "SHIPPED")
    before = await scan_all(client, table)

    with pytest.raises(Conflict):
        await data.set_order_status(store, stale, order_id, "CANCELLED")
    assert await scan_all(client, table) == before
