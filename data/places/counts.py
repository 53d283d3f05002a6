"""Counts of the cells of lengths 1 and 2 rebuilt from the counts of length 3
(docs/model.md#places):
for a table whose placed entities were written while only lengths 3 to 8 were counted.

Such a table lacks those counts, or holds only what entities added or removed since made
of them. Length 3's counts take in every entity, and a cell holds what its 32 children hold,
so each cell of length 2 is set to the sum of its children of length 3, then each of
length 1 to the sum of its (rebuilt) children of length 2. Each cell is one
TransactWriteItems: the Put of its count, with a ConditionCheck that each child still holds
the count read (or is still absent). An entity added or removed meanwhile changes a child
and the cell in one transaction, so one or the other comes first and no count is lost: the
rebuild then fails its check and reads the children again. Running it again changes
nothing; `dynagate seed` runs it, and `dynagate verify --repair` (docs/design.md).
"""

from __future__ import annotations

from typing import Any

from errors.vocabulary import Conflict
from keys import map as map_keys
from keys.conditions import KeyCondition
from keys.geohash import ALPHABET
from keys.map import Places
from store.client import Store
from store.errors import TransactionCanceled
from store.requests import condition_check, expecting, transaction_put

# Rebuilt in this order: each from the length below it.
REBUILT_LENGTHS = (2, 1)
# Reads and transactions for one cell whose children keep changing, before giving up.
ATTEMPTS = 5


async def rebuild_short_counts(store: Store, places: Places) -> int:
    """Set every count of lengths 2 then 1 that has entities or a count stored: how many."""
    rebuilt = 0
    for length in REBUILT_LENGTHS:
        children = await _counts(store, places, length + 1)
        stored = await _counts(store, places, length)
        for cell in sorted({child[:length] for child in children} | set(stored)):
            below = {child: n for child, n in children.items() if child.startswith(cell)}
            await _rebuild(store, places, cell, below)
            rebuilt += 1
    return rebuilt


async def short_count_differences(store: Store, places: Places) -> list[str]:
    """The cells of lengths 2 and 1 whose count is not the sum of their children's, each as
    `cell: stored N, children M` (an admin's check: it reads every count of those lengths)."""
    differences: list[str] = []
    for length in REBUILT_LENGTHS:
        children = await _counts(store, places, length + 1)
        stored = await _counts(store, places, length)
        for cell in sorted({child[:length] for child in children} | set(stored)):
            below = sum(n for child, n in children.items() if child.startswith(cell))
            if stored.get(cell, 0) != below:
                differences.append(f"{cell}: stored {stored.get(cell, 0)}, children {below}")
    return differences


async def _counts(store: Store, places: Places, length: int, prefix: str = "") -> dict[str, int]:
    """The stored count of every cell of `length` (starting with `prefix`)."""
    partition = map_keys.cell_partition(places, "0" * length)
    whole = KeyCondition(places.table, partition)
    condition = KeyCondition.prefix(places.table, partition, prefix) if prefix else whole
    found = await store.query(condition, forward=True)
    return {map_keys.cell_of(places, item): int(item.get("count", 0)) for item in found.items}


async def _rebuild(store: Store, places: Places, cell: str, children: dict[str, int]) -> None:
    for _ in range(ATTEMPTS):
        actions = [
            _holds(store.table, places, cell + char, children.get(cell + char)) for char in ALPHABET
        ]
        count = {**map_keys.cell_key(places, cell), "count": sum(children.values())}
        try:
            await store.transact([*actions, transaction_put(store.table, count)])
            return
        except TransactionCanceled as exc:
            if "ConditionalCheckFailed" not in exc.reasons:
                raise exc.as_error(
                    f"the count of cell {cell!r} could not be set; run again"
                ) from exc
        children = await _counts(store, places, len(cell) + 1, cell)
    raise Conflict(f"the count of cell {cell!r} kept changing; run again")


def _holds(table: str, places: Places, cell: str, count: int | None) -> dict[str, Any]:
    """That the count of `cell` is still `count` (None: still absent)."""
    key = map_keys.cell_key(places, cell)
    if count is None:
        return condition_check(table, key, exists=False)
    return expecting(condition_check(table, key, exists=True), {"count": count})
