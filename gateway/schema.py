"""The Strawberry schema: every area's types, the guard rails and the cost report."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
    ValidationCache,
)
from strawberry.schema.config import StrawberryConfig
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext

from gateway.extensions import CodedMaskErrors, CostReport
from resolvers.orders import OrdersMutation, OrdersQuery
from resolvers.scalars import DATETIME_SCALAR

MAX_DEPTH = 15
MAX_ALIASES = 30
MAX_TOKENS = 5_000

Query = merge_types("Query", (OrdersQuery,))
Mutation = merge_types("Mutation", (OrdersMutation,))


class Schema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Client errors are the client's business; unexpected ones are logged when masked."""


def build_schema(*, cost_report: bool = True) -> Schema:
    # Factories, so each request gets fresh extension instances (the caches are shared).
    extensions: list[Callable[[], SchemaExtension] | type[SchemaExtension]] = [
        CodedMaskErrors,
        partial(MaxTokensLimiter, MAX_TOKENS),
        partial(MaxAliasesLimiter, MAX_ALIASES),
        partial(QueryDepthLimiter, MAX_DEPTH),
        partial(ParserCache, maxsize=256),
        partial(ValidationCache, maxsize=256),
    ]
    if cost_report:
        extensions.append(CostReport)
    return Schema(
        query=Query,
        mutation=Mutation,
        extensions=extensions,
        config=StrawberryConfig(scalar_map={datetime: DATETIME_SCALAR}),
    )


def schema_sdl() -> str:
    """The exported schema, as written to `schema.graphql`."""
    return build_schema().as_str() + "\n"
