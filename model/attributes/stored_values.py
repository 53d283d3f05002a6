"""Kinds for values as DynamoDB holds them, which tables written by other apps use: numbers
that need not be whole, booleans, string and number sets, and lists and maps of any shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from model.attributes.base import TEXT_MAX, Attribute, Scalar
from model.attributes.numbers import Number

# A set's most values by default: a hundred keeps an item well under DynamoDB's 400 KB.
SET_MOST = 100


@dataclass(frozen=True, kw_only=True)
class Real(Attribute):
    """A number that need not be whole (a price in units, a rating's mean), from `low` to
    `high`; stored as DynamoDB's number, shown as GraphQL's Float."""

    low: float = -1e15
    high: float = 1e15

    @property
    def scalar(self) -> Scalar:
        return "Float"

    @property
    def most_bytes(self) -> int:
        return 21


@dataclass(frozen=True, kw_only=True)
class Flag(Attribute):
    """True or false (DynamoDB's BOOL)."""

    @property
    def scalar(self) -> Scalar:
        return "Boolean"

    @property
    def most_bytes(self) -> int:
        return 1


@dataclass(frozen=True, kw_only=True)
class TextSet(Attribute):
    """A set of up to `most` distinct texts (DynamoDB's string set, `SS`), each of 1 to
    `max_length` characters; shown sorted. DynamoDB holds no empty set: an empty one is no
    attribute, and an item without it reads as empty."""

    max_length: int = TEXT_MAX
    most: int = SET_MOST
    many: ClassVar[bool] = True

    @property
    def scalar(self) -> Scalar:
        return "String"

    @property
    def most_bytes(self) -> int:
        return self.most * 4 * self.max_length


@dataclass(frozen=True, kw_only=True)
class NumberSet(Attribute):
    """A set of up to `most` distinct whole numbers from `low` to `high` (DynamoDB's number
    set, `NS`); shown in order, empty as `TextSet` is."""

    low: int = 0
    high: int = 1_000_000_000
    most: int = SET_MOST
    many: ClassVar[bool] = True

    @property
    def scalar(self) -> Scalar:
        return "Int"

    @property
    def most_bytes(self) -> int:
        return self.most * Number(low=self.low, high=self.high).most_bytes


@dataclass(frozen=True, kw_only=True)
class Json(Attribute):
    """Lists and maps of any shape (DynamoDB's `L` and `M`), shown and given as GraphQL's
    JSON scalar, of at most `most_bytes` once written as JSON. For a list of objects of
    known fields, `Lines` types them."""

    limit: int = 16 * 1024

    @property
    def scalar(self) -> Scalar:
        return "JSON"

    @property
    def most_bytes(self) -> int:
        return self.limit
