"""Lost races made deterministic: another request's write lands right after a read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from store.client import Store
from store.loaders import ItemLoader
from store.requests import Item, Key

# `other(store, loader)`: the other request, with a store and a loader of its own.
Other = Callable[[Store, ItemLoader], Awaitable[Any]]


def interleave(monkeypatch: pytest.MonkeyPatch, client: Any, table: str, other: Other) -> None:
    """Run `other` once, right after the next consistent read of an item."""
    read = Store.get
    done: list[bool] = []

    async def read_then_lose_the_race(
        self: Store, key: Key, *, consistent: bool = False
    ) -> Item | None:
        item = await read(self, key, consistent=consistent)
        if consistent and not done:
            done.append(True)
            store = Store(client, table)
            await other(store, ItemLoader(store))
        return item

    monkeypatch.setattr(Store, "get", read_then_lose_the_race)
