"""Products and their comments, filtered by language and any set of ratings (seed 003)."""

from __future__ import annotations

from datetime import datetime

import strawberry

from data import comments as data
from keys.codecs import parse_timestamp
from resolvers.context import Context
from resolvers.relay import NOT_GIVEN, Connection, connection_field, given
from store.pagination import PageArgs
from store.requests import Item

Info = strawberry.Info[Context, None]


@strawberry.type
class Product:
    id: strawberry.ID
    name: str

    @classmethod
    def from_item(cls, item: Item) -> Product:
        return cls(id=strawberry.ID(item["id"]), name=item["name"])

    @connection_field
    async def comments(
        self,
        info: Info,
        page: PageArgs,
        language: str | None = NOT_GIVEN,
        ratings: list[int] | None = NOT_GIVEN,
    ) -> Connection[Comment]:
        """Newest first; `language` null means any, `ratings` null means all of 1 to 5."""
        found = await data.product_comments_page(
            info.context.pages,
            str(self.id),
            page,
            language=given(language),
            ratings=given(ratings),
        )
        return Connection.from_page(found, Comment.from_item)


@strawberry.type
class Comment:
    id: strawberry.ID
    language: str
    rating: int
    body: str
    created_at: datetime
    product_id: strawberry.Private[str]

    @classmethod
    def from_item(cls, item: Item) -> Comment:
        return cls(
            id=strawberry.ID(item["id"]),
            language=item["language"],
            rating=item["rating"],
            body=item["body"],
            created_at=parse_timestamp(item["createdAt"]),
            product_id=item["productId"],
        )

    @strawberry.field
    async def product(self, info: Info) -> Product:
        item = await data.load_product(info.context.items, self.product_id)
        if item is None:
            raise LookupError(f"comment {self.id} names missing product {self.product_id}")
        return Product.from_item(item)


@strawberry.input
class CreateProductInput:
    id: strawberry.ID
    name: str


@strawberry.input(description="`createdAt` is optional, for imports of older data.")
class PostCommentInput:
    product_id: strawberry.ID
    language: str
    rating: int
    body: str
    created_at: datetime | None = NOT_GIVEN


@strawberry.input
class EditCommentInput:
    id: strawberry.ID
    language: str | None = NOT_GIVEN
    rating: int | None = NOT_GIVEN
    body: str | None = NOT_GIVEN


@strawberry.type
class CommentsQuery:
    @strawberry.field
    async def product(self, info: Info, id: strawberry.ID) -> Product | None:
        item = await data.load_product(info.context.items, id)
        return None if item is None else Product.from_item(item)

    @strawberry.field
    async def comment(self, info: Info, id: strawberry.ID) -> Comment | None:
        item = await data.load_comment(info.context.items, id)
        return None if item is None else Comment.from_item(item)


@strawberry.type
class CommentsMutation:
    @strawberry.mutation
    async def create_product(self, info: Info, input: CreateProductInput) -> Product:
        return Product.from_item(
            await data.create_product(info.context.store, input.id, input.name)
        )

    @strawberry.mutation
    async def post_comment(self, info: Info, input: PostCommentInput) -> Comment:
        item = await data.post_comment(
            info.context.store,
            input.product_id,
            input.language,
            input.rating,
            input.body,
            given(input.created_at),
        )
        return Comment.from_item(item)

    @strawberry.mutation
    async def edit_comment(self, info: Info, input: EditCommentInput) -> Comment:
        item = await data.edit_comment(
            info.context.store,
            info.context.items,
            input.id,
            language=given(input.language),
            rating=given(input.rating),
            body=given(input.body),
        )
        return Comment.from_item(item)

    @strawberry.mutation
    async def delete_comment(self, info: Info, id: strawberry.ID) -> bool:
        await data.delete_comment(info.context.store, info.context.items, id)
        return True
