"""A lost race on `setOrderStatus` is CONFLICT and changes nothing (deterministic)."""

from __future__ import annotations

from typing import Any

import pytest

from data import orders as data
from store.client import Store
from store.errors import Conflict
from store.loaders import ItemLoader
from store.requests import Item, Key
from tests.table import scan_all


async def test_a_move_based_on_a_stale_read_is_conflict(
    client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(client, table)
    await data.create_customer(store, "alice", "Alice", "a@x.io")
    placed = await data.place_order(store, "alice", [data.OrderLine("A", 1, 1)], None)
    order_id = placed.id

    # Another request ships the order right after this one has read it as PLACED.
    read = Store.get
    raced: list[bool] = []

    async def read_then_lose_the_race(
        self: Store, key: Key, *, consistent: bool = False
    ) -> Item | None:
        item = await read(self, key, consistent=consistent)
        if not raced:
            raced.append(True)
            other = Store(client, table)
            await data.set_order_status(
                other, ItemLoader(other), order_id, data.OrderStatus.SHIPPED
            )
        return item

    monkeypatch.setattr(Store, "get", read_then_lose_the_race)
    with pytest.raises(Conflict):
        await data.set_order_status(store, ItemLoader(store), order_id, data.OrderStatus.CANCELLED)
    monkeypatch.undo()
    items = await scan_all(client, table)
    assert [i["status"] for i in items if i.get("type") == "ORDER"] == ["SHIPPED"]
