"""Descriptions for the whole schema: each type, field and argument derived from a model
that its declaration leaves undescribed is given a sentence (`gateway/schema/sentences.py`),
so that GraphiQL's docs explain every one; a description the model declares is kept.

They are filled in once the schema is built, by the GraphQL names the declarations derive
(`<Entity>Connection`, `<Field>Input`, a list's arguments), and change nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphql import (
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    is_specified_scalar_type,
)

from data.pattern_requests import one
from gateway.schema.sentences import (
    ARGUMENTS,
    entity_sentence,
    followed_sentence,
    list_arguments,
    pattern_sentence,
)
from model import Create, Delete, Entity, ListOf, Model, Near, Update
from model.attributes import Attribute
from model.entities import plural
from model.patterns import Pattern

# A coordinate, (type,), (type, field) or (type, field, argument), and its sentence.
Entry = tuple[tuple[str, ...], str]

# The engine's own types, the same in every model.
FIXED: dict[tuple[str, ...], str] = {
    ("Query",): "What a client reads.",
    ("Mutation",): "What a client changes: each field one write, done whole or not at all.",
    ("Subscription",): "What a client follows: each field's events as the table changes.",
    ("PageInfo",): "Where a page stands in its list.",
    ("PageInfo", "startCursor"): "The cursor of the page's first edge; null for an empty page.",
    ("PageInfo", "endCursor"): "The cursor of the page's last edge; null for an empty page.",
    ("PageInfo", "hasNextPage"): "Whether the list goes on past the page's last edge.",
    ("PageInfo", "hasPreviousPage"): "Whether the list holds items before the page's first edge.",
    ("SortDirection",): "Which way a list reads its sort key: ascending or descending.",
    ("ChangeKind",): "What happened to an item a subscription follows.",
    ("DateTimeRange", "from"): "The earliest time, inclusive.",
    ("DateTimeRange", "to"): "The latest time, inclusive.",
    ("IntRange", "from"): "The lowest number, inclusive.",
    ("IntRange", "to"): "The highest number, inclusive.",
    ("Viewport", "north"): "The northern edge, in degrees of latitude.",
    ("Viewport", "south"): "The southern edge, in degrees of latitude.",
    ("Viewport", "east"): "The eastern edge, in degrees of longitude.",
    ("Viewport", "west"): "The western edge, in degrees of longitude.",
    ("Heatmap",): "Exact counts of the items in the geohash cells meeting a viewport.",
    ("Heatmap", "precision"): "The length of the cells' geohashes, 1 to 8.",
    ("Heatmap", "cells"): "Each cell meeting the viewport that holds any item.",
    ("Cell",): "One geohash cell and the items in it.",
    ("Cell", "geohash"): "The cell's geohash.",
    ("Cell", "count"): "How many items the cell holds.",
}
# The fields of every connection and edge, by the type's last word.
PAGES: dict[tuple[str, ...], str] = {
    ("Connection",): "A page of a list, and where it stands in it.",
    ("Connection", "edges"): "The page's items, each with its cursor, in the list's order.",
    ("Connection", "pageInfo"): "Where the page stands: its cursors, and whether more lie beyond.",
    ("Edge",): "An item of a page, with its cursor.",
    ("Edge", "cursor"): "Where the item stands: give it as `after` or `before` to page from it.",
    ("Edge", "node"): "The item.",
    ("Edge", "distanceMeters"): "How far the item is from the point, in metres.",
}


def describe(schema: GraphQLSchema, model: Model) -> None:
    """Gives each undescribed type, field and argument of `schema` its sentence."""
    said: dict[tuple[str, ...], str] = {}
    for path, sentence in (*_sentences(model), *FIXED.items()):
        said.setdefault(path, sentence)  # the first: an enum is its first attribute's
    for name, kind in schema.type_map.items():
        if name.startswith("__") or is_specified_scalar_type(kind):
            continue
        page = next((w for w in ("Connection", "Edge") if name.endswith(w)), "")
        _fill(kind, said.get((name,)) or PAGES.get((page,)))
        if not isinstance(kind, GraphQLObjectType | GraphQLInterfaceType | GraphQLInputObjectType):
            continue
        for field_name, field in kind.fields.items():
            _fill(field, said.get((name, field_name)) or PAGES.get((page, field_name)))
            for argument_name, argument in getattr(field, "args", {}).items():
                own = said.get((name, field_name, argument_name))
                _fill(argument, own or ARGUMENTS.get(argument_name))


def _fill(element: Any, sentence: str | None) -> None:
    if not element.description and sentence:
        element.description = sentence


def _sentences(model: Model) -> Iterator[Entry]:
    for entity in model.entities:
        yield from _entity(model, entity)
    for pattern in model.patterns:
        yield from _pattern(model, pattern)


def _entity(model: Model, entity: Entity) -> Iterator[Entry]:
    name, noun = entity.name, entity.noun
    yield (name,), entity_sentence(entity)
    for attribute_name, attribute in entity.attributes.items():
        yield (name, attribute_name), attribute.sentence
        yield from attribute.type_sentences(f"{one(noun)}'s {attribute_name}")
    parent = model.parent_of(entity)
    if parent is not None and entity.parent is not None and entity.parent.field is not None:
        belongs = f"The {parent.noun} this {noun} belongs to, read by its key."
        yield (name, entity.parent.field), belongs
    connection, edge, change = f"{name}Connection", f"{name}Edge", f"{name}Change"
    yield (connection,), f"A page of {plural(noun)}, and where it stands in its list."
    yield (edge,), f"{one(noun, capital=True)} of a page, with its cursor."
    yield (edge, "node"), f"The {noun}."
    yield (change,), f"A change to {one(noun)} a subscription follows."
    yield (change, "kind"), "What happened: ADDED, CHANGED or REMOVED."
    for key_name in entity.key_attributes:
        yield (change, key_name), entity.attributes[key_name].sentence
    yield (change, entity.field_name), f"The {noun} as it is now; null once it is removed."


def _pattern(model: Model, pattern: Pattern) -> Iterator[Entry]:
    entity, field = pattern.entity, pattern.field
    noun, many = entity.noun, plural(entity.noun)
    declared: str | None = getattr(pattern, "description", None)  # lookups, creates: none
    sentence = declared or pattern_sentence(model, pattern)
    if isinstance(pattern, ListOf):
        yield from _list(model, pattern, sentence)
        return
    root = "Mutation" if isinstance(pattern, Create | Update | Delete) else "Query"
    yield (root, field), sentence
    # A lookup's, a delete's and an inline update's arguments are attributes.
    for name, attribute in entity.attributes.items():
        yield (root, field, name), _argument(entity, name, attribute, pattern)
    kind = f"{field[0].upper()}{field[1:]}Input"
    if isinstance(pattern, Create | Update):
        for name, attribute in entity.attributes.items():
            yield (kind, name), _argument(entity, name, attribute, pattern)
    if isinstance(pattern, Create):
        yield (root, field, "input"), f"The new {noun}."
        yield (kind,), f"What a client gives to create {one(noun)}."
    elif isinstance(pattern, Update):
        yield (root, field, "input"), f"The {noun}'s key and its changes."
        changes = "its changes: what is left out stays as it is"
        yield (kind,), f"{one(noun, capital=True)}'s key and {changes}."
    elif isinstance(pattern, Near):
        search = f"{entity.name}Search"
        yield (search,), f"The {many} inside a viewport, at most `limit` of them."
        yield (search, entity.plural_field), f"The {many} found."
        yield (search, "truncated"), "Whether more lie inside the viewport than `limit`."
        if pattern.subscription is not None:
            said = pattern.subscription_description or followed_sentence(pattern)
            yield ("Subscription", pattern.subscription), said


def _argument(entity: Entity, name: str, attribute: Attribute, pattern: Pattern) -> str:
    """An attribute given as an argument: what it holds, and for a key naming an existing
    item, whose key it is ("The order's eventId (part of its key): an identifier: …")."""
    said = attribute.sentence
    if isinstance(pattern, Create) or name not in entity.key_attributes:
        return said
    part = "its key" if len(entity.key_attributes) == 1 else "part of its key"
    return f"The {entity.noun}'s {name} ({part}): {said[:1].lower()}{said[1:]}"


def _list(model: Model, pattern: ListOf, sentence: str) -> Iterator[Entry]:
    parent = model.parent_of(pattern.entity)
    holder = "Query" if pattern.root or parent is None else parent.name
    yield (holder, pattern.field), sentence
    if pattern.subscription is not None:
        said = pattern.subscription_description or followed_sentence(pattern)
        yield ("Subscription", pattern.subscription), said
    attributes = pattern.entity.attributes.items()
    arguments = {**{n: a.sentence for n, a in attributes}, **list_arguments(pattern)}
    for name, argument in arguments.items():
        yield (holder, pattern.field, name), argument
        if pattern.subscription is not None:
            yield ("Subscription", pattern.subscription, name), argument
