"""The exact number of fields an introspection selection answers with.

Introspection reads no table, but it can still be asked for a huge response (fragments,
aliases, nested type references). Its data is the schema itself, so it is counted over the
schema's own objects, each selection on each object once.
"""

from __future__ import annotations

from typing import Any

from graphql import (
    FieldNode,
    GraphQLArgument,
    GraphQLDirective,
    GraphQLEnumType,
    GraphQLError,
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    GraphQLWrappingType,
)
from graphql.execution.values import VariableValues, get_argument_values
from graphql.type.introspection import SchemaMetaFieldDef

from resolvers.selections import Fragments, Walk


def introspection_fields(
    schema: GraphQLSchema,
    node: FieldNode,
    meta: GraphQLField,
    fragments: Fragments,
    variables: VariableValues | None,
) -> int:
    """Fields in the answer of `__schema` or `__type(name:)` at `node` (itself included)."""
    if meta is SchemaMetaFieldDef:
        value: Any = schema
    else:
        try:
            value = schema.get_type(get_argument_values(meta, node, variables)["name"])
        except (GraphQLError, KeyError):
            return 1
    if value is None or node.selection_set is None:
        return 1
    return 1 + _Count(schema, fragments, variables).selections(node.selection_set, _At(value))


class _At:
    """An object of the schema, told apart by identity (not all of them are hashable)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _At) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


class _Count(Walk[_At, int]):
    """Each selection set counted once on each object of the schema it is asked of."""

    zero = 0

    def __init__(
        self, schema: GraphQLSchema, fragments: Fragments, variables: VariableValues | None
    ) -> None:
        super().__init__(fragments, variables)
        self.schema = schema

    def field(self, node: FieldNode, context: _At) -> int:
        children = _children(self.schema, context.value, node.name.value)
        if node.selection_set is None or children is None:
            return 1
        if isinstance(children, list):
            return 1 + sum(self.selections(node.selection_set, _At(c)) for c in children)
        return 1 + self.selections(node.selection_set, _At(children))

    def add(self, total: int, more: int) -> int:
        return total + more


def _children(schema: GraphQLSchema, value: Any, name: str) -> Any:
    """The object or list an introspection field answers with on `value`; None for a leaf."""
    if isinstance(value, GraphQLSchema):
        return {
            "types": list(schema.type_map.values()),
            "queryType": schema.query_type,
            "mutationType": schema.mutation_type,
            "subscriptionType": schema.subscription_type,
            "directives": list(schema.directives),
        }.get(name)
    if isinstance(value, GraphQLDirective):
        return list(value.args.values()) if name == "args" else None
    if isinstance(value, GraphQLField):
        return {"args": list(value.args.values()), "type": value.type}.get(name)
    if isinstance(value, GraphQLArgument | GraphQLInputField):
        return value.type if name == "type" else None
    if isinstance(value, GraphQLWrappingType):
        return value.of_type if name == "ofType" else None
    if name == "fields" and isinstance(value, GraphQLObjectType | GraphQLInterfaceType):
        return list(value.fields.values())
    if name == "inputFields" and isinstance(value, GraphQLInputObjectType):
        return list(value.fields.values())
    if name == "interfaces" and isinstance(value, GraphQLObjectType | GraphQLInterfaceType):
        return list(value.interfaces)
    if name == "possibleTypes" and isinstance(value, GraphQLInterfaceType | GraphQLUnionType):
        return list(schema.get_possible_types(value))
    if name == "enumValues" and isinstance(value, GraphQLEnumType):
        return list(value.values.values())
    return None
