"""bench.map on DynamoDB Local: load the items, then read them the ways being compared.

Every read goes through `store.client.Store`, so requests, items scanned and read units
are the gateway's own cost report (`Store.cost`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.map_views import marker_item
from data.map import MAX_LIMIT, Marker, add_marker, heatmap, search_markers
from keys import map as map_keys
from keys.codecs import format_timestamp
from keys.conditions import KeyCondition
from store.client import Store
from store.cost import Cost
from store.requests import Item, Key, to_attributes
from store.tables import create_table

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient
else:
    DynamoDBClient = Any

_BATCH = 25  # BatchWriteItem's most


async def load(
    client: DynamoDBClient, table: str, items: Sequence[Item], concurrency: int = 16
) -> dict[str, float]:
    """BatchWriteItem every item, retrying unprocessed ones."""
    started = time.monotonic()
    batches = [items[i : i + _BATCH] for i in range(0, len(items), _BATCH)]
    gate = asyncio.Semaphore(concurrency)
    calls = 0

    async def write(batch: Sequence[Item]) -> None:
        nonlocal calls
        pending: Any = {table: [{"PutRequest": {"Item": to_attributes(i)}} for i in batch]}
        async with gate:
            while pending:
                response = await client.batch_write_item(RequestItems=pending)
                calls += 1
                pending = response.get("UnprocessedItems") or None

    await asyncio.gather(*(write(b) for b in batches))
    return {"items": len(items), "requests": calls, "seconds": time.monotonic() - started}


@dataclass(frozen=True)
class Run:
    """One `markers` read of one view: what it cost and which markers it found."""

    requests: int
    scanned: int
    returned: int
    rcu: float
    ids: frozenset[str]

    @classmethod
    def of(cls, cost: Cost, markers: Sequence[Marker]) -> Run:
        return cls(
            cost.requests,
            cost.items_scanned,
            len(markers),
            cost.read_capacity_units,
            frozenset(m.id for m in markers),
        )

    @property
    def ratio(self) -> float | None:
        """Items read per marker returned."""
        return self.scanned / self.returned if self.returned else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "itemsScanned": self.scanned,
            "returned": self.returned,
            "ratio": self.ratio,
            "rcu": round(self.rcu, 4),
        }


async def served(client: DynamoDBClient, table: str, viewport: map_keys.Viewport) -> Run:
    """The gateway's own `search_markers`, limit 1000."""
    store = Store(client, table)
    found = await search_markers(store, viewport, limit=MAX_LIMIT)
    return Run.of(store.cost, found.markers)


async def ranged(
    client: DynamoDBClient,
    table: str,
    viewport: map_keys.Viewport,
    conditions: Sequence[KeyCondition],
    limit: int = MAX_LIMIT,
) -> Run:
    """The ranges of another rule read one after another to the end, or until `limit + 1`
    markers in view (`read_markers` stops at the served rule's calls, fewer than a rule of
    32 ranges needs)."""
    store = Store(client, table)
    found: list[Item] = []
    for condition in conditions:
        start: Key | None = None
        while len(found) <= limit:
            page = await store.query(
                condition, forward=True, limit=limit + 1 - len(found), start_key=start
            )
            found.extend(m for m in page.items if viewport.contains(m["lat"], m["lon"]))
            start = page.last_key
            if start is None:
                break
    return Run.of(store.cost, [Marker.from_item(item) for item in found[:limit]])


@dataclass(frozen=True)
class HeatRun:
    precision: int
    partitions: int
    requests: int
    scanned: int
    cells: int
    markers: int

    def as_dict(self) -> dict[str, int]:
        return {
            "precision": self.precision,
            "partitions": self.partitions,
            "requests": self.requests,
            "itemsScanned": self.scanned,
            "cells": self.cells,
            "markers": self.markers,
        }


async def heat(client: DynamoDBClient, table: str, viewport: map_keys.Viewport) -> HeatRun:
    """The gateway's `heatmap` at the default precision."""
    store = Store(client, table)
    result = await heatmap(store, viewport, None)
    return HeatRun(
        result.precision,
        map_keys.partitions_needed(viewport, result.precision),
        store.cost.requests,
        store.cost.items_scanned,
        len(result.cells),
        sum(cell.count for cell in result.cells),
    )


async def shape_check(client: DynamoDBClient, table: str) -> dict[str, Any]:
    """Does bench write what add_marker writes? One real add_marker in a scratch table.

    The place item add_marker stores must equal the bench's `marker_item` for the same
    point, label, id and time, and be the marker add_marker returns.
    """
    await create_table(client, table)
    store = Store(client, table)
    lat, lon, label = 48.8566, 2.3522, "shape check"
    real = await add_marker(store, lat, lon, label)
    ours = marker_item(lat, lon, label, real.id, format_timestamp(real.created_at))
    stored = await store.get(map_keys.marker_place(real.geohash, real.id))
    same = stored == ours and Marker.from_item(ours) == real
    if not same:
        raise AssertionError(f"bench marker item {ours} differs from add_marker's {stored}")
    return {"same_as_add_marker": same, "attributes": sorted(ours)}
