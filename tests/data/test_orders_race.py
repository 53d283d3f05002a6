"""A lost race on `setOrderStatus` is CONFLICT and changes nothing (deterministic)."""

from __future__ import annotations

from typing import Any

import pytest

from errors.vocabulary import Conflict
from store.client import Store
from store.loaders import ItemLoader
from tests import demo_orders as data
from tests.data.races import interleave
from tests.table import scan_all


async def test_a_move_based_on_a_stale_read_is_conflict(
    client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(client, table)
    await data.create_customer(store, "alice", "Alice", "a@x.io")
    placed = await data.place_order(store, "alice", [data.OrderLine("A", 1, 1)], None)
    order_id = placed.id

    async def ship(other: Store, items: ItemLoader) -> None:
        await data.set_order_status(other, items, order_id, data.OrderStatus.SHIPPED)

    # Another request ships the order right after this one has read it as PLACED.
    interleave(monkeypatch, client, table, ship)
    with pytest.raises(Conflict):
        await data.set_order_status(store, ItemLoader(store), order_id, data.OrderStatus.CANCELLED)
    monkeypatch.undo()
    items = await scan_all(client, table)
    assert [i["status"] for i in items if i.get("type") == "ORDER"] == ["SHIPPED"]
