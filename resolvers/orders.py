"""Customers and orders (seeds 000 and 004)."""

from __future__ import annotations

from datetime import datetime

import strawberry

from data import orders as data
from data.orders import OrderStatus
from keys.errors import Forbidden
from resolvers.access import ADMINS, AdminsGive, Stored, Themselves
from resolvers.context import Context
from resolvers.cost import (
    FieldCost,
    cost,
    entity,
    field_with_cost,
    item_read,
    items_of,
    mutation_with_cost,
    owner_of,
    page_read,
    writes,
)
from resolvers.records import FromRecord
from resolvers.relay import NOT_GIVEN, Connection, connection_field, given
from resolvers.scalars import DateTimeRange, SortDirection
from store.pagination import PageArgs

Info = strawberry.Info[Context, None]

# The stored statuses are the schema's enum.
strawberry.enum(OrderStatus)


@strawberry.type
class OrderItem:
    position: int
    sku: str
    quantity: int
    unit_price_cents: int


@strawberry.type
class Customer(FromRecord):
    id: strawberry.ID
    name: str
    email: str
    created_at: datetime

    @connection_field(page_read(data.ORDER_BYTES, items_of("Orders of")))
    async def orders(
        self,
        info: Info,
        page: PageArgs,
        status: OrderStatus | None = NOT_GIVEN,
        placed: DateTimeRange | None = NOT_GIVEN,
        direction: SortDirection | None = SortDirection.DESC,
    ) -> Connection[Order]:
        placed = given(placed)
        found = await data.customer_orders_page(
            info.context.pages,
            str(self.id),
            page,
            status=given(status),
            placed=None
            if placed is None
            else data.TimeRange(given(placed.from_), given(placed.to)),
            ascending=direction is SortDirection.ASC,
        )
        return Connection.from_page(found, Order.from_record)


@strawberry.type
class Order:
    id: strawberry.ID
    status: OrderStatus
    placed_at: datetime
    updated_at: datetime
    total_cents: int
    items: list[OrderItem] = strawberry.field(metadata=cost(FieldCost(fanout=data.MAX_LINES)))
    customer_id: strawberry.Private[str]

    @classmethod
    def from_record(cls, order: data.Order) -> Order:
        return cls(
            id=strawberry.ID(order.id),
            status=order.status,
            placed_at=order.placed_at,
            updated_at=order.updated_at,
            total_cents=order.total_cents,
            items=[
                OrderItem(
                    position=position,
                    sku=line.sku,
                    quantity=line.quantity,
                    unit_price_cents=line.unit_price_cents,
                )
                for position, line in enumerate(order.lines, start=1)
            ],
            customer_id=order.customer_id,
        )

    @field_with_cost(item_read(owner_of("Orders of")))
    async def customer(self, info: Info) -> Customer:
        customer = await data.load_customer(info.context.items, self.customer_id)
        if customer is None:
            raise LookupError(f"order {self.id} names missing customer {self.customer_id}")
        return Customer.from_record(customer)


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


@strawberry.input(description="`placedAt` is optional, for imports of older data: admins only.")
class PlaceOrderInput:
    customer_id: strawberry.ID
    items: list[OrderItemInput]
    placed_at: datetime | None = NOT_GIVEN


@strawberry.type
class OrdersQuery:
    @field_with_cost(
        item_read(entity("Customer", "id")),
        Themselves("that customer (`id` = their username)", "id", "id", fold_case=False),
    )
    async def customer(self, info: Info, id: strawberry.ID) -> Customer | None:
        customer = await data.load_customer(info.context.items, id)
        return None if customer is None else Customer.from_record(customer)

    @field_with_cost(item_read(entity("Order", "id")), Stored("that customer"))
    async def order(self, info: Info, id: strawberry.ID) -> Order | None:
        order = await data.load_order(info.context.items, id)
        if order is None:
            return None
        caller = info.context.caller
        if not (caller.unrestricted or order.customer_id == caller.username):
            raise Forbidden(f"order {id!r} is not yours")
        return Order.from_record(order)

    @connection_field(page_read(data.ORDER_BYTES), ADMINS)
    async def open_orders(self, info: Info, page: PageArgs) -> Connection[Order]:
        """PLACED orders of every customer, oldest first (a sparse index)."""
        found = await data.open_orders_page(info.context.pages, page)
        return Connection.from_page(found, Order.from_record)


@strawberry.type
class OrdersMutation:
    @mutation_with_cost(
        writes(data.create_customer),
        Themselves("the caller, for `id` = their own username", "input.id", "id", fold_case=False),
    )
    async def create_customer(self, info: Info, input: CreateCustomerInput) -> Customer:
        customer = await data.create_customer(info.context.store, input.id, input.name, input.email)
        return Customer.from_record(customer)

    @mutation_with_cost(
        writes(data.place_order),
        AdminsGive(
            Themselves(
                "the customer of `customerId`", "input.customer_id", "customerId", fold_case=False
            ),
            "input.placed_at",
            "placedAt",
        ),
    )
    async def place_order(self, info: Info, input: PlaceOrderInput) -> Order:
        lines = [data.OrderLine(i.sku, i.quantity, i.unit_price_cents) for i in input.items]
        placed_at = given(input.placed_at)
        order = await data.place_order(info.context.store, input.customer_id, lines, placed_at)
        return Order.from_record(order)

    @mutation_with_cost(writes(data.set_order_status), ADMINS)
    async def set_order_status(self, info: Info, id: strawberry.ID, status: OrderStatus) -> Order:
        order = await data.set_order_status(info.context.store, info.context.items, id, status)
        return Order.from_record(order)
