"""Kinds that name things: an identifier a client chooses, a handle a person types, an
id the engine makes, and the author the engine records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from keys.codecs import Codec, IdentifierCodec, KsuidCodec
from model.attributes.base import Attribute, Scalar


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
