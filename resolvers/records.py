"""Strawberry types built from the access patterns' records: a field takes the record's
attribute of the same name, so each type lists its fields once (in its class body)."""

from __future__ import annotations

import dataclasses
from typing import Any, Self, TypeVar

import strawberry

T = TypeVar("T")
_INIT_FIELDS: dict[type[Any], tuple[str, ...]] = {}


def _init_fields(kind: type[Any]) -> tuple[str, ...]:
    """The fields a type is built with (fields with resolvers are not among them)."""
    names = _INIT_FIELDS.get(kind)
    if names is None:
        names = _INIT_FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind) if f.init)
    return names


def mirrored(kind: type[T], record: object, **given: Any) -> T:
    """`kind` with each field taken from `record`'s attribute of that name, but those
    `given` (a field the record holds in another form, or does not hold at all)."""
    values = {name: getattr(record, name) for name in _init_fields(kind) if name not in given}
    return kind(**values, **given)


class FromRecord:
    """For a type whose every field the record holds under the same name."""

    @classmethod
    def from_record(cls, record: object) -> Self:
        return mirrored(cls, record)


def written_by(verb: str, what: str) -> Any:
    """The field naming who wrote the item: the caller's username, null for an item written
    with identity off (no caller is known then)."""
    return strawberry.field(description=f"Who {verb} it; null for {what} {verb} with identity off.")
