"""What every attribute kind shares: whether it is shown, optional, stored under another
name or read by fewer callers, which key codec renders it into a key segment, its GraphQL
type and the most bytes it takes; and what each kind does itself, this module's being the
default: check a client's value, convert it to the form its item holds and back, say what
the engine puts in a new item, how it compares and which values it can hold, say what it
holds for the schema, make an example value, and check its own declaration. The kinds live
beside this module, by concern.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from errors.vocabulary import BadUserInput
from keys.codecs import Codec
from model.declarations import Readers

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
# A set filter's values: a few, since each doubles the copies.
MOST_SET_VALUES = 6
# A GraphQL type's coordinate ((type,) or (type, field)) and its description.
TypeSentence = tuple[tuple[str, ...], str]


@dataclass(frozen=True)
class Creation:
    """What a create makes the values the engine sets from: `created`, when the entity is
    made (now, or the earlier time an import gives), `current`, the time of the write, and
    `new_id`, a fresh id made at a time (the clock and randomness stay outside the model)."""

    created: datetime
    current: datetime
    new_id: Callable[[datetime], str]


A = TypeVar("A", bound="Attribute")


class Holder(Protocol):
    """The entity an attribute belongs to, as its kind sees it (`model.Entity`): its names,
    its other attributes, and whether it keeps copies or places."""

    @property
    def name(self) -> str: ...

    @property
    def noun(self) -> str: ...

    @property
    def field_name(self) -> str: ...

    @property
    def attributes(self) -> Mapping[str, Attribute]: ...

    @property
    def copies(self) -> object | None: ...

    @property
    def places(self) -> object | None: ...

    def attributes_of(self, kind: type[A]) -> dict[str, A]: ...


class LineShape(Protocol):
    """Lines of declared fields (`Lines`), as the schema makes an object type of one line:
    its name, its fields, and the field that numbers it."""

    @property
    def name(self) -> str: ...

    @property
    def fields(self) -> Mapping[str, Attribute]: ...

    @property
    def numbered(self) -> str: ...


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
    # Compared and keyed in lower case (a handle: `Alice` and `alice` are one).
    folds_case: ClassVar[bool] = False
    # May hold a username: an entity's owner.
    names_user: ClassVar[bool] = False
    # What a kind is whatever its declaration: its GraphQL scalar (None: a type of its own),
    # how a key holds it (None: no key can), the most bytes a value takes, what a value is
    # for the schema's descriptions, and its example (None: one of its scalar).
    fixed_scalar: ClassVar[Scalar | None] = None
    fixed_codec: ClassVar[Codec[Any] | None] = None
    fixed_bytes: ClassVar[int] = 64
    fixed_sentence: ClassVar[str] = "A value"
    fixed_example: ClassVar[str | int | None] = None
    # The number its item's value is read as (the table gives a Decimal, or an int for a
    # whole number); None: the value is kept as read.
    number_type: ClassVar[type[int] | type[float] | None] = None

    @property
    def scalar(self) -> Scalar | type[StrEnum]:
        if self.fixed_scalar is None:
            raise NotImplementedError
        return self.fixed_scalar

    @property
    def codec(self) -> Codec[Any] | None:
        """How the attribute renders into a key segment; None: it cannot be part of a key."""
        return self.fixed_codec

    @property
    def number_codec(self) -> Codec[Any] | None:
        """How a number key (`N`) holds it (a whole number, a time since 1970); None: none
        can."""
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
    def importable(self) -> bool:
        """Whether an admin may give, on create, an earlier value than the engine's (an
        import of older data)."""
        return False

    @property
    def create_default(self) -> Any:
        """What a create that leaves it out gives it, which its input field shows as its
        default; None: no default (null, where it may be left out)."""
        return None

    @property
    def optional_on_create(self) -> bool:
        """Whether a create may leave it out."""
        return self.optional or self.importable

    @property
    def starts_at(self) -> Any:
        """The value its declaration says an entity starts at, which an item written before
        it was declared is taken to hold; None: none declared."""
        return None

    @property
    def domain(self) -> tuple[Any, ...]:
        """The values a set filter over it can hold, in order (empty: not a small domain)."""
        return ()

    @property
    def as_lines(self) -> LineShape | None:
        """The attribute as lines of declared fields, where it holds them (each an object of
        its own in GraphQL); None: it holds a scalar, an enum's value or a set."""
        return None

    @property
    def listed_most(self) -> int | None:
        """The most objects its field lists, which the cost bound counts; None: it holds no
        list of objects."""
        return None

    @property
    def most_bytes(self) -> int:
        """The most bytes its stored value takes (UTF-8), for item-size bounds."""
        return self.fixed_bytes

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

    def from_text(self, text: str) -> Any:
        """A value typed as text (a command's argument) as a client would give it; raises
        ValueError when it cannot be one."""
        return text

    def made(self, given: Any, creation: Creation) -> Any:
        """What the engine puts in a new item for the attribute, a client having given
        `given` (None: nothing); None: the engine puts nothing, the client's value is kept."""
        return None

    def computed(self, entity: Holder, values: Mapping[str, Any]) -> Any:
        """What the engine computes for a new item from its other `values` (a total over its
        lines); None: nothing."""
        return None

    def to_stored(self, value: Any) -> Any:
        """A kept value (not None) as its item holds it; None: the item holds nothing."""
        return value

    def from_stored(self, value: Any) -> Any:
        """The value its item holds (not None) as a record has it."""
        return value if self.number_type is None else self.number_type(value)

    @property
    def absent(self) -> Any:
        """What an item holding no value reads as (DynamoDB holds no empty set); None: an
        item holds it, or its key does."""
        return [] if self.many else None

    @property
    def kind_sentence(self) -> str:
        """What a value of the kind is, from its bounds, for the schema's descriptions."""
        return self.fixed_sentence

    @property
    def sentence(self) -> str:
        """What the attribute holds, as the schema describes a field it leaves undescribed."""
        said = self.kind_sentence
        return f"{said}; may be null." if self.optional else f"{said}."

    def field_description(self, entity: Holder) -> str | None:
        """The description of its field on the entity's type: the declared one."""
        return self.description

    def type_sentences(self, whose: str) -> Iterator[TypeSentence]:
        """The GraphQL types of its own the attribute brings (an enum, a line's), each with
        what the schema says of it; `whose` names the attribute ("a ticket's status")."""
        return iter(())

    def example(self, entity: Holder, name: str) -> Any:
        """A value of the kind that the entity's keys accept, the same each time
        (`dynagate model chart`); a kind without its own gives one of its GraphQL type."""
        if self.fixed_example is not None:
            return self.fixed_example
        try:
            scalar = str(self.scalar)
        except (NotImplementedError, TypeError):
            return None
        known: dict[str, Any] = {"Int": 1, "Float": 1.5, "Boolean": True, "JSON": {}}
        return known.get(scalar, f"{entity.name} {name}")

    def check_declaration(self, entity: Holder, where: str) -> None:
        """Raises a ModelError led by `where` when the kind's own bounds, as the entity
        declares it, cannot work; a kind without bounds has none to check."""
