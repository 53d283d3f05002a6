"""What every attribute kind shares: whether it is shown, optional, stored under another
name or read by fewer callers, which key codec renders it into a key segment, its GraphQL
type and the most bytes it takes. The kinds themselves live beside this module, by concern.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Literal

from keys.codecs import Codec
from model.declarations import Readers

TEXT_MAX = 200
# The kinds' GraphQL scalar types (a `Choice` is its own enum).
Scalar = Literal["ID", "String", "Int", "Float", "Boolean", "DateTime", "JSON"]
# A position's axes: latitude (-90 to 90) and longitude (-180 to 180).
Axis = Literal["lat", "lon"]
# When a timestamp is set by the engine: on create only, or on every write.
Stamp = Literal["create", "write"]
# How an item holds a time: ISO 8601 text (keys always hold it so), or a number of seconds
# or milliseconds since 1970 (as other apps often write it).
TimeFormat = Literal["iso", "epoch_seconds", "epoch_millis"]


@dataclass(frozen=True, kw_only=True)
class Attribute:
    """One attribute. `shown`: a field of the entity's GraphQL type; `optional`: may be
    left out (null); `description`: the field's, in the schema; `stored`: the name its
    items hold it under, where the table's other app names it otherwise (ElectroDB's
    `field`, DynamoDB Toolbox's `savedAs`); `readers`: who may read the field."""

    shown: bool = True
    optional: bool = False
    description: str | None = None
    stored: str | None = None
    # Who may read the field (None: whoever may read the entity); others get null and a
    # FORBIDDEN error at its path.
    readers: Readers | None = None
    # Set by the engine, never by a client (a generated id, the author).
    set_by_engine: ClassVar[bool] = False
    # A list of `scalar` values in GraphQL (a set), rather than one.
    many: ClassVar[bool] = False

    @property
    def scalar(self) -> Scalar | type[StrEnum]:
        raise NotImplementedError

    @property
    def codec(self) -> Codec[Any] | None:
        """How the attribute renders into a key segment; None: it cannot be part of a key."""
        return None

    @property
    def given(self) -> bool:
        """Whether a client gives its value when the entity is created."""
        return not self.set_by_engine

    @property
    def changeable(self) -> bool:
        """Whether an update may set it (one the engine sets never is)."""
        return not self.set_by_engine

    @property
    def most_bytes(self) -> int:
        """The most bytes its stored value takes (UTF-8), for item-size bounds."""
        return 64
