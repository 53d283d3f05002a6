"""Kinds that name things: an identifier a client chooses, a handle a person types, an
id the engine makes, and the author the engine records."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from keys.codecs import Codec, IdentifierCodec, KsuidCodec, identifier, ksuid
from model.attributes.base import EXAMPLE_TIME, Attribute, Creation, Holder, Scalar

_IDENTIFIER = "1 to 64 letters, digits, '.', '_' or '-'"


def _named(entity: Holder, name: str) -> str:
    """An identifier made of the attribute's name, less its `id` (`customerId`: `customer-1`)."""
    base = re.sub(r"_?(id|Id|ID)$", "", name) or entity.field_name
    return re.sub(r"[^A-Za-z0-9._-]", "", base.lower()) + "-1"


@dataclass(frozen=True, kw_only=True)
class _Named(Attribute):
    """What the kinds that name an entity share: a client's value has an identifier's
    characters (docs/design.md#validation: no delimiter can reach a key), and an example is
    made of the attribute's name."""

    def checked(self, value: Any, field: str) -> str:
        return identifier(str(value), field)

    def example(self, entity: Holder, name: str) -> str:
        return _named(entity, name)


@dataclass(frozen=True, kw_only=True)
class Identifier(_Named):
    """An identifier the client chooses."""

    names_user: ClassVar[bool] = True
    fixed_scalar: ClassVar[Scalar] = "ID"
    fixed_codec: ClassVar[Codec[Any]] = IdentifierCodec()
    fixed_sentence: ClassVar[str] = f"An identifier: {_IDENTIFIER}"


@dataclass(frozen=True, kw_only=True)
class Handle(_Named):
    """A name a person types and reads (a username, a repository's name): an identifier's
    characters, kept as first given, compared and keyed in lower case (`Alice` and `alice`
    are one)."""

    folds_case: ClassVar[bool] = True
    names_user: ClassVar[bool] = True
    fixed_scalar: ClassVar[Scalar] = "String"
    fixed_codec: ClassVar[Codec[Any]] = IdentifierCodec(case_insensitive=True)
    fixed_sentence: ClassVar[str] = f"A name of {_IDENTIFIER}, compared ignoring case"


@dataclass(frozen=True, kw_only=True)
class GeneratedId(_Named):
    """A KSUID made when the entity is created: ids sort the way their items were made. A
    client names an entity by it as by an identifier (a KSUID or not)."""

    set_by_engine: ClassVar[bool] = True
    fixed_scalar: ClassVar[Scalar] = "ID"
    fixed_codec: ClassVar[Codec[Any]] = KsuidCodec()
    fixed_sentence: ClassVar[str] = (
        "An identifier made on create (a KSUID: ids sort as they were made)"
    )

    def made(self, given: Any, creation: Creation) -> str:
        return creation.new_id(creation.created)

    def example(self, entity: Holder, name: str) -> str:
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
    fixed_scalar: ClassVar[Scalar] = "String"
    fixed_example: ClassVar[str] = "alice"

    def to_stored(self, value: Any) -> None:
        # The caller's to write, with its key (`data/callers`), never under its own name.
        return None

    @property
    def kind_sentence(self) -> str:
        return f"Who {self.verb} it: the signed-in caller's username"

    def field_description(self, entity: Holder) -> str:
        article = "an" if entity.noun[0] in "aeiou" else "a"
        return (
            f"Who {self.verb} it; null for {article} {entity.noun} {self.verb} with identity off."
        )
