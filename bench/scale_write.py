"""bench.scale's writing side: a client for bulk work, the BatchWriteItem loader, and the
check that the items `bench.scale_load` builds are the ones the gateway writes."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import aioboto3
from aiobotocore.config import AioConfig

from data.callers import OPEN, Caller
from data.clock import now
from data.entities import stored as stored_values
from data.writes import entities as entity_writes
from demo.model import MODEL
from demo.model.markers import MARKER, MARKER_PLACES
from demo.model.orders import CUSTOMER, ORDER, OrderStatus
from keys import map as map_keys
from model import Update
from store.client import Store
from store.loaders import ItemLoader
from store.requests import WRITE_TOKEN, Item, primary_key, to_attributes
from store.tables import create_table
from store.transport.connection import LOCAL_CREDENTIALS

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient
else:
    DynamoDBClient = Any

from bench.scale_load import Say, count_item, marker_items, order_in, whole_ms


@asynccontextmanager
async def open_client(endpoint: str) -> AsyncIterator[DynamoDBClient]:
    """A client for bulk work, not the gateway's: a full-table Scan page or a busy batch
    may take longer than the gateway's 2 s read timeout, and botocore's parameter
    validation of a million items would cost more CPU than their serialisation."""
    config = AioConfig(
        retries={"total_max_attempts": 10, "mode": "standard"},
        read_timeout=120,
        max_pool_connections=64,
        parameter_validation=False,
    )
    session = aioboto3.Session()
    async with session.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        config=config,
        aws_access_key_id=LOCAL_CREDENTIALS["aws_access_key_id"],
        aws_secret_access_key=LOCAL_CREDENTIALS["aws_secret_access_key"],
    ) as client:
        yield client


@dataclass(frozen=True)
class Loaded:
    items: int  # PutRequests written (rewritten cell counts included)
    calls: int  # BatchWriteItem calls, retries of unprocessed items included
    seconds: float

    @property
    def rate(self) -> float:
        return self.items / self.seconds if self.seconds else 0.0


_BATCH = 25  # BatchWriteItem's most


async def load(
    client: DynamoDBClient,
    table: str,
    items: Iterable[Item],
    say: Say,
    concurrency: int = 8,
    every: float = 10.0,
) -> Loaded:
    """BatchWriteItem `items`, 25 a call and `concurrency` calls in flight, retrying
    unprocessed items with backoff; items are built as they are sent (a million would not
    sit well in memory)."""
    source = iter(items)
    written = calls = 0
    started = last = time.monotonic()

    def next_batch() -> list[Item]:
        batch: list[Item] = []
        for item in source:
            batch.append(item)
            if len(batch) == _BATCH:
                break
        return batch

    async def worker() -> None:
        nonlocal written, calls, last
        while batch := next_batch():
            pending: Any = {table: [{"PutRequest": {"Item": to_attributes(i)}} for i in batch]}
            for attempt in range(20):
                response = await client.batch_write_item(RequestItems=pending)
                calls += 1
                pending = response.get("UnprocessedItems") or None
                if not pending:
                    break
                await asyncio.sleep(min(1.0, 0.05 * 2**attempt))
            else:
                raise RuntimeError(f"BatchWriteItem left items unprocessed 20 times: {pending}")
            written += len(batch)
            if (at := time.monotonic()) - last >= every:
                last = at
                say(f"  loading: {written:,} items, {written / (at - started):,.0f} items/s")

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return Loaded(written, calls, time.monotonic() - started)


async def shape_check(client: DynamoDBClient, table: str) -> None:
    """Do the items built here equal what the gateway writes? Real calls in a scratch table.

    One `add_marker` (its id item, place item and eight cell counts, lengths 1 to 8) and
    one order moved PLACED -> SHIPPED -> DELIVERED by `setOrderStatus`; AssertionError on
    any difference but the write token's random value.
    """
    await create_table(client, table)
    store = Store(client, table)
    caller = Caller(username="Ada")
    lat, lon = 48.8566, 2.3522
    given = {"lat": lat, "lon": lon, "label": "shape check"}
    marker = await entity_writes.create(store, MODEL, MARKER, given, caller=caller)
    ours = list(marker_items(marker["id"], lat, lon, "shape check", marker["createdAt"], caller))
    cells = map_keys.cell_keys(MARKER_PLACES, marker["geohash"])
    ours += [count_item(map_keys.cell_of(MARKER_PLACES, key), 1) for key in cells]
    for item in ours:
        _same(item, await store.get(primary_key(item, store.layout.table)), "add_marker")
    customer = {"id": "shape", "name": "Shape", "email": "shape@example.com"}
    await entity_writes.create(store, MODEL, CUSTOMER, customer, caller=OPEN)
    placed_at = whole_ms(now() - timedelta(days=3))
    lines = [{"sku": "SKU-1", "quantity": 2, "unitPriceCents": 300}]
    given = {"customerId": "shape", "items": lines, "placedAt": placed_at}
    order = await entity_writes.create(store, MODEL, ORDER, given, caller=OPEN)
    [move] = [p for p in MODEL.of_kind(Update) if p.entity is ORDER]
    for status in (OrderStatus.SHIPPED, OrderStatus.DELIVERED):
        moved = await entity_writes.update(
            store,
            ItemLoader(store),
            ORDER,
            {"id": order["id"]},
            {"status": status},
            caller=OPEN,
            writer_only=False,
            transitions=move.moves,
        )
    stored = await store.get(ORDER.primary_key(order))
    assert stored is not None
    placed = {**ORDER.item_keys(order), "type": ORDER.label, **stored_values(ORDER, order)}
    ours_order = order_in(placed, OrderStatus.DELIVERED, moved["updatedAt"], stored[WRITE_TOKEN])
    _same(ours_order, stored, "setOrderStatus")


def _same(ours: Item, stored: Item | None, what: str) -> None:
    if stored is not None and WRITE_TOKEN in ours and WRITE_TOKEN in stored:
        ours = {**ours, WRITE_TOKEN: stored[WRITE_TOKEN]}  # a random value either way
    if ours != stored:
        raise AssertionError(f"bench.scale builds {ours}, {what} stored {stored}")


def projected_seconds(loaded: Loaded, items: int) -> float:
    """At the measured rate, how long `items` would take to load."""
    return math.inf if not loaded.rate else items / loaded.rate
