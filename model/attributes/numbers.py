"""Kinds of whole numbers: one a client gives within bounds, and the ones the engine sets
(a counter, a version)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from keys.codecs import Codec, NumberCodec
from model.attributes.base import INT_MAX, Attribute, Scalar
from model.attributes.value_checks import number
from model.errors import ModelError

if TYPE_CHECKING:
    from model.entities import Entity


@dataclass(frozen=True, kw_only=True)
class Number(Attribute):
    """A whole number from `low` to `high`."""

    low: int = 0
    high: int = 1_000_000_000

    @property
    def scalar(self) -> Scalar:
        return "Int"

    @property
    def codec(self) -> Codec[Any] | None:
        return NumberCodec(len(str(self.high))) if self.low >= 0 else None

    @property
    def most_bytes(self) -> int:
        # DynamoDB keeps about one byte per two significant digits, and one more.
        digits = len(str(max(abs(self.low), abs(self.high))))
        return digits // 2 + 2

    def checked(self, value: Any, field: str) -> int:
        return number(value, field, self.low, self.high)

    def from_stored(self, value: Any) -> int:
        return int(value)

    @property
    def kind_sentence(self) -> str:
        return f"A whole number from {self.low:,} to {self.high:,}"

    def example(self, entity: Entity, name: str) -> int:
        return max(self.low, min(self.high, 1))

    def check_declaration(self, entity: Entity, where: str) -> None:
        if not -INT_MAX - 1 <= self.low <= self.high <= INT_MAX:
            raise ModelError(f"{where}: low to high must be in order, within GraphQL's 32-bit Int")


@dataclass(frozen=True, kw_only=True)
class EngineNumber(Attribute):
    """A whole number the engine sets, never a client."""

    set_by_engine: ClassVar[bool] = True

    @property
    def scalar(self) -> Scalar:
        return "Int"

    @property
    def most_bytes(self) -> int:
        return 21

    def from_stored(self, value: Any) -> int:
        return int(value)

    def example(self, entity: Entity, name: str) -> int:
        return 0


@dataclass(frozen=True, kw_only=True)
class Counter(EngineNumber):
    """A count the engine keeps (0 when the entity is made), changed only by the code that
    counts: a repository's stars, its issues."""

    @property
    def absent(self) -> int:
        return 0  # nothing counted yet

    @property
    def kind_sentence(self) -> str:
        return "A count the engine keeps: 0 when made"


@dataclass(frozen=True, kw_only=True)
class Version(EngineNumber):
    """An item's version, as another app that locks optimistically keeps it: 1 when the
    entity is made, one more on each change the engine writes, so that app sees them."""

    @property
    def kind_sentence(self) -> str:
        return "The item's version: 1 when made, one more at every change"

    def example(self, entity: Entity, name: str) -> int:
        return 1

    def check_declaration(self, entity: Entity, where: str) -> None:
        versions = [a for a in entity.attributes.values() if isinstance(a, Version)]
        if len(versions) > 1 or entity.copies is not None or entity.places is not None:
            raise ModelError(
                f"{where}: one version per entity, and none on an entity with copies or"
                " places (the engine versions those itself)"
            )
