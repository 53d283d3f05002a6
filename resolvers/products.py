"""Products, the parents of comments (seed 003)."""

from __future__ import annotations

import strawberry

from data import comments as comments_data
from data import products as data
from resolvers.access import ADMINS, ANYONE
from resolvers.comments import Comment
from resolvers.context import Context
from resolvers.cost import (
    COMMENT_BYTES,
    entity,
    field_with_cost,
    item_read,
    items_of,
    mutation_with_cost,
    page_read,
    writes,
)
from resolvers.relay import NOT_GIVEN, Connection, connection_field, given
from store.pagination import PageArgs

Info = strawberry.Info[Context, None]


@strawberry.type
class Product:
    id: strawberry.ID
    name: str

    @classmethod
    def from_record(cls, product: data.Product) -> Product:
        return cls(id=strawberry.ID(product.id), name=product.name)

    @connection_field(page_read(COMMENT_BYTES, items_of("Comments of")))
    async def comments(
        self,
        info: Info,
        page: PageArgs,
        language: str | None = NOT_GIVEN,
        ratings: list[int] | None = NOT_GIVEN,
    ) -> Connection[Comment]:
        """Newest first; `language` null means any, `ratings` null means all of 1 to 5."""
        found = await comments_data.product_comments_page(
            info.context.pages,
            str(self.id),
            page,
            language=given(language),
            ratings=given(ratings),
        )
        return Connection.from_page(found, Comment.from_record)


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
    @mutation_with_cost(writes(1), ADMINS)
    async def create_product(self, info: Info, input: CreateProductInput) -> Product:
        product = await data.create_product(info.context.store, input.id, input.name)
        return Product.from_record(product)
