"""bench.scale's table: the entities its questions ask about, realistic filler, the loader.

Every item is the one the gateway writes: customers, orders, products and comments come
from `data`'s own builders (`customer_item`, `order_item`, `product_item`, `new_comment`,
`comment_items`); an order moved on from PLACED and a marker with its cell counts are
built here as `set_order_status` and `add_marker` write them, which `shape_check` proves
against the real calls. The filler is other customers' orders, other products' comments
(33 items each) and markers elsewhere on the globe, so that a Scan has to read and
evaluate items of every shape the questions' own items have.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

import aioboto3
from aiobotocore.config import AioConfig

from bench.map_views import viewport
from data.callers import OPEN, Caller
from data.clock import new_ksuid, new_token, now
from data.comments import comment_items, new_comment
from data.map import add_marker, marker_items
from data.orders import (
    OrderLine,
    OrderStatus,
    create_customer,
    customer_item,
    order_item,
    place_order,
    set_order_status,
)
from data.products import product_item
from keys import map as map_keys
from keys import orders as order_keys
from keys.codecs import format_timestamp, parse_timestamp
from store.client import LOCAL_CREDENTIALS, Store
from store.loaders import ItemLoader
from store.requests import WRITE_TOKEN, Item, primary_key, to_attributes
from store.tables import create_table

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient
else:
    DynamoDBClient = Any

Say = Callable[[str], None]
T = TypeVar("T")

# The day the data set was "taken": every time in it is before this.
TAKEN = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
CUSTOMER_ID = "scale-customer"
PRODUCT_ID = "scale-product"
VIEW_CENTRE = (51.5074, -0.1278)  # London
VIEW_SIDE = 0.05
# Filler markers keep this far (degrees) from the view's centre, so that the key ranges of
# the view hold the same markers at every size: the table grows, the neighbourhood not.
FILLER_MARKER_DISTANCE = 1.0
# How the filler's items are shared out between the three kinds.
SHARES = {"orders": 0.4, "comments": 0.4, "markers": 0.2}
LANGUAGES = (("en", 0.5), ("fr", 0.15), ("de", 0.15), ("es", 0.1), ("ja", 0.1))
RATINGS = ((1, 0.08), (2, 0.07), (3, 0.12), (4, 0.28), (5, 0.45))  # as review sites skew
AUTHORS = ("Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Margaret", "Ken")
_WORDS = (
    "solid build, arrived on time and works as described; would buy again",
    "the colour is darker than in the photos",
    "battery life is shorter than advertised but acceptable",
    "great value for the price",
    "instructions were unclear, took an hour to set up",
    "customer service replaced a faulty part within a week",
    "feels cheap, the lid does not close properly",
    "exactly what I needed for the kitchen",
)
_PLACES = ("Cafe", "Bakery", "Museum", "Park", "Station", "Library", "Pharmacy", "Gallery")


@dataclass(frozen=True)
class Target:
    """The fixed entities the three questions ask about (written once, first)."""

    orders: int = 60
    comments: int = 100
    markers_inside: int = 50
    markers_around: int = 30

    @property
    def view(self) -> map_keys.Viewport:
        return viewport(*VIEW_CENTRE, VIEW_SIDE)


# ---- items, as the gateway writes them ---------------------------------------------------


def order_in(item: Item, status: OrderStatus, updated_at: datetime, token: str) -> Item:
    """`item` (a PLACED order) as `set_order_status` leaves it once moved to `status`."""
    placed_at = parse_timestamp(item["placedAt"])
    attributes = order_keys.order_index_attributes(
        item["customerId"], item["id"], status, placed_at
    )
    moved = {k: v for k, v in item.items() if k not in order_keys.OPEN_ORDER_ATTRIBUTES}
    return {
        **moved,
        **attributes,
        "status": str(status),
        "updatedAt": format_timestamp(updated_at),
        WRITE_TOKEN: token,
    }


def count_item(cell: str, count: int) -> Item:
    """A cell count as `add_marker`'s counter updates leave it."""
    return {**map_keys.cell_key(cell), "count": count}


# ---- the data set ------------------------------------------------------------------------


class Dataset:
    """The table's content, grown step by step; `size` counts distinct items.

    Cell counts are shared by markers: each step writes the counts it touched once, at its
    end, with their totals so far (a count rewritten is not a new item).
    """

    def __init__(self, target: Target, seed: int) -> None:
        self.target = target
        self.rng = random.Random(seed)
        self.size = 0
        self.made = dict.fromkeys(SHARES, 0)
        self.cells: dict[str, int] = {}
        self._touched: set[str] = set()
        self._customers = self._products = 0
        self._fixed: list[Item] = self._fixed_items()
        # Items of the fixed entities, with the cell counts their markers add.
        self.fixed_size = len(self._fixed) + len(self.cells)

    def grow(self, to: int) -> Iterator[Item]:
        """Items that bring the table to exactly `to` distinct items (fixed ones first)."""
        if to < self.size + (self.fixed_size if self._fixed else 0):
            raise ValueError(f"cannot grow a table of {self.size:,} items to {to:,}")
        if self._fixed:
            yield from self._fixed
            self.size += self.fixed_size
            self._fixed = []
        while self.size < to:
            items, new_cells = self._unit(to - self.size)
            self.size += len(items) + new_cells
            yield from items
        touched, self._touched = sorted(self._touched), set()
        yield from (count_item(cell, self.cells[cell]) for cell in touched)

    # -- the fixed entities

    def _fixed_items(self) -> list[Item]:
        t = self.target
        customer = self._customer(CUSTOMER_ID, t.orders)
        product = self._product(PRODUCT_ID, t.comments)
        view = t.view
        inside = [
            (self.rng.uniform(view.south, view.north), self.rng.uniform(view.west, view.east))
            for _ in range(t.markers_inside)
        ]
        around: list[tuple[float, float]] = []
        while len(around) < t.markers_around:  # within a view's side of it, not in it
            lat = self.rng.uniform(view.south - VIEW_SIDE, view.north + VIEW_SIDE)
            lon = self.rng.uniform(view.west - VIEW_SIDE, view.east + VIEW_SIDE)
            if not view.contains(lat, lon):
                around.append((lat, lon))
        markers = [i for lat, lon in inside + around for i in self._marker(lat, lon)]
        return customer + product + markers

    # -- filler

    def _unit(self, room: int) -> tuple[list[Item], int]:
        """One entity with its items, fitting in `room`; and the new cell counts it adds."""
        wanted = min(SHARES, key=lambda kind: self.made[kind] / SHARES[kind])
        if wanted == "markers" and room >= 2 + len(map_keys.CELL_LENGTHS):
            before = len(self.cells)
            items = self._marker(*self._elsewhere())
            self.made["markers"] += len(items) + len(self.cells) - before
            return items, len(self.cells) - before
        if wanted == "comments" and room >= 34:
            self._products += 1
            count = min(self.rng.randint(1, 12), (room - 1) // 33)
            items = self._product(f"product-{self._products:07d}", count)
        else:  # orders, and whatever room is too small for the others
            self._customers += 1
            count = min(self.rng.randint(1, 20), room - 1)
            items = self._customer(f"customer-{self._customers:07d}", count)
            wanted = "orders"
        self.made[wanted] += len(items)
        return items, 0

    def _elsewhere(self) -> tuple[float, float]:
        """A point on land-ish latitudes, away from the view."""
        centre_lat, centre_lon = VIEW_CENTRE
        while True:
            lat = round(self.rng.uniform(-55.0, 70.0), 7)
            lon = round(self.rng.uniform(-180.0, 180.0), 7)
            far = max(abs(lat - centre_lat), abs(lon - centre_lon)) > FILLER_MARKER_DISTANCE
            if far:
                return lat, lon

    # -- entities

    def _customer(self, customer_id: str, orders: int) -> list[Item]:
        rng = self.rng
        joined = TAKEN - timedelta(days=rng.uniform(400, 900))
        name = f"Customer {customer_id}"
        email = f"{customer_id}@example.com"
        items = [{**customer_item(customer_id, name, email, _ms(joined)), WRITE_TOKEN: new_token()}]
        for _ in range(orders):
            placed = _ms(TAKEN - timedelta(days=rng.uniform(0, 730)))
            lines = [
                OrderLine(
                    f"SKU-{rng.randrange(5000):04d}", rng.randint(1, 4), rng.randint(199, 9999)
                )
                for _ in range(rng.choice((1, 1, 2, 2, 3, 4)))
            ]
            order = order_item(new_ksuid(placed), customer_id, lines, placed, placed)
            status = _status(TAKEN - placed, rng)
            if status is not OrderStatus.PLACED:
                updated = _ms(placed + timedelta(hours=rng.uniform(2, 200)))
                order = order_in(order, status, min(updated, TAKEN), new_token())
            items.append(order)
        return items

    def _product(self, product_id: str, comments: int) -> list[Item]:
        rng = self.rng
        created = _ms(TAKEN - timedelta(days=rng.uniform(730, 1000)))
        name = f"Product {product_id}"
        items = [{**product_item(product_id, name, created), WRITE_TOKEN: new_token()}]
        for _ in range(comments):
            at = _ms(TAKEN - timedelta(days=rng.uniform(0, 700)))
            body = ". ".join(rng.sample(_WORDS, rng.randint(1, 3))).capitalize() + "."
            comment = new_comment(
                product_id, _pick(LANGUAGES, rng), _pick(RATINGS, rng), body, at, at
            )
            items += comment_items({**comment, **self._caller().authored()})
        return items

    def _marker(self, lat: float, lon: float) -> list[Item]:
        at = _ms(TAKEN - timedelta(days=self.rng.uniform(0, 365)))
        label = f"{self.rng.choice(_PLACES)} {self.rng.randrange(1000)}"
        point = round(lat, 7), round(lon, 7)
        items = list(marker_items(new_ksuid(at), *point, label, at, self._caller()))
        for cell in map_keys.cell_keys(items[0]["geohash"]):
            name = map_keys.cell_of(cell)
            self.cells[name] = self.cells.get(name, 0) + 1
            self._touched.add(name)
        return items

    def _caller(self) -> Caller:
        """A signed-in author mostly; some items were written in open mode (no author)."""
        return OPEN if self.rng.random() < 0.15 else Caller(username=self.rng.choice(AUTHORS))


def _ms(at: datetime) -> datetime:
    return at.replace(microsecond=at.microsecond // 1000 * 1000)


def _pick(weighted: tuple[tuple[T, float], ...], rng: random.Random) -> T:
    return rng.choices([v for v, _ in weighted], [w for _, w in weighted])[0]


def _status(age: timedelta, rng: random.Random) -> OrderStatus:
    """Recent orders are still open or on their way; old ones delivered, a few cancelled."""
    if age < timedelta(days=3):
        return OrderStatus.PLACED
    if age < timedelta(days=10):
        return rng.choice((OrderStatus.PLACED, OrderStatus.SHIPPED))
    return OrderStatus.CANCELLED if rng.random() < 0.08 else OrderStatus.DELIVERED


# ---- DynamoDB ----------------------------------------------------------------------------


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

    One `add_marker` (its id item, place item and six cell counts) and one order moved
    PLACED -> SHIPPED -> DELIVERED by `set_order_status`; AssertionError on any difference
    but the write token's random value.
    """
    await create_table(client, table)
    store = Store(client, table)
    caller = Caller(username="Ada")
    lat, lon = 48.8566, 2.3522
    marker = await add_marker(store, lat, lon, "shape check", caller=caller)
    ours = list(marker_items(marker.id, lat, lon, "shape check", marker.created_at, caller))
    ours += [count_item(map_keys.cell_of(key), 1) for key in map_keys.cell_keys(marker.geohash)]
    for item in ours:
        _same(item, await store.get(primary_key(item)), "add_marker")
    await create_customer(store, "shape", "Shape", "shape@example.com")
    placed_at = _ms(now() - timedelta(days=3))
    lines = [OrderLine("SKU-1", 2, 300)]
    order = await place_order(store, "shape", lines, placed_at)
    for status in (OrderStatus.SHIPPED, OrderStatus.DELIVERED):
        moved = await set_order_status(store, ItemLoader(store), order.id, status)
    stored = await store.get(order_keys.order_key(order.id))
    assert stored is not None
    placed = order_item(order.id, "shape", lines, placed_at, placed_at)
    ours_order = order_in(placed, OrderStatus.DELIVERED, moved.updated_at, stored[WRITE_TOKEN])
    _same(ours_order, stored, "set_order_status")


def _same(ours: Item, stored: Item | None, what: str) -> None:
    if ours != stored:
        raise AssertionError(f"bench.scale builds {ours}, {what} stored {stored}")


def projected_seconds(loaded: Loaded, items: int) -> float:
    """At the measured rate, how long `items` would take to load."""
    return math.inf if not loaded.rate else items / loaded.rate
