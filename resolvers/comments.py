"""Comments of products, filtered by language and any set of ratings (seed 003).

The Product and Comment types name each other, so both live here; `resolvers.products`
holds the products' own root fields.
"""

from __future__ import annotations

from datetime import datetime

import strawberry

from data import comments as data
from data import products as products_data
from resolvers.access import ANYONE, AUTHOR, AdminsGive, Stored
from resolvers.context import Context
from resolvers.cost import (
    entity,
    field_with_cost,
    item_read,
    items_of,
    mutation_with_cost,
    owner_of,
    page_read,
    writes,
)
from resolvers.records import FromRecord, written_by
from resolvers.relay import NOT_GIVEN, Connection, connection_field, given
from store.pagination import PageArgs

Info = strawberry.Info[Context, None]
COMMENT_AUTHOR = Stored("the comment's author")


@strawberry.type
class Comment(FromRecord):
    id: strawberry.ID
    language: str
    rating: int
    body: str
    created_at: datetime
    author: str | None = written_by("posted", "a comment")
    product_id: strawberry.Private[str]

    @field_with_cost(item_read(owner_of("Comments of")))
    async def product(self, info: Info) -> Product:
        product = await products_data.load_product(info.context.items, self.product_id)
        if product is None:
            raise LookupError(f"comment {self.id} names missing product {self.product_id}")
        return Product.from_record(product)


@strawberry.type
class Product(FromRecord):
    id: strawberry.ID
    name: str

    @connection_field(page_read(data.COMMENT_BYTES, items_of("Comments of")))
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
        return Connection.from_page(found, Comment.from_record)


@strawberry.input(description="`createdAt` is optional, for imports of older data: admins only.")
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
    @field_with_cost(item_read(entity("Comment", "id")), ANYONE)
    async def comment(self, info: Info, id: strawberry.ID) -> Comment | None:
        comment = await data.load_comment(info.context.items, id)
        return None if comment is None else Comment.from_record(comment)


@strawberry.type
class CommentsMutation:
    @mutation_with_cost(
        writes(data.post_comment), AdminsGive(AUTHOR, "input.created_at", "createdAt")
    )
    async def post_comment(self, info: Info, input: PostCommentInput) -> Comment:
        comment = await data.post_comment(
            info.context.store,
            input.product_id,
            input.language,
            input.rating,
            input.body,
            given(input.created_at),
            caller=info.context.caller,
        )
        return Comment.from_record(comment)

    @mutation_with_cost(writes(data.edit_comment), COMMENT_AUTHOR)
    async def edit_comment(self, info: Info, input: EditCommentInput) -> Comment:
        comment = await data.edit_comment(
            info.context.store,
            info.context.items,
            input.id,
            language=given(input.language),
            rating=given(input.rating),
            body=given(input.body),
            caller=info.context.caller,
        )
        return Comment.from_record(comment)

    @mutation_with_cost(writes(data.delete_comment), COMMENT_AUTHOR)
    async def delete_comment(self, info: Info, id: strawberry.ID) -> bool:
        await data.delete_comment(
            info.context.store, info.context.items, id, caller=info.context.caller
        )
        return True
