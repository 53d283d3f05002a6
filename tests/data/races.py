"""Lost races made deterministic: another request's write lands right after a read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from store.client import QueryResult, Store
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


def interleave_query(
    monkeypatch: pytest.MonkeyPatch, client: Any, table: str, other: Other, *, nth: int = 1
) -> None:
    """Run `other` once, right after the `nth` Query from now (a read whose result a write
    then holds to its condition)."""
    query = Store.query
    seen: list[bool] = []

    async def query_then_lose_the_race(self: Store, *args: Any, **kwargs: Any) -> QueryResult:
        found = await query(self, *args, **kwargs)
        seen.append(True)
        if len(seen) == nth:
            store = Store(client, table)
            await other(store, ItemLoader(store))
        return found

    monkeypatch.setattr(Store, "query", query_then_lose_the_race)
