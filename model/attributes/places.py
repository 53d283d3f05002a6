"""Kinds of a position: a coordinate on one axis, and the geohash the engine makes of both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from errors.vocabulary import BadUserInput
from keys.map import place_geohash
from model.attributes.base import EXAMPLE_PLACE, Attribute, Axis, Holder, Scalar


@dataclass(frozen=True, kw_only=True)
class Coordinate(Attribute):
    """One axis of a position in decimal degrees: `lat` (-90 to 90) or `lon` (-180 to 180).
    An entity with both and `places` is found by viewport (docs/model.md#places)."""

    axis: Axis
    fixed_scalar: ClassVar[Scalar] = "Float"
    fixed_bytes: ClassVar[int] = 24
    number_type: ClassVar[type[float]] = float  # a whole number is read as an int

    @property
    def limit(self) -> float:
        return 90.0 if self.axis == "lat" else 180.0

    def checked(self, value: Any, field: str) -> float:
        if not -self.limit <= float(value) <= self.limit:
            raise BadUserInput(f"{value} is outside {-self.limit:g} to {self.limit:g}", field=field)
        return float(value)

    @property
    def kind_sentence(self) -> str:
        axis = "latitude, -90" if self.axis == "lat" else "longitude, -180"
        return f"Degrees of {axis} to {axis.split('-')[1]}"

    def example(self, entity: Holder, name: str) -> float:
        return EXAMPLE_PLACE[0] if self.axis == "lat" else EXAMPLE_PLACE[1]


@dataclass(frozen=True, kw_only=True)
class Geohash(Attribute):
    """The geohash of the entity's position (12 characters), made by the engine."""

    set_by_engine: ClassVar[bool] = True
    fixed_scalar: ClassVar[Scalar] = "String"
    fixed_bytes: ClassVar[int] = 16
    fixed_sentence: ClassVar[str] = (
        "The position's geohash (12 characters), made from its coordinates"
    )

    def example(self, entity: Holder, name: str) -> str:
        return place_geohash(*EXAMPLE_PLACE)
