"""What a plan writes: the shape of each answer a document selects, compiled once from the
document against the schema (`gateway/plans/compiler.py`), read by `gateway/plans/run.py`.

Every value is read as the executor reads it: a leaf from its record by the field's Python
name, coerced by its GraphQL type; a list or object by the kind of field that makes it
(`resolvers/planned.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from graphql import FieldNode, GraphQLField

from resolvers.access import Rule
from resolvers.planned import CountsRead, ItemRead, ListRead, SearchRead


class GiveWay(Exception):
    """Something this answer holds that only the executor answers as it should: an error,
    a null where the schema says non-null, a value its type refuses."""


@dataclass(frozen=True)
class Leaf:
    """A scalar or enum: `source[name]`, coerced for output."""

    key: str
    name: str
    coerce: Callable[[Any], Any]
    nullable: bool
    # The Python type a value of this leaf's scalar already is as it is answered (a str of
    # String or ID, a bool of Boolean, an int of Int within 32 bits): kept as it is.
    kept: type | None = None


@dataclass(frozen=True)
class Typename:
    key: str
    name: str


@dataclass(frozen=True)
class Objects:
    """A list of plain objects held in the source (an attribute's lines, a heatmap's cells),
    each written as `fields`."""

    key: str
    name: str
    nullable: bool
    fields: tuple[Leaf | Typename, ...]


@dataclass(frozen=True)
class Arguments:
    """A field's arguments, as its resolver receives them: computed once when the document
    gives them without variables, else per request."""

    field: GraphQLField
    node: FieldNode
    # Strawberry's conversion of coerced arguments (by GraphQL name) to the resolver's.
    convert: Callable[[Mapping[str, Any]], dict[str, Any]]
    fixed: Mapping[str, Any] | None
    # By GraphQL name, coerced (what a parent reading the field's page ahead takes).
    fixed_raw: Mapping[str, Any] | None


@dataclass(frozen=True)
class PageInfoShape:
    key: str
    fields: tuple[tuple[str, str], ...]  # (response key, field name)


@dataclass(frozen=True)
class EdgeShape:
    key: str
    cursor: tuple[str, ...]
    node: tuple[str, ...]
    typename: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Entity:
    """An entity's object, written from its record."""

    typename: str
    fields: tuple[Any, ...]  # Leaf | Typename | Objects | Connection
    lists: bool  # whether any field is a connection (read, so written asynchronously)


@dataclass(frozen=True)
class Connection:
    key: str
    read: ListRead
    arguments: Arguments
    edges: EdgeShape | None
    page_info: PageInfoShape | None
    typename: tuple[tuple[str, str], ...]
    node: Entity | None


@dataclass(frozen=True)
class Root:
    """A root field: its rule, its arguments and what it reads."""

    key: str
    name: str
    rule: Rule | None
    arguments: Arguments
    read: ItemRead | SearchRead | CountsRead
    # ItemRead: the entity; SearchRead: (found key, entity) pairs etc. by kind.
    entity: Entity | None = None
    # SearchRead: the response keys of the found list, and of `truncated`.
    found: tuple[str, ...] = ()
    leaves: tuple[Leaf | Typename, ...] = ()
    cells: Objects | None = None
    # The response keys of a search's or a heatmap's answer, in the document's order.
    order: tuple[str, ...] = ()
