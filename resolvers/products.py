"""Products, the parents of comments (seed 003): their root fields. The Product type lives
with Comment in `resolvers.comments`, each naming the other."""

from __future__ import annotations

import strawberry

from data import products as data
from resolvers.access import ADMINS, ANYONE
from resolvers.comments import Product
from resolvers.context import Context
from resolvers.cost import entity, field_with_cost, item_read, mutation_with_cost, writes

Info = strawberry.Info[Context, None]


@strawberry.input
class CreateProductInput:
    id: strawberry.ID
    name: str


@strawberry.type
class ProductsQuery:
    @field_with_cost(item_read(entity("Product", "id")), ANYONE)
    async def product(self, info: Info, id: strawberry.ID) -> Product | None:
        product = await data.load_product(info.context.items, id)
        return None if product is None else Product.from_record(product)


@strawberry.type
class ProductsMutation:
    @mutation_with_cost(writes(data.create_product), ADMINS)
    async def create_product(self, info: Info, input: CreateProductInput) -> Product:
        product = await data.create_product(info.context.store, input.id, input.name)
        return Product.from_record(product)
