"""The Strawberry schema: every area's types, the guard rails and the cost report."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial

import strawberry
from graphql import ASTValidationRule, GraphQLError
from graphql.validation import NoSchemaIntrospectionCustomRule
from strawberry.extensions import (
    AddValidationRules,
    MaxTokensLimiter,
    ParserCache,
    SchemaExtension,
    ValidationCache,
)
from strawberry.schema.config import StrawberryConfig
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext

from gateway.demand import BoundCache, DemandControl, Limits
from gateway.document_limits import alias_rule, depth_rule
from gateway.execution import PlainFieldsExecutionContext
from gateway.extensions import CodedMaskErrors, CostReport, OperationChoice
from resolvers.comments import CommentsMutation, CommentsQuery
from resolvers.map import MapMutation, MapQuery
from resolvers.orders import OrdersMutation, OrdersQuery
from resolvers.organizations import OrganizationsMutation, OrganizationsQuery
from resolvers.products import ProductsMutation, ProductsQuery
from resolvers.repos import ReposMutation, ReposQuery
from resolvers.scalars import DATETIME_SCALAR
from resolvers.tickets import TicketsMutation, TicketsQuery

MAX_DEPTH = 15
MAX_ALIASES = 30
MAX_TOKENS = 5_000
# The depth and alias limits, built once: ValidationCache keys on the rule classes. They
# count as Strawberry's limiters do, in linear time (`gateway/document_limits.py`).
_LIMIT_RULES: list[type[ASTValidationRule]] = [alias_rule(MAX_ALIASES), depth_rule(MAX_DEPTH)]
_NO_INTROSPECTION_RULES = [*_LIMIT_RULES, NoSchemaIntrospectionCustomRule]

Query = merge_types(
    "Query",
    (
        OrdersQuery,
        ProductsQuery,
        CommentsQuery,
        ReposQuery,
        OrganizationsQuery,
        TicketsQuery,
        MapQuery,
    ),
)
Mutation = merge_types(
    "Mutation",
    (
        OrdersMutation,
        ProductsMutation,
        CommentsMutation,
        ReposMutation,
        OrganizationsMutation,
        TicketsMutation,
        MapMutation,
    ),
)


class Schema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Client errors are the client's business; unexpected ones are logged when masked."""


def build_schema(
    *, cost_report: bool = True, limits: Limits | None = None, introspection: bool = True
) -> Schema:
    # Factories, so each request gets fresh extension instances (the caches are shared).
    rules = _LIMIT_RULES if introspection else _NO_INTROSPECTION_RULES
    extensions: list[Callable[[], SchemaExtension] | type[SchemaExtension]] = [
        CodedMaskErrors,
        partial(MaxTokensLimiter, MAX_TOKENS),
        partial(AddValidationRules, rules),
        partial(ParserCache, maxsize=256),
        partial(ValidationCache, maxsize=256),
        OperationChoice,  # after ValidationCache, whose errors it adds to
        partial(DemandControl, limits=limits or Limits(), cache=BoundCache()),
    ]
    if cost_report:
        extensions.append(CostReport)
    return Schema(
        query=Query,
        mutation=Mutation,
        extensions=extensions,
        config=StrawberryConfig(scalar_map={datetime: DATETIME_SCALAR}),
        execution_context_class=PlainFieldsExecutionContext,
    )


def schema_sdl() -> str:
    """The exported schema, as written to `schema.graphql`."""
    return build_schema().as_str() + "\n"
