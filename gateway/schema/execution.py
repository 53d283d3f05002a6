"""GraphQL execution with a short path for plain fields.

graphql-core runs every field through the same machinery: a path, a resolve-info object,
the resolver, an awaitable check and value completion, several microseconds a field. Most
fields of an answer are plain leaves — a node's `id`, `status`, `placedAt`, a marker's
`lat` — that Strawberry resolves by reading one attribute (no resolver, no extension,
no argument). Those are read and coerced here directly, and so are plain fields of object
type whose selections are plain in turn (a connection's `edges`, an edge's `node`): a
page's edges are answered in one walk, without completing each edge and node. Anything
unusual about a value (None where the schema says non-null, a value the scalar refuses, an
error, a deferred fragment) sends that field the ordinary way, which reports it exactly as
before: reading plain fields has no effect, so a field may be read again. Nothing is
skipped that someone asked to see: with a schema extension that resolves fields (a
graphql-core middleware), every field goes the ordinary way.

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
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
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


class PlainObjects:
    """How to answer a plain field of object type, or of a list of one: read the attribute,
    then answer the selections of each object (`object_type`) the plain way."""

    __slots__ = ("item_nullable", "listed", "nullable", "object_type", "read")

    def __init__(
        self,
        read: Callable[[Any], Any],
        object_type: GraphQLObjectType,
        nullable: bool,
        listed: bool,
        item_nullable: bool,
    ):
        self.read = read
        self.object_type = object_type
        self.nullable = nullable
        self.listed = listed
        self.item_nullable = item_nullable


Plain = PlainLeaf | PlainObjects
# Per object type (each schema has its own), field name -> how to answer it plainly, or
# None for a field that takes the usual way; gone with the schema.
_PLAIN: WeakKeyDictionary[GraphQLObjectType, dict[str, Plain | None]] = WeakKeyDictionary()


def _nullable(kind: GraphQLOutputType) -> tuple[bool, GraphQLOutputType]:
    if isinstance(kind, GraphQLNonNull):
        return False, kind.of_type
    return True, kind


def plain_field(field: GraphQLField) -> Plain | None:
    """How to answer one of Strawberry's basic fields without the field machinery, or None.

    A basic field has no resolver and no field extension (permissions are one), so
    Strawberry answers it with the configured default resolver, as `read` does. Its type is
    a leaf (which cannot be a union, so no exception handler applies), or an object type
    without an `is_type_of` check (one without interfaces), or a list of those.
    """
    read = _plain_read(field)
    if read is None:
        return None
    nullable, named = _nullable(field.type)
    if is_leaf_type(named):
        leaf: GraphQLLeafType = named
        return PlainLeaf(read, leaf.coerce_output_value, nullable)
    listed = isinstance(named, GraphQLList)
    if isinstance(named, GraphQLList):
        item_nullable, named = _nullable(named.of_type)
    else:
        item_nullable = False
    if isinstance(named, GraphQLObjectType) and named.is_type_of is None:
        return PlainObjects(read, named, nullable, listed, item_nullable)
    return None


def _plain_read(field: GraphQLField) -> Callable[[Any], Any] | None:
    """How Strawberry reads the field from its source, if it is a basic field."""
    if field.args:
        return None
    definition = (field.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
    if (
        not isinstance(definition, StrawberryField)
        or not definition.is_basic_field
        or type(definition).get_result is not StrawberryField.get_result
    ):
        return None
    name, resolver = definition.python_name, definition.default_resolver
    return attrgetter(name) if resolver is getattr else partial(_read_with, resolver, name)


def _read_with(resolver: Callable[[Any, str], Any], name: str, source: Any) -> Any:
    return resolver(source, name)


class PlainFieldsExecutionContext(StrawberryGraphQLCoreExecutionContext):
    """Strawberry's execution context, answering plain fields without the field machinery."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # This request's view of `_PLAIN`: a plain dict, faster to ask field after field.
        self._plain_fields: dict[GraphQLObjectType, dict[str, Plain | None]] = {}
        # Answers already made plainly when the rest of their object goes the usual way,
        # by (source, field group) identity; each is taken back by `execute_field` at once.
        self._answered: dict[tuple[int, int], Any] = {}
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
        # An object whose selected fields are all plain (a node, a line, a cell) is answered
        # in one loop; any other the usual way, keeping what was answered plainly.
        if not self._short:
            return super().execute_fields(
                parent_type, source_value, path, grouped_field_set, position_context
            )
        results: dict[str, Any] = {}
        for response_name, field_details_list in grouped_field_set.items():
            value = self._plain_value(parent_type, source_value, field_details_list)
            if value is Undefined:
                for answered, details in zip(
                    results.values(), grouped_field_set.values(), strict=False
                ):
                    self._answered[id(source_value), id(details)] = answered
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
            answered = self._answered.pop((id(source), id(field_details_list)), Undefined)
            if answered is not Undefined:
                return answered
            value = self._plain_value(parent_type, source, field_details_list)
            if value is not Undefined:
                return value
        return super().execute_field(
            parent_type, source, field_details_list, path, position_context
        )

    def _plain_value(
        self, parent_type: GraphQLObjectType, source: Any, field_details_list: Any
    ) -> Any:
        """The field's answer if it is plain with ordinary values, else Undefined."""
        node = field_details_list[0].node
        name = node.name.value
        if name == "__typename":  # clients such as Apollo ask it of every object
            return parent_type.name
        fields = self._plain_fields.get(parent_type)
        if fields is None:
            fields = self._plain_fields[parent_type] = _PLAIN.setdefault(parent_type, {})
        try:
            plain = fields[name]
        except KeyError:
            field = self.schema.get_field(parent_type, name)
            plain = fields[name] = None if field is None else plain_field(field)
        if plain is None or node.arguments:
            return Undefined
        try:
            value = plain.read(source)
        except Exception:
            return Undefined  # the usual way reports it, at its path
        if value is None:
            return None if plain.nullable else Undefined
        if isinstance(plain, PlainObjects):
            return self._plain_objects(plain, value, field_details_list)
        try:
            coerced = plain.coerce(value)
        except Exception:
            return Undefined
        return Undefined if coerced is None else coerced

    def _plain_objects(self, plain: PlainObjects, value: Any, field_details_list: Any) -> Any:
        """The answer of a plain object field (or list of objects), or Undefined."""
        collected = self.collect_subfields(plain.object_type, field_details_list)
        if collected.new_defer_usages or collected.forbidden_directive_instances:
            return Undefined
        grouped = collected.grouped_field_set
        if not plain.listed:
            return self._plain_object(plain.object_type, value, grouped)
        if not isinstance(value, list | tuple):
            return Undefined
        answers: list[Any] = []
        for item in value:
            if item is None:
                if not plain.item_nullable:
                    return Undefined
                answers.append(None)
                continue
            answer = self._plain_object(plain.object_type, item, grouped)
            if answer is Undefined:
                return Undefined
            answers.append(answer)
        return answers

    def _plain_object(self, object_type: GraphQLObjectType, source: Any, grouped: Any) -> Any:
        results: dict[str, Any] = {}
        for response_name, field_details_list in grouped.items():
            value = self._plain_value(object_type, source, field_details_list)
            if value is Undefined:
                return Undefined
            results[response_name] = value
        return results
