"""Kinds of a position: a coordinate on one axis, and the geohash the engine makes of both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from model.attributes.base import Attribute, Axis, Scalar


@dataclass(frozen=True, kw_only=True)
class Coordinate(Attribute):
    """One axis of a position in decimal degrees: `lat` (-90 to 90) or `lon` (-180 to 180).
    An entity with both and `places` is found by viewport (docs/model.md#places)."""

    axis: Axis

    @property
    def scalar(self) -> Scalar:
        return "Float"

    @property
    def limit(self) -> float:
        return 90.0 if self.axis == "lat" else 180.0

    @property
    def most_bytes(self) -> int:
        return 24


@dataclass(frozen=True, kw_only=True)
class Geohash(Attribute):
    """The geohash of the entity's position (12 characters), made by the engine."""

    set_by_engine: ClassVar[bool] = True

    @property
    def scalar(self) -> Scalar:
        return "String"

    @property
    def most_bytes(self) -> int:
        return 16
