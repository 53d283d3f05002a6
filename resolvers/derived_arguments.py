"""The arguments of a declared model's fields (`model/`): resolvers are made per pattern,
and Strawberry reads their arguments from the signature each is given, so the schema shows
exactly the declared arguments; a list's own arguments (equality, range, direction) are
turned into its checked narrowing here."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from datetime import datetime
from enum import Enum
from functools import cache
from typing import Any, TypeVar

import strawberry
from strawberry.scalars import JSON

from data.entity_lists import Narrowed, narrowed
from model import ListOf
from model.attributes import Attribute
from model.attributes.base import LineShape
from resolvers.context import Context
from resolvers.relay import NOT_GIVEN, given
from resolvers.scalars import DateTimeRange, SortDirection

Info = strawberry.Info[Context, None]
E = TypeVar("E", bound=Enum)
# An argument's type, and its default (`REQUIRED`: none).
Parameters = Mapping[str, tuple[Any, Any]]
REQUIRED = inspect.Parameter.empty
_SCALARS: Mapping[str, Any] = {
    "ID": strawberry.ID,
    "String": str,
    "Int": int,
    "Float": float,
    "Boolean": bool,
    "DateTime": datetime,
    "JSON": JSON,
}


def graphql_type(attribute: Attribute, *, given: bool = False) -> Any:
    """The Python type Strawberry shows `attribute` as (an enum registered once); `given`:
    as an input takes it (lines differ)."""
    lines = attribute.as_lines
    if lines is not None:
        return list[line_types(lines)[1 if given else 0]]  # type: ignore[misc]
    scalar = attribute.scalar
    kind = _SCALARS[scalar] if isinstance(scalar, str) else enum(scalar)
    if attribute.many:  # a set: read as a list, empty when the item holds none
        return list[kind] | None if given and attribute.optional else list[kind]  # type: ignore[valid-type]
    return kind | None if attribute.optional else kind


# Each `Lines` attribute's object and input types, made once (by identity: two models may
# declare lines of one name differently).
_LINE_TYPES: dict[int, tuple[LineShape, type[Any], type[Any]]] = {}


def line_types(attribute: LineShape) -> tuple[type[Any], type[Any]]:
    """The object type of one line (its number first) and the input type of one."""
    made = _LINE_TYPES.get(id(attribute))
    if made is None:
        fields = {n: graphql_type(a) for n, a in attribute.fields.items()}
        shown = {"__annotations__": {attribute.numbered: int, **fields}}
        taken = {"__annotations__": fields}
        made = (
            attribute,
            strawberry.type(type(attribute.name, (), shown)),
            strawberry.input(type(f"{attribute.name}Input", (), taken)),
        )
        _LINE_TYPES[id(attribute)] = made
    return made[1], made[2]


def enum(values: type[E]) -> type[E]:
    if not hasattr(values, "__strawberry_definition__"):
        strawberry.enum(values)
    return values


def signed(
    resolve: Callable[..., Any], name: str, parameters: Parameters, returns: Any
) -> Callable[..., Any]:
    """`resolve(self, info, **arguments)` as Strawberry sees a resolver named `name` with
    these parameters and return type."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    resolve.__name__ = name
    resolve.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
            inspect.Parameter("info", keyword, annotation=Info),
            *(
                inspect.Parameter(n, keyword, annotation=t, default=d)
                for n, (t, d) in parameters.items()
            ),
        ],
        return_annotation=returns,
    )
    return resolve


def list_parameters(
    pattern: ListOf, *, partition: bool, subscription: bool = False
) -> dict[str, tuple[Any, Any]]:
    """A list's arguments: its partition's attributes (for a root list or a subscription;
    not those it fixes), then the equalities, the range and the direction it declares (a
    subscription no direction, since it follows changes, and the range if declared so)."""
    entity = pattern.entity
    parameters: dict[str, tuple[Any, Any]] = {}
    keys = entity.keys_on(pattern.index)
    assert keys is not None  # checked when the model is built
    if partition:
        for name in keys.partition.attributes:
            if name not in pattern.at:
                parameters[name] = (graphql_type(entity.attributes[name]), REQUIRED)
    for name in pattern.equal:
        parameters[name] = (graphql_type(entity.attributes[name]) | None, NOT_GIVEN)
    for name in pattern.either:
        parameters[name] = (graphql_type(entity.attributes[name]) | None, NOT_GIVEN)
    for name, argument in pattern.sets.items():
        values = graphql_type(entity.attributes[name])
        parameters[argument] = (list[values] | None, NOT_GIVEN)  # type: ignore[valid-type]
    if pattern.range is not None and not (subscription and not pattern.subscription_range):
        bounded = entity.attributes[pattern.range.attribute]
        parameters[pattern.range.argument] = (range_input(bounded) | None, NOT_GIVEN)
    for name in pattern.filtered:
        parameters[name] = (graphql_type(entity.attributes[name]) | None, NOT_GIVEN)
    if pattern.direction and not subscription:
        default = SortDirection.DESC if pattern.descending else SortDirection.ASC
        parameters["direction"] = (SortDirection | None, default)
    return parameters


def narrowing(pattern: ListOf, arguments: Mapping[str, Any]) -> Narrowed:
    """The list's own arguments, as the resolver receives them, checked."""
    # A list of copies is narrowed by the copies' filters instead (`model/list_checks.py`).
    equal = {name: given(arguments.get(name)) for name in (*pattern.equal, *pattern.either)}
    span = None
    if pattern.range is not None:
        bounds = given(arguments.get(pattern.range.argument))
        span = None if bounds is None else (given(bounds.from_), given(bounds.to))
    direction = given(arguments.get("direction")) if pattern.direction else None
    forward = None if direction is None else direction is SortDirection.ASC
    only = {name: given(arguments.get(name)) for name in pattern.filtered}
    sets = {name: given(arguments.get(argument)) for name, argument in pattern.sets.items()}
    return narrowed(pattern, equal, span, forward, only, sets)


def range_input(attribute: Attribute) -> Any:
    """The input type of a range over `attribute`: `DateTimeRange`, `IntRange`, …"""
    scalar = attribute.scalar
    if scalar == "DateTime":
        return DateTimeRange
    assert isinstance(scalar, str), "a range over an enum orders nothing"
    return _range_of(scalar)


@cache
def _range_of(scalar: str) -> Any:
    kind = _SCALARS[scalar] | None
    namespace = {
        "__annotations__": {"from_": kind, "to": kind},
        "from_": strawberry.field(name="from", default=strawberry.UNSET),
        "to": strawberry.UNSET,
    }
    description = "Both bounds inclusive; at least one."
    return strawberry.input(type(f"{scalar}Range", (), namespace), description=description)
