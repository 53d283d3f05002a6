"""bench.scale's table: the entities its questions ask about, and realistic filler.

Every item is the one the gateway writes: customers, orders, products, comments and
markers come from `data`'s own builders for declared entities (`new_items`, `place_item`);
an order moved on from PLACED and the markers' cell counts are built here as
`setOrderStatus` and `addMarker` leave them,
which `bench.scale_write.shape_check` proves against the real calls. The filler is other
customers' orders, other products' comments (33 items each) and markers elsewhere on the
globe, so that a Scan has to read and evaluate items of every shape the questions' own
items have.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from data.callers import OPEN, Caller
from data.clock import new_ksuid, new_token
from data.entities import record, stored
from data.places.items import place_item
from data.writes.entities import new_items
from data.writes.key_changes import index_changes
from demo.model.comments import COMMENT, PRODUCT
from demo.model.markers import MARKER, MARKER_PLACES
from demo.model.orders import CUSTOMER, ORDER, OrderStatus
from keys import map as map_keys
from store.requests import WRITE_TOKEN, Item

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


def viewport(lat: float, lon: float, side: float) -> map_keys.Viewport:
    """The `side` by `side` view centred on (lat, lon), never a hair over `side` wide/tall
    (one that does not cross the antimeridian)."""
    south = round(lat - side / 2, 9)
    north = south + side
    while north - south > side:
        north = math.nextafter(north, -math.inf)
    west = round(lon - side / 2, 9)
    east = west + side
    view = map_keys.Viewport(north=north, south=south, east=east, west=west)
    while view.width > side:
        east = math.nextafter(east, -math.inf)
        view = map_keys.Viewport(north=north, south=south, east=east, west=west)
    return view


# ---- items, as the gateway writes them ---------------------------------------------------


def order_in(item: Item, status: OrderStatus, updated_at: datetime, token: str) -> Item:
    """`item` (a PLACED order) as `setOrderStatus` leaves it once moved to `status`."""
    changed = {"status": status, "updatedAt": updated_at}
    keys, removed = index_changes(ORDER, {**record(ORDER, item), **changed}, changed)
    kept = {k: v for k, v in item.items() if k not in removed}
    return {**kept, **keys, **stored(ORDER, changed), WRITE_TOKEN: token}


def new_item(entity: Any, given: dict[str, Any], created: datetime) -> Item:
    """The item a create of `entity` writes at `created`, with its write token."""
    _, item, _ = new_items(entity, given, caller=OPEN, created=created, current=created)
    return {**item, WRITE_TOKEN: new_token()}


def marker_items(
    marker_id: str, lat: float, lon: float, label: str, created: datetime, caller: Caller
) -> tuple[Item, Item]:
    """A marker's own item (by id) and its place item, as `addMarker` writes them."""
    given = {"lat": lat, "lon": lon, "label": label}
    _, made, _ = new_items(MARKER, given, caller=caller, created=created, current=created)
    own = {**made, **MARKER.primary_key({"id": marker_id}), "id": marker_id}
    return {**own, WRITE_TOKEN: new_token()}, place_item(MARKER, own)


def count_item(cell: str, count: int) -> Item:
    """A cell count as `add_marker`'s counter updates leave it."""
    return {**map_keys.cell_key(MARKER_PLACES, cell), "count": count}


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
        customer = {"id": customer_id, "name": name, "email": email}
        items = [new_item(CUSTOMER, customer, whole_ms(joined))]
        for _ in range(orders):
            placed = whole_ms(TAKEN - timedelta(days=rng.uniform(0, 730)))
            lines = [
                {
                    "sku": f"SKU-{rng.randrange(5000):04d}",
                    "quantity": rng.randint(1, 4),
                    "unitPriceCents": rng.randint(199, 9999),
                }
                for _ in range(rng.choice((1, 1, 2, 2, 3, 4)))
            ]
            order = new_item(ORDER, {"customerId": customer_id, "items": lines}, placed)
            status = _status(TAKEN - placed, rng)
            if status is not OrderStatus.PLACED:
                updated = whole_ms(placed + timedelta(hours=rng.uniform(2, 200)))
                order = order_in(order, status, min(updated, TAKEN), new_token())
            items.append(order)
        return items

    def _product(self, product_id: str, comments: int) -> list[Item]:
        rng = self.rng
        created = whole_ms(TAKEN - timedelta(days=rng.uniform(730, 1000)))
        name = f"Product {product_id}"
        product = {"id": product_id, "name": name}
        _, item, _ = new_items(PRODUCT, product, caller=OPEN, created=created, current=created)
        items = [{**item, WRITE_TOKEN: new_token()}]
        for _ in range(comments):
            at = whole_ms(TAKEN - timedelta(days=rng.uniform(0, 700)))
            body = ". ".join(rng.sample(_WORDS, rng.randint(1, 3))).capitalize() + "."
            comment = {
                "productId": product_id,
                "language": _pick(LANGUAGES, rng),
                "rating": _pick(RATINGS, rng),
                "body": body,
            }
            caller = self._caller()
            _, item, copies = new_items(COMMENT, comment, caller=caller, created=at, current=at)
            items += [item, *copies]
        return items

    def _marker(self, lat: float, lon: float) -> list[Item]:
        at = whole_ms(TAKEN - timedelta(days=self.rng.uniform(0, 365)))
        label = f"{self.rng.choice(_PLACES)} {self.rng.randrange(1000)}"
        point = round(lat, 7), round(lon, 7)
        items = list(marker_items(new_ksuid(at), *point, label, at, self._caller()))
        for cell in map_keys.cell_keys(MARKER_PLACES, items[0]["geohash"]):
            name = map_keys.cell_of(MARKER_PLACES, cell)
            self.cells[name] = self.cells.get(name, 0) + 1
            self._touched.add(name)
        return items

    def _caller(self) -> Caller:
        """A signed-in author mostly; some items were written in open mode (no author)."""
        return OPEN if self.rng.random() < 0.15 else Caller(username=self.rng.choice(AUTHORS))


def whole_ms(at: datetime) -> datetime:
    """`at` to the millisecond, as the gateway stores times."""
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
