"""GraphQL execution with a short path for plain fields.

graphql-core runs every field through the same machinery: a path, a resolve-info object,
the resolver, an awaitable check and value completion, several microseconds a field. Most
fields of an answer are plain leaves — a node's `id`, `status`, `placedAt`, a marker's
`lat` — that Strawberry resolves by reading one attribute (no resolver, no extension,
no argument). Those are read and coerced here directly; anything unusual about a value
(None where the schema says non-null, a value the scalar refuses, an error) goes the
ordinary way, which reports it exactly as before. Nothing is skipped that someone asked to
see: with a schema extension that resolves fields (a graphql-core middleware), every field
goes the ordinary way.

graphql-core marks the two executor methods overridden here private; `OVERRIDDEN` names
what this module expects of them, and tests/gateway/test_execution.py fails, naming the
difference, when an installed graphql-core no longer matches.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from operator import attrgetter
from typing import Any
from weakref import WeakKeyDictionary

from graphql import (
    GraphQLField,
    GraphQLLeafType,
    GraphQLNonNull,
    GraphQLObjectType,
    Undefined,
    is_leaf_type,
)
from graphql.pyutils import Path
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.field import StrawberryField

# The executor's methods overridden below, with the parameters they are expected to take;
# each group of fields is a sequence of field details whose first one's `node` is the field.
OVERRIDDEN = {
    "execute_fields": (
        "parent_type",
        "source_value",
        "path",
        "grouped_field_set",
        "position_context",
    ),
    "execute_field": ("parent_type", "source", "field_details_list", "path", "position_context"),
}


class PlainLeaf:
    """How to answer one plain leaf field: read the attribute, coerce it for output."""

    __slots__ = ("coerce", "nullable", "read")

    def __init__(self, read: Callable[[Any], Any], coerce: Callable[[Any], Any], nullable: bool):
        self.read = read
        self.coerce = coerce
        self.nullable = nullable


# Per object type (each schema has its own), field name -> its PlainLeaf, or None for a
# field that takes the usual way; gone with the schema.
_PLAIN: WeakKeyDictionary[GraphQLObjectType, dict[str, PlainLeaf | None]] = WeakKeyDictionary()


def plain_leaf(field: GraphQLField) -> PlainLeaf | None:
    """A PlainLeaf for Strawberry's basic fields of scalar or enum type, else None.

    A basic field has no resolver and no field extension (permissions are one), so
    Strawberry answers it with the configured default resolver, as `read` does; a leaf
    type cannot be a union, so no exception handler applies to it either.
    """
    if field.args:
        return None
    definition = (field.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
    if (
        not isinstance(definition, StrawberryField)
        or not definition.is_basic_field
        or type(definition).get_result is not StrawberryField.get_result
    ):
        return None
    nullable = not isinstance(field.type, GraphQLNonNull)
    named = field.type.of_type if isinstance(field.type, GraphQLNonNull) else field.type
    if not is_leaf_type(named):
        return None
    leaf: GraphQLLeafType = named
    name, resolver = definition.python_name, definition.default_resolver
    read = attrgetter(name) if resolver is getattr else partial(_read_with, resolver, name)
    return PlainLeaf(read, leaf.coerce_output_value, nullable)


def _read_with(resolver: Callable[[Any, str], Any], name: str, source: Any) -> Any:
    return resolver(source, name)


class PlainFieldsExecutionContext(StrawberryGraphQLCoreExecutionContext):
    """Strawberry's execution context, answering plain leaves without the field machinery."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # This request's view of `_PLAIN`: a plain dict, faster to ask field after field.
        self._plain_fields: dict[GraphQLObjectType, dict[str, PlainLeaf | None]] = {}
        # A middleware (Strawberry's schema extensions that override `resolve`) wraps
        # every field's resolver: it must see plain fields too.
        manager = self.middleware_manager
        self._short = manager is None or not manager.middlewares

    def execute_fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Path | None,
        grouped_field_set: Any,
        position_context: Any,
    ) -> Any:
        # An object whose selected fields are all plain leaves (a node, a line, a cell) is
        # answered in one loop; any other, or any unusual value, the usual way.
        if not self._short:
            return super().execute_fields(
                parent_type, source_value, path, grouped_field_set, position_context
            )
        results: dict[str, Any] = {}
        for response_name, field_details_list in grouped_field_set.items():
            value = self._plain_value(parent_type, source_value, field_details_list)
            if value is Undefined:
                return super().execute_fields(
                    parent_type, source_value, path, grouped_field_set, position_context
                )
            results[response_name] = value
        return results

    def execute_field(
        self,
        parent_type: GraphQLObjectType,
        source: Any,
        field_details_list: Any,
        path: Path,
        position_context: Any,
    ) -> Any:
        if self._short:
            value = self._plain_value(parent_type, source, field_details_list)
            if value is not Undefined:
                return value
        return super().execute_field(
            parent_type, source, field_details_list, path, position_context
        )

    def _plain_value(
        self, parent_type: GraphQLObjectType, source: Any, field_details_list: Any
    ) -> Any:
        """The field's answer if it is a plain leaf with an ordinary value, else Undefined."""
        node = field_details_list[0].node
        name = node.name.value
        if name == "__typename":  # clients such as Apollo ask it of every object
            return parent_type.name
        fields = self._plain_fields.get(parent_type)
        if fields is None:
            fields = self._plain_fields[parent_type] = _PLAIN.setdefault(parent_type, {})
        try:
            leaf = fields[name]
        except KeyError:
            field = self.schema.get_field(parent_type, name)
            leaf = fields[name] = None if field is None else plain_leaf(field)
        if leaf is None or node.arguments:
            return Undefined
        try:
            value = leaf.read(source)
            if value is None:
                return None if leaf.nullable else Undefined
            coerced = leaf.coerce(value)
        except Exception:
            return Undefined  # the usual way reports it, at its path
        return Undefined if coerced is None else coerced
