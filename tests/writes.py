"""Writes as the tests make them through `data.writes`, the way a declared pattern's
resolver makes them (`resolvers/derived_writes.py`), for the areas and the tests that call
the engine directly."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data.callers import Caller
from data.entities import Record
from data.writes import entities as entity_writes
from model import Update
from store.client import Store
from store.loaders import ItemLoader

# A key's values, or changes to make: attribute name to value.
Values = Mapping[str, Any]


async def moved(
    store: Store,
    items: ItemLoader,
    update: Update,
    arguments: Values,
    changes: Values,
    *,
    caller: Caller,
    writer_only: bool,
) -> Record:
    """`update`'s write of `changes` to the entity `arguments` name, its choices moving
    only as the pattern's `moves` allow: one call for every test of a move."""
    return await entity_writes.update(
        store,
        items,
        update.entity,
        arguments,
        changes,
        caller=caller,
        writer_only=writer_only,
        transitions=update.moves,
    )
