"""Kinds that name things: an identifier a client chooses, a handle a person types, an
id the engine makes, and the author the engine records."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from keys.codecs import Codec, IdentifierCodec, KsuidCodec, identifier, ksuid
from model.attributes.base import EXAMPLE_TIME, Attribute, Scalar

if TYPE_CHECKING:
    from model.entities import Entity

_IDENTIFIER = "1 to 64 letters, digits, '.', '_' or '-'"


def _named(entity: Entity, name: str) -> str:
    """An identifier made of the attribute's name, less its `id` (`customerId`: `customer-1`)."""
    base = re.sub(r"_?(id|Id|ID)$", "", name) or entity.field_name
    return re.sub(r"[^A-Za-z0-9._-]", "", base.lower()) + "-1"


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

    def checked(self, value: Any, field: str) -> str:
        return identifier(str(value), field)

    @property
    def kind_sentence(self) -> str:
        return f"An identifier: {_IDENTIFIER}"

    def example(self, entity: Entity, name: str) -> str:
        return _named(entity, name)


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

    def checked(self, value: Any, field: str) -> str:
        return identifier(str(value), field)

    @property
    def kind_sentence(self) -> str:
        return f"A name of {_IDENTIFIER}, compared ignoring case"

    def example(self, entity: Entity, name: str) -> str:
        return _named(entity, name)


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

    def checked(self, value: Any, field: str) -> str:
        # Checked when a client names an entity by it: an identifier, a KSUID or not.
        return identifier(str(value), field)

    @property
    def kind_sentence(self) -> str:
        return "An identifier made on create (a KSUID: ids sort as they were made)"

    def example(self, entity: Entity, name: str) -> str:
        # Each entity's own id, fixed: a KSUID made of its name.
        payload = hashlib.blake2b(entity.name.encode(), digest_size=16).digest()
        return ksuid(int(EXAMPLE_TIME.timestamp()), payload)


@dataclass(frozen=True, kw_only=True)
class Author(Attribute):
    """Who wrote the entity: the signed-in caller's username, set on create (null when
    identity is off). `verb` says what they did ("opened"), `role` what that makes them
    ("opener"): a rule may hold changes to the author."""

    verb: str
    role: str
    optional: bool = True
    set_by_engine: ClassVar[bool] = True
    engine_held: ClassVar[bool] = True

    @property
    def scalar(self) -> Scalar:
        return "String"

    def to_stored(self, value: Any) -> None:
        # The caller's to write, with its key (`data/callers`), never under its own name.
        return None

    @property
    def kind_sentence(self) -> str:
        return f"Who {self.verb} it: the signed-in caller's username"

    def example(self, entity: Entity, name: str) -> str:
        return "alice"
