"""The exact number of fields an introspection selection answers with.

Introspection reads no table, but it can still be asked for a huge response (fragments,
aliases, nested type references). Its data is the schema itself, so it is counted over the
schema's own objects, each selection on each object once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
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
    InlineFragmentNode,
    SelectionSetNode,
)
from graphql.execution.values import VariableValues, get_argument_values
from graphql.type.introspection import SchemaMetaFieldDef


def introspection_fields(
    schema: GraphQLSchema,
    node: FieldNode,
    meta: GraphQLField,
    fragments: Mapping[str, FragmentDefinitionNode],
    variables: VariableValues,
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
    return 1 + _Counter(schema, fragments).count(node.selection_set, value)


class _Counter:
    def __init__(
        self, schema: GraphQLSchema, fragments: Mapping[str, FragmentDefinitionNode]
    ) -> None:
        self.schema = schema
        self.fragments = fragments
        self.seen: dict[tuple[int, int], int] = {}

    def count(self, selection_set: SelectionSetNode, value: Any) -> int:
        key = (id(selection_set), id(value))
        if key not in self.seen:
            self.seen[key] = 0  # fragment cycles are refused by validation
            self.seen[key] = sum(self._selection(s, value) for s in selection_set.selections)
        return self.seen[key]

    def _selection(self, selection: Any, value: Any) -> int:
        if isinstance(selection, InlineFragmentNode):
            return self.count(selection.selection_set, value)
        if isinstance(selection, FragmentSpreadNode):
            fragment = self.fragments.get(selection.name.value)
            return 0 if fragment is None else self.count(fragment.selection_set, value)
        assert isinstance(selection, FieldNode)
        children = _children(self.schema, value, selection.name.value)
        if selection.selection_set is None or children is None:
            return 1
        if isinstance(children, list):
            return 1 + sum(self.count(selection.selection_set, c) for c in children)
        return 1 + self.count(selection.selection_set, children)


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
