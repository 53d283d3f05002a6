"""A query document compiled into a plan: for each field it selects, what reads it and how
its answer is written (`gateway/plans/shapes.py`). A document that selects anything the
plan does not know — a field without a planned read (`resolvers/planned.py`) or a plain
value, a directive, a fragment on another type, one response key twice — has no plan:
the generic executor answers it, as it answers every mutation and subscription.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import strawberry
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLField,
    GraphQLObjectType,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    get_named_type,
)
from graphql.execution.values import get_argument_values
from strawberry.extensions.field_extension import FieldExtension
from strawberry.permission import PermissionExtension
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.arguments import convert_arguments
from strawberry.types.field import StrawberryField

from gateway.plans.shapes import (
    Arguments,
    Connection,
    EdgeShape,
    Entity,
    Leaf,
    Objects,
    PageInfoShape,
    Root,
    Typename,
)
from gateway.schema.execution import PlainLeaf, PlainObjects, plain_field
from model import Model
from resolvers.access import RULE
from resolvers.planned import PLANNED, CountsRead, ItemRead, ListRead, SearchRead
from resolvers.relay import PageArguments
from resolvers.strawberry_internals import core_schema

# The field extensions a planned field may carry: the plan runs what each does.
_KNOWN_EXTENSIONS = (PermissionExtension, PageArguments)
_PAGE_INFO = ("hasNextPage", "hasPreviousPage", "startCursor", "endCursor")
# The built-in scalars whose output coercion gives back a value of this type unchanged.
_KEPT: dict[str, type] = {"String": str, "ID": str, "Boolean": bool, "Int": int}


class NoPlan(Exception):
    """The document selects something only the executor answers."""


@dataclass(frozen=True)
class Plan:
    """A query operation compiled: its root fields, and its variables' definitions."""

    document: DocumentNode
    operation: OperationDefinitionNode
    roots: tuple[Root | Typename, ...]

    @property
    def variables(self) -> bool:
        return bool(self.operation.variable_definitions)


def compile_plan(
    schema: strawberry.Schema, model: Model, document: DocumentNode, operation_name: str | None
) -> Plan:
    """The plan of the operation `operation_name` names (the only one when None) of a valid
    `document`; NoPlan when it has none."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if operation_name is None and len(operations) == 1:
        operation = operations[0]
    else:
        named = [o for o in operations if o.name and o.name.value == operation_name]
        if operation_name is None or len(named) != 1:
            raise NoPlan("which operation runs is the executor's to say")
        operation = named[0]
    if operation.operation is not OperationType.QUERY or operation.directives:
        raise NoPlan("only queries are planned")
    core = core_schema(schema)
    query = core.query_type
    assert query is not None
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    variables = bool(operation.variable_definitions)
    compiler = _Compiler(schema.schema_converter, model, fragments, variables)
    selected = compiler.selections(query, operation.selection_set)
    roots = tuple(compiler.root(query, key, node) for key, node in selected)
    return Plan(document, operation, roots)


class _Compiler:
    def __init__(
        self,
        converter: GraphQLCoreConverter,
        model: Model,
        fragments: Mapping[str, FragmentDefinitionNode],
        variables: bool,
    ) -> None:
        self.converter = converter
        self.entities = {entity.name: entity for entity in model.entities}
        self.fragments = fragments
        self.variables = variables

    def selections(
        self, parent: GraphQLObjectType, selection_set: SelectionSetNode | None
    ) -> Iterator[tuple[str, FieldNode]]:
        """The fields selected on `parent`, fragments flattened, each response key once."""
        seen: set[str] = set()
        for key, node in self._flattened(parent, selection_set):
            if key in seen:
                raise NoPlan("a response key selected twice is merged by the executor")
            seen.add(key)
            yield key, node

    def _flattened(
        self, parent: GraphQLObjectType, selection_set: SelectionSetNode | None
    ) -> Iterator[tuple[str, FieldNode]]:
        if selection_set is None:
            raise NoPlan("an object without a selection")
        for selection in selection_set.selections:
            if selection.directives:
                raise NoPlan("directives are the executor's")
            if isinstance(selection, FieldNode):
                yield (selection.alias or selection.name).value, selection
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                if condition is not None and condition.name.value != parent.name:
                    raise NoPlan("a fragment on another type")
                yield from self._flattened(parent, selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode):
                fragment = self.fragments[selection.name.value]
                if fragment.type_condition.name.value != parent.name:
                    raise NoPlan("a fragment on another type")
                yield from self._flattened(parent, fragment.selection_set)

    def root(self, query: GraphQLObjectType, key: str, node: FieldNode) -> Root | Typename:
        name = node.name.value
        if name == "__typename":
            return Typename(key, query.name)
        field = query.fields.get(name)
        if field is None:
            raise NoPlan("introspection is the executor's")
        definition = _definition(field)
        read = _metadata(definition, PLANNED)
        arguments = self.arguments(field, definition, node)
        rule = _metadata(definition, RULE)
        returned = get_named_type(field.type)
        assert isinstance(returned, GraphQLObjectType)
        if isinstance(read, ItemRead):
            shape = self.entity(returned, node.selection_set)
            return Root(key, name, rule, arguments, read, entity=shape)
        if isinstance(read, SearchRead):
            found: list[str] = []
            leaves: list[Leaf | Typename] = []
            entity: Entity | None = None
            for child_key, child in self.selections(returned, node.selection_set):
                if child.name.value == read.found:
                    found.append(child_key)
                    listed = get_named_type(returned.fields[read.found].type)
                    assert isinstance(listed, GraphQLObjectType)
                    shape = self.entity(listed, child.selection_set)
                    if (entity is not None and shape != entity) or shape.lists:
                        raise NoPlan("one shape of what a search found")
                    entity = shape
                else:
                    leaves.append(self.leaf(returned, child_key, child))
            shaped = Root(key, name, rule, arguments, read, entity, tuple(found), tuple(leaves))
            return replace(shaped, order=self.order(returned, node))
        if isinstance(read, CountsRead):
            leaves = []
            cells = None
            for child_key, child in self.selections(returned, node.selection_set):
                if child.name.value == "cells":
                    if cells is not None:
                        raise NoPlan("one shape of cells")
                    cells = self.objects(returned, child_key, child)
                else:
                    leaves.append(self.leaf(returned, child_key, child))
            shaped = Root(key, name, rule, arguments, read, leaves=tuple(leaves), cells=cells)
            return replace(shaped, order=self.order(returned, node))
        raise NoPlan(f"`{name}` is answered by the executor")

    def order(self, kind: GraphQLObjectType, node: FieldNode) -> tuple[str, ...]:
        return tuple(key for key, _ in self.selections(kind, node.selection_set))

    def arguments(
        self, field: GraphQLField, definition: StrawberryField, node: FieldNode
    ) -> Arguments:
        if any(not isinstance(e, _KNOWN_EXTENSIONS) for e in _extensions(definition)):
            raise NoPlan("a field extension the plan does not run")
        convert = _converting(self.converter, definition)
        if self.variables:
            return Arguments(field, node, convert, None, None)
        raw = get_argument_values(field, node)
        return Arguments(field, node, convert, convert(raw), raw)

    def entity(self, kind: GraphQLObjectType, selection_set: SelectionSetNode | None) -> Entity:
        entity = self.entities.get(kind.name)
        if entity is None:
            raise NoPlan(f"{kind.name} is not an entity")
        fields: list[Any] = []
        for key, node in self.selections(kind, selection_set):
            name = node.name.value
            if name == "__typename":
                fields.append(Typename(key, kind.name))
                continue
            field = kind.fields[name]
            definition = _definition(field)
            read = _metadata(definition, PLANNED)
            if isinstance(read, ListRead):
                fields.append(self.connection(field, definition, key, node, read))
                continue
            attribute = entity.attributes.get(definition.python_name)
            if attribute is None or not attribute.shown or attribute.readers is not None:
                raise NoPlan(f"`{name}` is answered by its resolver")
            plain = plain_field(field)
            if isinstance(plain, PlainObjects):
                fields.append(self.objects(kind, key, node))
            else:
                fields.append(self.leaf(kind, key, node))
        lists = any(isinstance(f, Connection) for f in fields)
        return Entity(kind.name, tuple(fields), lists)

    def leaf(self, kind: GraphQLObjectType, key: str, node: FieldNode) -> Leaf | Typename:
        name = node.name.value
        if name == "__typename":
            return Typename(key, kind.name)
        field = kind.fields.get(name)
        plain = None if field is None or node.arguments else plain_field(field)
        if not isinstance(plain, PlainLeaf) or node.selection_set is not None:
            raise NoPlan(f"`{name}` is not a plain value")
        kept = _KEPT.get(get_named_type(field.type).name)
        return Leaf(key, _definition(field).python_name, plain.coerce, plain.nullable, kept)

    def objects(self, kind: GraphQLObjectType, key: str, node: FieldNode) -> Objects:
        field = kind.fields[node.name.value]
        plain = plain_field(field)
        if not isinstance(plain, PlainObjects) or not plain.listed or plain.item_nullable:
            raise NoPlan(f"`{node.name.value}` is not a list of plain objects")
        item = plain.object_type
        leaves = tuple(self.leaf(item, k, n) for k, n in self.selections(item, node.selection_set))
        return Objects(key, _definition(field).python_name, plain.nullable, leaves)

    def connection(
        self,
        field: GraphQLField,
        definition: StrawberryField,
        key: str,
        node: FieldNode,
        read: ListRead,
    ) -> Connection:
        kind = get_named_type(field.type)
        assert isinstance(kind, GraphQLObjectType)
        edges = page_info = entity = None
        typename: list[tuple[str, str]] = []
        for child_key, child in self.selections(kind, node.selection_set):
            name = child.name.value
            if name == "__typename":
                typename.append((child_key, kind.name))
            elif name == "edges" and edges is None:
                edge_type = get_named_type(kind.fields["edges"].type)
                assert isinstance(edge_type, GraphQLObjectType)
                edges, entity = self.edges(edge_type, child_key, child)
            elif name == "pageInfo" and page_info is None:
                info_type = get_named_type(kind.fields["pageInfo"].type)
                assert isinstance(info_type, GraphQLObjectType)
                page_info = self.page_info(info_type, child_key, child)
            else:
                raise NoPlan("one shape of edges and page")
        arguments = self.arguments(field, definition, node)
        return Connection(key, read, arguments, edges, page_info, tuple(typename), entity)

    def edges(
        self, kind: GraphQLObjectType, key: str, node: FieldNode
    ) -> tuple[EdgeShape, Entity | None]:
        cursor: list[str] = []
        nodes: list[str] = []
        typename: list[tuple[str, str]] = []
        entity = None
        for child_key, child in self.selections(kind, node.selection_set):
            name = child.name.value
            if name == "cursor":
                cursor.append(child_key)
            elif name == "__typename":
                typename.append((child_key, kind.name))
            elif name == "node" and entity is None:
                node_type = get_named_type(kind.fields["node"].type)
                assert isinstance(node_type, GraphQLObjectType)
                nodes.append(child_key)
                entity = self.entity(node_type, child.selection_set)
            else:
                raise NoPlan("one shape of node")
        return EdgeShape(key, tuple(cursor), tuple(nodes), tuple(typename)), entity

    def page_info(self, kind: GraphQLObjectType, key: str, node: FieldNode) -> PageInfoShape:
        fields: list[tuple[str, str]] = []
        for child_key, child in self.selections(kind, node.selection_set):
            name = child.name.value
            if name != "__typename" and name not in _PAGE_INFO:
                raise NoPlan(f"`{name}` of a page")
            fields.append((child_key, name))
        return PageInfoShape(key, tuple(fields))


def _converting(
    converter: GraphQLCoreConverter, definition: StrawberryField
) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """How Strawberry turns a field's coerced arguments into its resolver's."""

    def convert(raw: Mapping[str, Any]) -> dict[str, Any]:
        return convert_arguments(
            dict(raw), definition.arguments, converter.scalar_registry, converter.config
        )

    return convert


def _definition(field: GraphQLField) -> StrawberryField:
    definition = (field.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
    if not isinstance(definition, StrawberryField):
        raise NoPlan("a field Strawberry did not make")
    return definition


def _metadata(definition: StrawberryField, name: str) -> Any:
    metadata: Mapping[str, Any] = definition.metadata or {}
    return metadata.get(name)


def _extensions(definition: StrawberryField) -> list[FieldExtension]:
    return list(definition.extensions or [])
