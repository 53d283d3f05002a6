"""Customers and orders (seeds 000 and 004)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry

from data import orders as data
from keys.codecs import parse_timestamp
from resolvers.context import Context
from resolvers.relay import NOT_GIVEN, Connection, connection_field, given
from resolvers.scalars import DateTimeRange, SortDirection
from store.pagination import PageArgs
from store.requests import Item

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

    @connection_field
    async def orders(
        self,
        info: Info,
        page: PageArgs,
        status: OrderStatus | None = NOT_GIVEN,
        placed: DateTimeRange | None = NOT_GIVEN,
        direction: SortDirection | None = SortDirection.DESC,
    ) -> Connection[Order]:
        status, placed = given(status), given(placed)
        found = await data.customer_orders_page(
            info.context.pages,
            str(self.id),
            page,
            status=None if status is None else status.value,
            placed_from=None if placed is None else given(placed.from_),
            placed_to=None if placed is None else given(placed.to),
            placed_given=placed is not None,
            ascending=direction is SortDirection.ASC,
        )
        return Connection.from_page(found, Order.from_item)


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
        item = await data.load_customer(info.context.items, self.customer_id)
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
    placed_at: datetime | None = NOT_GIVEN


@strawberry.type
class OrdersQuery:
    @strawberry.field
    async def customer(self, info: Info, id: strawberry.ID) -> Customer | None:
        item = await data.load_customer(info.context.items, id)
        return None if item is None else Customer.from_item(item)

    @strawberry.field
    async def order(self, info: Info, id: strawberry.ID) -> Order | None:
        item = await data.load_order(info.context.items, id)
        return None if item is None else Order.from_item(item)

    @connection_field
    async def open_orders(self, info: Info, page: PageArgs) -> Connection[Order]:
        """PLACED orders of every customer, oldest first (a sparse index)."""
        return Connection.from_page(
            await data.open_orders_page(info.context.pages, page), Order.from_item
        )


@strawberry.type
class OrdersMutation:
    @strawberry.mutation
    async def create_customer(self, info: Info, input: CreateCustomerInput) -> Customer:
        item = await data.create_customer(info.context.store, input.id, input.name, input.email)
        return Customer.from_item(item)

    @strawberry.mutation
    async def place_order(self, info: Info, input: PlaceOrderInput) -> Order:
        lines = [data.OrderLine(i.sku, i.quantity, i.unit_price_cents) for i in input.items]
        placed_at = given(input.placed_at)
        item = await data.place_order(info.context.store, input.customer_id, lines, placed_at)
        return Order.from_item(item)

    @strawberry.mutation
    async def set_order_status(self, info: Info, id: strawberry.ID, status: OrderStatus) -> Order:
        item = await data.set_order_status(info.context.store, info.context.items, id, status.value)
        return Order.from_item(item)
