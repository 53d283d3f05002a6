"""Every type, field and argument of the shipped models' schemas says what it is (GraphiQL's
docs pane): a description from the model where its declaration gives none, one short
sentence; and descriptions change no name, type or default of the schema."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from graphql import (
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    build_schema,
    find_breaking_changes,
    find_dangerous_changes,
    is_specified_scalar_type,
    print_schema,
)

from gateway.schema.build import build_schema as build_gateway_schema
from gateway.served_model import served
from resolvers.strawberry_internals import core_schema

MODELS = ("demo.model", "examples.booking.model", "tests.model.library")
# One sentence: GraphiQL shows it beside the name.
LONGEST = 200


def described(schema: GraphQLSchema) -> Iterator[tuple[str, str | None]]:
    """Each type, field and argument but the introspection's and the built-in scalars', by
    its coordinate, with its description."""
    for name, kind in schema.type_map.items():
        if name.startswith("__") or is_specified_scalar_type(kind):
            continue
        yield name, kind.description
        if not isinstance(kind, GraphQLObjectType | GraphQLInterfaceType | GraphQLInputObjectType):
            continue
        for field_name, field in kind.fields.items():
            yield f"{name}.{field_name}", field.description
            for argument_name, argument in getattr(field, "args", {}).items():
                yield f"{name}.{field_name}({argument_name})", argument.description


def exported(model: str) -> GraphQLSchema:
    return core_schema(build_gateway_schema(roots=served(model)))


@pytest.mark.parametrize("model", MODELS)
def test_every_type_field_and_argument_is_described(model: str) -> None:
    missing = [where for where, text in described(exported(model)) if not text]
    assert missing == []


@pytest.mark.parametrize("model", MODELS)
def test_each_description_is_one_short_sentence(model: str) -> None:
    said = described(exported(model))
    long = [(where, text) for where, text in said if len(text or "") > LONGEST]
    assert long == []


def _without_descriptions(schema: GraphQLSchema) -> GraphQLSchema:
    sdl = print_schema(schema)
    bare = build_schema(sdl)
    for _, kind in bare.type_map.items():
        kind.description = None
        for field in getattr(kind, "fields", {}).values():
            field.description = None
            for argument in getattr(field, "args", {}).values():
                argument.description = None
    return build_schema(print_schema(bare))


@pytest.mark.parametrize("model", MODELS)
def test_descriptions_change_no_name_or_type(model: str) -> None:
    """The schema derived without the descriptions it is given, against the exported one."""
    roots = served(model)
    plain = core_schema(build_gateway_schema(roots=replace(roots, types=None)))
    given = exported(model)
    assert [t for t, text in described(plain) if not text]  # what the model leaves undescribed
    before, after = _without_descriptions(plain), _without_descriptions(given)
    assert find_breaking_changes(before, after) == []
    assert find_dangerous_changes(before, after) == []
    assert print_schema(before) == print_schema(after)


def test_a_key_argument_says_whose_key_it_is() -> None:
    said = dict(described(exported("tests.model.ticketing")))
    assert said["Query.event(id)"] == (
        "The event's id (its key): an identifier: 1 to 64 letters, digits, '.', '_' or '-'."
    )
    assert str(said["Query.order(eventId)"]).startswith("The order's eventId (part of its key):")
    assert str(said["Mutation.reseat(seats)"]).startswith("A whole number")
    # A create's key is the new item's: nothing exists yet.
    assert not str(said["AddEventInput.id"]).startswith("The event's")


def test_a_write_says_the_requests_of_its_kind_of_keeping() -> None:
    said = dict(described(exported("demo.model")))
    # An order is its own item alone; a comment keeps copies, moved with it in one transaction.
    assert str(said["Mutation.setOrderStatus"]).startswith(
        "Changes an order named by its key: UpdateItem of ORDER#<id>"
    )
    assert "then TransactWriteItems (the item, its copies" in str(said["Mutation.editComment"])
    # A delete of either reads the item first, then removes it with its copies, or its place.
    assert "GetItem (consistent), then" in str(said["Mutation.deleteComment"])
    assert "its place and the counts of its cells" in str(said["Mutation.removeMarker"])
