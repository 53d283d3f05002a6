"""How the schema differs from an older one, as its clients see it, and which client
documents it rejects (`dynagate schema-diff`, and the `schema.graphql` snapshot test).

graphql-core's `find_schema_changes` names each change and classes it breaking, dangerous
or safe (its `find_breaking_changes` and `find_dangerous_changes` are that list filtered);
deprecations, which it leaves out, are added here as safe changes. Pure: texts in, values
out."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLEnumValue,
    GraphQLError,
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    Source,
    build_schema,
    parse,
    validate,
)
from graphql.utilities import BreakingChangeType, DangerousChangeType, find_schema_changes

Kind = Literal["breaking", "dangerous", "safe"]
KINDS: tuple[Kind, ...] = get_args(Kind)

_Member = GraphQLField | GraphQLArgument | GraphQLInputField | GraphQLEnumValue
_Fielded = (GraphQLObjectType, GraphQLInterfaceType)


@dataclass(frozen=True)
class Change:
    kind: Kind
    type: str | None  # graphql-core's name for it (FIELD_REMOVED…); None for deprecations
    description: str


class Unreadable(ValueError):
    """A schema or a manifest that does not parse; the message is one line naming it."""


def parse_schema(sdl: str, name: str = "schema") -> GraphQLSchema:
    try:
        return build_schema(Source(sdl, name))
    except GraphQLError as exc:  # syntax
        where = "".join(f":{at.line}:{at.column}" for at in (exc.locations or [])[:1])
        raise Unreadable(f"{name}{where}: {exc.message}") from exc
    except TypeError as exc:  # graphql-core's SDL validation, its messages a paragraph each
        raise Unreadable(f"{name}: {' '.join(str(exc).split())}") from exc


def schema_changes(old: str | GraphQLSchema, new: str | GraphQLSchema) -> list[Change]:
    """Every difference a client can see, breaking first, then dangerous, then safe."""
    old_schema, new_schema = _schema(old), _schema(new)
    changes = [
        Change(_kind(change.type), change.type.name, change.description)
        for change in find_schema_changes(old_schema, new_schema)
    ]
    changes.extend(_deprecations(old_schema, new_schema))
    return sorted(changes, key=lambda change: KINDS.index(change.kind))


def rejected_documents(
    schema: str | GraphQLSchema, documents: Mapping[str, str]
) -> dict[str, list[str]]:
    """The documents (id → text) that do not parse or do not validate against `schema`,
    with their messages."""
    checked = _schema(schema)
    rejected: dict[str, list[str]] = {}
    for document_id, text in documents.items():
        try:
            errors = validate(checked, parse(text))
        except GraphQLError as exc:
            errors = [exc]
        if errors:
            rejected[document_id] = [error.message for error in errors]
    return rejected


def load_manifest(text: str, name: str = "manifest") -> dict[str, str]:
    """The documents of a manifest: a JSON object of id → document (Relay's, GraphQL
    Codegen's), or Apollo's persisted query manifest (`operations` of `id` and `body`)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise Unreadable(f"{name}: not JSON ({exc})") from exc
    if isinstance(data, dict) and data.get("format") == "apollo-persisted-query-manifest":
        operations = data.get("operations")
        if isinstance(operations, list) and all(
            isinstance(op, dict)
            and isinstance(op.get("id"), str)
            and isinstance(op.get("body"), str)
            for op in operations
        ):
            return {op["id"]: op["body"] for op in operations}
    elif isinstance(data, dict) and all(isinstance(value, str) for value in data.values()):
        return data
    raise Unreadable(f"{name}: not a JSON object of id → document")


def render(changes: list[Change], rejected: Mapping[str, list[str]] | None = None) -> list[str]:
    """The changes grouped by kind, one a line, then the rejected documents, then totals."""
    lines: list[str] = []
    for kind in KINDS:
        group = [change for change in changes if change.kind == kind]
        if group:
            lines.append(f"{kind}:")
            lines.extend(f"  {_named(change)}" for change in group)
    if rejected:
        lines.append("rejected documents:")
        lines.extend(
            f"  {id_}: {message}" for id_, messages in rejected.items() for message in messages
        )
    totals = ", ".join(f"{sum(c.kind == kind for c in changes)} {kind}" for kind in KINDS)
    documents = f"; {len(rejected)} rejected documents" if rejected is not None else ""
    return [*lines, f"{totals} changes{documents}"]


def _named(change: Change) -> str:
    return change.description if change.type is None else f"{change.type}: {change.description}"


def _schema(schema: str | GraphQLSchema) -> GraphQLSchema:
    return parse_schema(schema) if isinstance(schema, str) else schema


def _kind(change_type: object) -> Kind:
    if isinstance(change_type, BreakingChangeType):
        return "breaking"
    return "dangerous" if isinstance(change_type, DangerousChangeType) else "safe"


def _deprecations(old: GraphQLSchema, new: GraphQLSchema) -> Iterator[Change]:
    for name, old_type in old.type_map.items():
        new_type = new.type_map.get(name)
        if new_type is None or name.startswith("__"):
            continue
        for coordinate, before, after in _members(old_type, new_type):
            reason = after.deprecation_reason
            if before.deprecation_reason == reason:
                continue
            if reason is None:
                description = f"{coordinate} is no longer deprecated."
            elif before.deprecation_reason is None:
                description = f'{coordinate} was deprecated: "{reason}".'
            else:
                description = f'Deprecation reason of {coordinate} has changed to "{reason}".'
            yield Change("safe", None, description)


def _members(
    old: GraphQLNamedType, new: GraphQLNamedType
) -> Iterator[tuple[str, _Member, _Member]]:
    """The fields, arguments, input fields and enum values both types have, by coordinate."""
    if isinstance(old, _Fielded) and isinstance(new, _Fielded):
        for field_name, field in old.fields.items():
            if (new_field := new.fields.get(field_name)) is None:
                continue
            yield f"{old.name}.{field_name}", field, new_field
            for arg_name, arg in field.args.items():
                if (new_arg := new_field.args.get(arg_name)) is not None:
                    yield f"{old.name}.{field_name}({arg_name}:)", arg, new_arg
    elif isinstance(old, GraphQLInputObjectType) and isinstance(new, GraphQLInputObjectType):
        for field_name, input_field in old.fields.items():
            if (new_input := new.fields.get(field_name)) is not None:
                yield f"{old.name}.{field_name}", input_field, new_input
    elif isinstance(old, GraphQLEnumType) and isinstance(new, GraphQLEnumType):
        for value_name, value in old.values.items():
            if (new_value := new.values.get(value_name)) is not None:
                yield f"{old.name}.{value_name}", value, new_value
