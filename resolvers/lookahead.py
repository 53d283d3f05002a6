"""What a client selected below a field, so its resolver can read child pages with it.

`repo { issues(first: 10) { … } }` is one Query only if the `repo` resolver knows, before
it reads the repository, which page `issues` will ask for. This reads the selection as the
bound does (`resolvers/selections.py`: fragments flattened, `@skip`/`@include` decided by
the variables, arguments coerced by the schema), one level down. Anything it cannot turn
into a read is left to the child field itself, which then validates its arguments and
reports errors at its own path.

Strawberry's `Info.selected_fields` is not used: it expands every fragment spread again
at every level below the field, exponential work for a document whose fragments double
(one the bound may let through, when those lists are refused or skipped).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import Any, TypeVar

import strawberry
from graphql import FieldNode, GraphQLError, GraphQLField, GraphQLObjectType, get_named_type
from graphql.execution.values import VariableValues, get_argument_values

from data.collections import PageRead
from errors.vocabulary import DynagateError
from resolvers.selections import fields_in
from resolvers.strawberry_internals import core_info
from store.pagination import PageArgs

Arguments = Mapping[str, Any]
# Builds the read a child field would make from that field's arguments.
ReadBuilder = Callable[[Arguments], PageRead[Any]]
E = TypeVar("E", bound=Enum)

# The page a child asks for, read from its arguments as the child reads them.
page_args = PageArgs.from_arguments


def child_reads(
    info: strawberry.Info[Any, Any], builders: Mapping[str, ReadBuilder]
) -> dict[str, PageRead[Any]]:
    """The reads of the selected children named in `builders`, by response key."""
    raw = core_info(info)  # the field's nodes and the document's fragments
    parent = get_named_type(raw.return_type)
    if not isinstance(parent, GraphQLObjectType):
        return {}
    # Resolvers see the variables coerced; their sources matter to no argument read here.
    variables = VariableValues({}, dict(info.variable_values))
    selections = (node.selection_set for node in raw.field_nodes)
    nodes = fields_in(selections, raw.fragments, variables)
    return read_ahead(parent.fields, nodes, variables, builders)


def read_ahead(
    fields: Mapping[str, GraphQLField],
    nodes: Iterable[FieldNode],
    variables: VariableValues | None,
    builders: Mapping[str, ReadBuilder],
) -> dict[str, PageRead[Any]]:
    """The reads the selected child fields `nodes` (of a type with `fields`) would make,
    for those named in `builders`, by response key: the look-ahead of the executor and of
    a plan (`gateway/plans/`) alike."""
    reads: dict[str, PageRead[Any]] = {}
    for node in nodes:
        builder = builders.get(node.name.value)
        definition = fields.get(node.name.value)
        if builder is None or definition is None:
            continue
        try:
            arguments = get_argument_values(definition, node, variables)
            reads[(node.alias or node.name).value] = builder(arguments)
        except (GraphQLError, DynagateError, TypeError, ValueError):
            continue  # the child reports it, at its own path
    return reads


def enum_value(kind: type[E], value: Any) -> E | None:
    """An enum argument's member, from its value as the schema coerces it."""
    if value is None:
        return None
    return kind(getattr(value, "value", value))
