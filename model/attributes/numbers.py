"""Kinds of whole numbers: one a client gives within bounds, and the ones the engine sets
(a counter, a version)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from keys.codecs import Codec, NumberCodec, WholeNumberCodec
from model.attributes.base import INT_MAX, MOST_SET_VALUES, Attribute, Creation, Holder, Scalar
from model.attributes.value_checks import number
from model.errors import ModelError


@dataclass(frozen=True, kw_only=True)
class Number(Attribute):
    """A whole number from `low` to `high`."""

    low: int = 0
    high: int = 1_000_000_000
    fixed_scalar: ClassVar[Scalar] = "Int"
    number_type: ClassVar[type[int]] = int

    @property
    def codec(self) -> Codec[Any] | None:
        return NumberCodec(len(str(self.high))) if self.low >= 0 else None

    @property
    def number_codec(self) -> Codec[Any]:
        return WholeNumberCodec()

    @property
    def domain(self) -> tuple[int, ...]:
        small = self.high - self.low < MOST_SET_VALUES
        return tuple(range(self.low, self.high + 1)) if small else ()

    @property
    def most_bytes(self) -> int:
        # DynamoDB keeps about one byte per two significant digits, and one more.
        digits = len(str(max(abs(self.low), abs(self.high))))
        return digits // 2 + 2

    def checked(self, value: Any, field: str) -> int:
        return number(value, field, self.low, self.high)

    def from_text(self, text: str) -> int:
        return int(text)

    @property
    def kind_sentence(self) -> str:
        return f"A whole number from {self.low:,} to {self.high:,}"

    def example(self, entity: Holder, name: str) -> int:
        return max(self.low, min(self.high, 1))

    def check_declaration(self, entity: Holder, where: str) -> None:
        check_whole_bounds(self.low, self.high, where)


def check_whole_bounds(low: int, high: int, where: str) -> None:
    """Raises a ModelError led by `where` unless `low` to `high` are in order, within
    GraphQL's Int."""
    if not -INT_MAX - 1 <= low <= high <= INT_MAX:
        raise ModelError(f"{where}: low to high must be in order, within GraphQL's 32-bit Int")


@dataclass(frozen=True, kw_only=True)
class EngineNumber(Attribute):
    """A whole number the engine sets, never a client."""

    set_by_engine: ClassVar[bool] = True
    fixed_scalar: ClassVar[Scalar] = "Int"
    fixed_bytes: ClassVar[int] = 21
    fixed_example: ClassVar[int] = 0
    number_type: ClassVar[type[int]] = int


@dataclass(frozen=True, kw_only=True)
class Counter(EngineNumber):
    """A count the engine keeps (0 when the entity is made), changed only by the code that
    counts: a repository's stars, its issues."""

    fixed_sentence: ClassVar[str] = "A count the engine keeps: 0 when made"

    def made(self, given: Any, creation: Creation) -> int:
        return 0

    @property
    def absent(self) -> int:
        return 0  # nothing counted yet


@dataclass(frozen=True, kw_only=True)
class Version(EngineNumber):
    """An item's version, as another app that locks optimistically keeps it: 1 when the
    entity is made, one more on each change the engine writes, so that app sees them."""

    fixed_sentence: ClassVar[str] = "The item's version: 1 when made, one more at every change"
    fixed_example: ClassVar[int] = 1

    def made(self, given: Any, creation: Creation) -> int:
        return 1

    def check_declaration(self, entity: Holder, where: str) -> None:
        if (
            len(entity.attributes_of(Version)) > 1
            or entity.copies is not None
            or entity.places is not None
        ):
            raise ModelError(
                f"{where}: one version per entity, and none on an entity with copies or"
                " places (the engine versions those itself)"
            )
