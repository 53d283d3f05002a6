"""Kinds of whole numbers: one a client gives within bounds, and the ones the engine sets
(a counter, a version)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from keys.codecs import Codec, NumberCodec
from model.attributes.base import Attribute, Scalar


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


@dataclass(frozen=True, kw_only=True)
class Counter(EngineNumber):
    """A count the engine keeps (0 when the entity is made), changed only by the code that
    counts: a repository's stars, its issues."""


@dataclass(frozen=True, kw_only=True)
class Version(EngineNumber):
    """An item's version, as another app that locks optimistically keeps it: 1 when the
    entity is made, one more on each change the engine writes, so that app sees them."""
