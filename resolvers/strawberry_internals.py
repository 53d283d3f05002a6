"""The two places the gateway reaches under Strawberry's public API, each behind one helper
here, and both held by a tripwire test (`tests/resolvers/test_strawberry_internals.py`)
that names what changed when a Strawberry release moves them."""

from __future__ import annotations

from typing import Any

import strawberry
from graphql import GraphQLResolveInfo, GraphQLSchema


def core_info(info: strawberry.Info[Any, Any]) -> GraphQLResolveInfo[Any]:
    """graphql-core's resolve info under Strawberry's `Info`: the field's own nodes and the
    document's fragments, which the look-ahead walks (Strawberry's `selected_fields` are
    converted copies, made anew on every call)."""
    raw: GraphQLResolveInfo[Any] = info._raw_info
    return raw


def core_schema(schema: strawberry.Schema) -> GraphQLSchema:
    """graphql-core's schema under Strawberry's, which validation, the bound and the worst
    case take (Strawberry keeps it as `_schema` and offers no public accessor)."""
    core: GraphQLSchema = schema._schema
    return core
