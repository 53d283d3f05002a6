"""What an entity's attributes hold, as data: each kind says how a value is checked, how it
is stored, which key codec renders it into a key segment, and its GraphQL type.

The kinds are declarations only; the access patterns (`data/`) check and write them, and
the resolvers (`resolvers/`) show them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Literal

from keys.codecs import (
    ChoiceCodec,
    Codec,
    CodeCodec,
    IdentifierCodec,
    KsuidCodec,
    NumberCodec,
    TimestampCodec,
)
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


@dataclass(frozen=True, kw_only=True)
class Identifier(Attribute):
    """An identifier the client chooses (docs/design.md#validation: no delimiter can reach
    a key)."""

    @property
    def scalar(self) -> Scalar:
        return "ID"

    @property
    def codec(self) -> Codec[Any]:
        return IdentifierCodec()


@dataclass(frozen=True, kw_only=True)
class Handle(Attribute):
    """A name a person types and reads (a username, a repository's name): an identifier's
    characters, kept as first given, compared and keyed in lower case (`Alice` and `alice`
    are one)."""

    @property
    def scalar(self) -> Scalar:
        return "String"

    @property
    def codec(self) -> Codec[Any]:
        return IdentifierCodec(case_insensitive=True)


@dataclass(frozen=True, kw_only=True)
class GeneratedId(Attribute):
    """A KSUID made when the entity is created: ids sort the way their items were made."""

    set_by_engine: ClassVar[bool] = True

    @property
    def scalar(self) -> Scalar:
        return "ID"

    @property
    def codec(self) -> Codec[Any]:
        return KsuidCodec()


@dataclass(frozen=True, kw_only=True)
class Text(Attribute):
    """Free text of 1 to `max_length` characters; `multiline` also allows newlines and tabs."""

    max_length: int = TEXT_MAX
    multiline: bool = False

    @property
    def scalar(self) -> Scalar:
        return "String"

    @property
    def most_bytes(self) -> int:
        return 4 * self.max_length


@dataclass(frozen=True, kw_only=True)
class Email(Attribute):
    """An e-mail address, of at most 200 characters."""

    @property
    def scalar(self) -> Scalar:
        return "String"

    @property
    def most_bytes(self) -> int:
        return 4 * TEXT_MAX


@dataclass(frozen=True, kw_only=True)
class Code(Attribute):
    """A short code matching `pattern`, kept in lower case (`Code(pattern="[A-Za-z]{2}",
    described="a two-letter language code such as 'en'")`): text a key can hold."""

    pattern: str
    described: str
    max_length: int = 16

    @property
    def scalar(self) -> Scalar:
        return "String"

    @property
    def codec(self) -> CodeCodec:
        return CodeCodec(self.pattern, self.described, self.max_length)

    @property
    def most_bytes(self) -> int:
        return 4 * self.max_length


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
class Lines(Attribute):
    """1 to `most` entries of `fields` (texts and numbers), kept inside the entity's own
    item and given once, on create (an order's lines): the entity with its lines is one
    read. GraphQL shows them as `[<name>!]!`, each with its `numbered` field (its position,
    from 1) first, and takes them as `[<name>Input!]!`."""

    name: str
    fields: Mapping[str, Text | Number] = field(default_factory=dict)
    most: int = 50
    numbered: str = "position"

    @property
    def scalar(self) -> Scalar:
        raise TypeError("lines are an object type of their own")

    @property
    def changeable(self) -> bool:
        return False

    @property
    def most_bytes(self) -> int:
        names = sum(map(len, self.fields)) + len(self.numbered)
        line = sum(f.most_bytes for f in self.fields.values()) + Number().most_bytes + names
        return self.most * line


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


@dataclass(frozen=True, kw_only=True)
class Total(EngineNumber):
    """A number the engine computes on create: the sum, over the entity's `lines`, of the
    product of the numbers `of` (`Total(lines="items", of=("quantity", "unitPriceCents"),
    unit="cents")`), at most `high`; a larger one refuses the create."""

    lines: str
    of: tuple[str, ...]
    unit: str = ""
    high: int = 2**31 - 1


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


@dataclass(frozen=True, kw_only=True)
class Choice(Attribute):
    """One of an enum's values; a new entity starts at `initial` when it is given, and the
    client then does not give it on create, unless `settable`: then the client may give
    any of its values on create, `initial` when it leaves it out."""

    values: type[StrEnum]
    initial: StrEnum | None = None
    settable: bool = False

    @property
    def scalar(self) -> type[StrEnum]:
        return self.values

    @property
    def codec(self) -> Codec[Any]:
        return ChoiceCodec(frozenset(self.values))

    @property
    def given(self) -> bool:
        return self.initial is None or self.settable


@dataclass(frozen=True, kw_only=True)
class Timestamp(Attribute):
    """A time, in milliseconds, held as `stored_as` says (keys hold it as ISO text only);
    `stamped` on create or on every write by the engine's clock (then never given by a
    client). A timestamp stamped on every write that sorts an index is a changing
    sort key: an update moves the item within that index.
    `imported`: stamped on create unless an admin gives an earlier time (an import of older
    data); anyone else giving one is refused."""

    stamped: Stamp | None = None
    imported: bool = False
    stored_as: TimeFormat = "iso"

    @property
    def scalar(self) -> Scalar:
        return "DateTime"

    @property
    def codec(self) -> Codec[Any] | None:
        # Keys hold times as fixed-width ISO text, which sorts; epoch numbers are values only.
        return TimestampCodec() if self.stored_as == "iso" else None

    @property
    def given(self) -> bool:
        return self.stamped is None or self.imported

    @property
    def changeable(self) -> bool:
        return self.stamped is None

    @property
    def most_bytes(self) -> int:
        return 24


@dataclass(frozen=True, kw_only=True)
class Author(Attribute):
    """Who wrote the entity: the signed-in caller's username, set on create (null when
    identity is off). `verb` says what they did ("opened"), `role` what that makes them
    ("opener"): a rule may hold changes to the author."""

    verb: str
    role: str
    optional: bool = True
    set_by_engine: ClassVar[bool] = True

    @property
    def scalar(self) -> Scalar:
        return "String"
