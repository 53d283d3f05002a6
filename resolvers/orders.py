"""Customers and orders (seeds 000 and 004)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry

from gateway.context import Context
from gateway.cursors import Binding
from gateway.data import orders as data
from gateway.pagination import PageArgs
from gateway.requests import Item
from gateway.validation import ident
from keys import orders as order_keys
from keys.codecs import parse_timestamp
from resolvers.relay import Connection
from resolvers.scalars import DateTimeRange, SortDirection

Info = strawberry.Info[Context, None]


@strawberry.enum
class OrderStatus(Enum):
    PLACED = "PLACED"
    SHIPPED = "SHIPPED"
    DELIVERED = "DELIVERED"
    CANCELLED = "CANCELLED"


@strawberry.type
class OrderItem:
    position: int
    sku: str
    quantity: int
    unit_price_cents: int


@strawberry.type
class Customer:
    id: strawberry.ID
    name: str
    email: str
    created_at: datetime

    @classmethod
    def from_item(cls, item: Item) -> Customer:
        return cls(
            id=strawberry.ID(item["id"]),
            name=item["name"],
            email=item["email"],
            created_at=parse_timestamp(item["createdAt"]),
        )

    @strawberry.field
    async def orders(
        self,
        info: Info,
        status: OrderStatus | None = None,
        placed: DateTimeRange | None = None,
        direction: SortDirection | None = SortDirection.DESC,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
    ) -> Connection[Order]:
        args = PageArgs.parse(first, after, last, before)
        direction = direction or SortDirection.DESC
        time_range = None if placed is None else order_keys.TimeRange(placed.from_, placed.to)
        condition = order_keys.customer_orders(
            str(self.id), None if status is None else status.value, time_range
        )
        binding = Binding(
            "Customer.orders",
            str(self.id),
            {
                "status": status and status.value,
                "placed": time_range and [time_range.start, time_range.end],
                "direction": direction.value,
            },
        )
        page = await info.context.pages.page(
            condition, binding, args, forward=direction is SortDirection.ASC
        )
        return Connection.from_page(page, Order.from_item)


@strawberry.type
class Order:
    id: strawberry.ID
    status: OrderStatus
    placed_at: datetime
    updated_at: datetime
    total_cents: int
    items: list[OrderItem]
    customer_id: strawberry.Private[str]

    @classmethod
    def from_item(cls, item: Item) -> Order:
        return cls(
            id=strawberry.ID(item["id"]),
            status=OrderStatus(item["status"]),
            placed_at=parse_timestamp(item["placedAt"]),
            updated_at=parse_timestamp(item["updatedAt"]),
            total_cents=item["totalCents"],
            items=[
                OrderItem(
                    position=line["position"],
                    sku=line["sku"],
                    quantity=line["quantity"],
                    unit_price_cents=line["unitPriceCents"],
                )
                for line in item["items"]
            ],
            customer_id=item["customerId"],
        )

    @strawberry.field
    async def customer(self, info: Info) -> Customer:
        item = await info.context.items.load_item(order_keys.customer_key(self.customer_id))
        if item is None:
            raise LookupError(f"order {self.id} names missing customer {self.customer_id}")
        return Customer.from_item(item)


@strawberry.input
class CreateCustomerInput:
    id: strawberry.ID
    name: str
    email: str


@strawberry.input
class OrderItemInput:
    sku: str
    quantity: int
    unit_price_cents: int


@strawberry.input(description="`placedAt` is optional, for imports of older data.")
class PlaceOrderInput:
    customer_id: strawberry.ID
    items: list[OrderItemInput]
    placed_at: datetime | None = None


@strawberry.type
class OrdersQuery:
    @strawberry.field
    async def customer(self, info: Info, id: strawberry.ID) -> Customer | None:
        item = await info.context.items.load_item(order_keys.customer_key(ident(id)))
        return None if item is None else Customer.from_item(item)

    @strawberry.field
    async def order(self, info: Info, id: strawberry.ID) -> Order | None:
        item = await data.load_order(info.context.items, ident(id))
        return None if item is None else Order.from_item(item)

    @strawberry.field
    async def open_orders(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
    ) -> Connection[Order]:
        """PLACED orders of every customer, oldest first (a sparse index)."""
        args = PageArgs.parse(first, after, last, before)
        binding = Binding("Query.openOrders", "", {})
        page = await info.context.pages.page(order_keys.open_orders(), binding, args)
        return Connection.from_page(page, Order.from_item)


@strawberry.type
class OrdersMutation:
    @strawberry.mutation
    async def create_customer(self, info: Info, input: CreateCustomerInput) -> Customer:
        item = await data.create_customer(info.context.store, input.id, input.name, input.email)
        return Customer.from_item(item)

    @strawberry.mutation
    async def place_order(self, info: Info, input: PlaceOrderInput) -> Order:
        lines = [data.OrderLine(i.sku, i.quantity, i.unit_price_cents) for i in input.items]
        item = await data.place_order(info.context.store, input.customer_id, lines, input.placed_at)
        return Order.from_item(item)

    @strawberry.mutation
    async def set_order_status(self, info: Info, id: strawberry.ID, status: OrderStatus) -> Order:
        item = await data.set_order_status(info.context.store, info.context.items, id, status.value)
        return Order.from_item(item)
