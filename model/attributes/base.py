"""What every attribute kind shares: whether it is shown, optional, stored under another
name or read by fewer callers, which key codec renders it into a key segment, its GraphQL
type and the most bytes it takes; and what each kind does itself, this module's being the
default: check a client's value, convert it to the form its item holds and back, say what
it holds for the schema, make an example value, and check its own declaration. The kinds
live beside this module, by concern.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from errors.vocabulary import BadUserInput
from keys.codecs import Codec
from model.declarations import Readers

if TYPE_CHECKING:
    from model.entities import Entity

TEXT_MAX = 200
# GraphQL's Int: 32 bits, signed.
INT_MAX = 2**31 - 1
# One moment and one place for every example value, so that a chart is the same each time
# it is made.
EXAMPLE_TIME = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
EXAMPLE_PLACE = (48.8566, 2.3522)
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
    # Held under the engine's own attribute names, not its own (the author, beside the
    # caller's key: `data/callers`), so read and written apart from the others.
    engine_held: ClassVar[bool] = False

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

    def accepted(self, value: Any, field: str) -> Any:
        """A client's `value` as it is kept (None where it may be left out), or
        BAD_USER_INPUT naming `field`."""
        if value is None:
            if self.optional:
                return None
            raise BadUserInput("must be given", field=field)
        return self.checked(value, field)

    def checked(self, value: Any, field: str) -> Any:
        """A client's `value` (not None) as it is kept, or BAD_USER_INPUT naming `field`; a
        kind without bounds keeps it as given."""
        return value

    def to_stored(self, value: Any) -> Any:
        """A kept value (not None) as its item holds it; None: the item holds nothing."""
        return value

    def from_stored(self, value: Any) -> Any:
        """The value its item holds (not None) as a record has it."""
        return value

    @property
    def absent(self) -> Any:
        """What an item holding no value reads as (DynamoDB holds no empty set); None: an
        item holds it, or its key does."""
        return [] if self.many else None

    @property
    def kind_sentence(self) -> str:
        """What a value of the kind is, from its bounds, for the schema's descriptions."""
        return "A value"

    @property
    def sentence(self) -> str:
        """What the attribute holds, as the schema describes a field it leaves undescribed."""
        said = self.kind_sentence
        return f"{said}; may be null." if self.optional else f"{said}."

    def example(self, entity: Entity, name: str) -> Any:
        """A value of the kind that the entity's keys accept, the same each time
        (`dynagate model chart`); a kind without its own gives one of its GraphQL type."""
        try:
            scalar = str(self.scalar)
        except (NotImplementedError, TypeError):
            return None
        known: dict[str, Any] = {"Int": 1, "Float": 1.5, "Boolean": True, "JSON": {}}
        return known.get(scalar, f"{entity.name} {name}")

    def check_declaration(self, entity: Entity, where: str) -> None:
        """Raises a ModelError led by `where` when the kind's own bounds, as the entity
        declares it, cannot work; a kind without bounds has none to check."""
