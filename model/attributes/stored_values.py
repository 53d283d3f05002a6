"""Kinds for values as DynamoDB holds them, which tables written by other apps use: numbers
that need not be whole, booleans, string and number sets, and lists and maps of any shape;
and their checks and forms, both ways.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass
from math import isfinite
from typing import Any, ClassVar

from errors.vocabulary import BadUserInput
from model.attributes.base import TEXT_MAX, Attribute, Holder, Scalar
from model.attributes.numbers import Number, check_whole_bounds
from model.attributes.value_checks import number, text
from model.errors import ModelError

# A set's most values by default: a hundred keeps an item well under DynamoDB's 400 KB.
SET_MOST = 100
# The most values a set may declare, and the most bytes of JSON an attribute may hold.
SET_MOST_DECLARED = 1000
JSON_MOST = 64 * 1024
# DynamoDB's deepest nesting of lists and maps.
JSON_DEPTH = 32


@dataclass(frozen=True, kw_only=True)
class Real(Attribute):
    """A number that need not be whole (a price in units, a rating's mean), from `low` to
    `high`; stored as DynamoDB's number, shown as GraphQL's Float."""

    low: float = -1e15
    high: float = 1e15
    fixed_scalar: ClassVar[Scalar] = "Float"
    fixed_bytes: ClassVar[int] = 21
    number_type: ClassVar[type[float]] = float  # a whole number is read as an int

    def checked(self, value: Any, field: str) -> float:
        real = float(value)
        if not isfinite(real) or not self.low <= real <= self.high:
            raise BadUserInput(f"{value} is outside {self.low:g} to {self.high:g}", field=field)
        return real

    @property
    def kind_sentence(self) -> str:
        return f"A number from {self.low:g} to {self.high:g}"

    def example(self, entity: Holder, name: str) -> float:
        return max(self.low, min(self.high, 1.5))

    def check_declaration(self, entity: Holder, where: str) -> None:
        if not (isfinite(self.low) and isfinite(self.high) and self.low <= self.high):
            raise ModelError(f"{where}: low to high must be finite numbers, in order")


@dataclass(frozen=True, kw_only=True)
class Flag(Attribute):
    """True or false (DynamoDB's BOOL); its example is GraphQL's Boolean's, true."""

    fixed_scalar: ClassVar[Scalar] = "Boolean"
    fixed_bytes: ClassVar[int] = 1
    fixed_sentence: ClassVar[str] = "True or false"

    def checked(self, value: Any, field: str) -> bool:
        if not isinstance(value, bool):
            raise BadUserInput("must be true or false", field=field)
        return value


class _Set(Attribute):
    """What both kinds of set share: up to `most` distinct values, held as a set and none
    when empty (DynamoDB holds no empty set), shown in order. Not a dataclass: each kind
    declares its own fields, in its own order."""

    most: int
    many: ClassVar[bool] = True

    def to_stored(self, value: Any) -> set[Any] | None:
        return set(value) or None

    def from_stored(self, value: Any) -> list[Any]:
        return sorted(value)

    def check_declaration(self, entity: Holder, where: str) -> None:
        if not 1 <= self.most <= SET_MOST_DECLARED:
            raise ModelError(f"{where}: a set holds 1 to {SET_MOST_DECLARED} values")

    def _at_most(self, values: set[Any], field: str) -> list[Any]:
        if len(values) > self.most:
            raise BadUserInput(f"{len(values)} distinct values; at most {self.most}", field=field)
        return sorted(values)


@dataclass(frozen=True, kw_only=True)
class TextSet(_Set):
    """A set of up to `most` distinct texts (DynamoDB's string set, `SS`), each of 1 to
    `max_length` characters; shown sorted. DynamoDB holds no empty set: an empty one is no
    attribute, and an item without it reads as empty."""

    max_length: int = TEXT_MAX
    most: int = SET_MOST
    fixed_scalar: ClassVar[Scalar] = "String"

    @property
    def most_bytes(self) -> int:
        return self.most * 4 * self.max_length

    def checked(self, value: Any, field: str) -> list[str]:
        return self._at_most({text(t, field, self.max_length) for t in value}, field)

    @property
    def kind_sentence(self) -> str:
        return f"Distinct texts of 1 to {self.max_length:,} characters, at most {self.most}, sorted"

    def example(self, entity: Holder, name: str) -> list[str]:
        return [f"{name}-a", f"{name}-b"]

    def check_declaration(self, entity: Holder, where: str) -> None:
        super().check_declaration(entity, where)
        if not 1 <= self.max_length <= 10_000:
            raise ModelError(f"{where}: each text of a set is 1 to 10,000 characters")


@dataclass(frozen=True, kw_only=True)
class NumberSet(_Set):
    """A set of up to `most` distinct whole numbers from `low` to `high` (DynamoDB's number
    set, `NS`); shown in order, empty as `TextSet` is."""

    low: int = 0
    high: int = 1_000_000_000
    most: int = SET_MOST
    fixed_scalar: ClassVar[Scalar] = "Int"

    @property
    def most_bytes(self) -> int:
        return self.most * Number(low=self.low, high=self.high).most_bytes

    def checked(self, value: Any, field: str) -> list[int]:
        return self._at_most({number(n, field, self.low, self.high) for n in value}, field)

    @property
    def kind_sentence(self) -> str:
        return (
            f"Distinct whole numbers from {self.low:,} to {self.high:,}, at most"
            f" {self.most}, in order"
        )

    def example(self, entity: Holder, name: str) -> list[int]:
        return sorted({self.low, min(self.high, self.low + 1)})

    def check_declaration(self, entity: Holder, where: str) -> None:
        super().check_declaration(entity, where)
        check_whole_bounds(self.low, self.high, where)


@dataclass(frozen=True, kw_only=True)
class Json(Attribute):
    """Lists and maps of any shape (DynamoDB's `L` and `M`), shown and given as GraphQL's
    JSON scalar, of at most `most_bytes` once written as JSON. For a list of objects of
    known fields, `Lines` types them."""

    limit: int = 16 * 1024
    fixed_scalar: ClassVar[Scalar] = "JSON"

    @property
    def most_bytes(self) -> int:
        return self.limit

    def checked(self, value: Any, field: str) -> Any:
        if not isinstance(value, list | dict):
            raise BadUserInput("must be a JSON list or object", field=field)
        try:
            written = json.dumps(value, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError):
            raise BadUserInput("holds a value JSON cannot", field=field) from None
        if len(written.encode()) > self.limit:
            raise BadUserInput(f"over {self.limit:,} bytes as JSON", field=field)
        if _depth(value) > JSON_DEPTH:
            raise BadUserInput(f"nested over {JSON_DEPTH} levels", field=field)
        return value

    def from_stored(self, value: Any) -> Any:
        return json_loaded(value)

    @property
    def kind_sentence(self) -> str:
        return f"A list or an object, at most {self.limit:,} bytes as JSON"

    def example(self, entity: Holder, name: str) -> Any:
        return {"example": True}

    def check_declaration(self, entity: Holder, where: str) -> None:
        if not 2 <= self.limit <= JSON_MOST:
            raise ModelError(f"{where}: JSON of 2 to {JSON_MOST:,} bytes")


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def json_loaded(value: Any) -> Any:
    """A stored list or map as JSON shows it: sets as sorted lists, binaries as base64."""
    if isinstance(value, Mapping):
        return {name: json_loaded(v) for name, v in value.items()}
    if isinstance(value, list):
        return [json_loaded(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(json_loaded(v) for v in value)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    if hasattr(value, "value") and isinstance(value.value, bytes):  # boto3's Binary
        return base64.b64encode(value.value).decode()
    return value
