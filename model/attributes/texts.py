"""Kinds of text: free text, an e-mail address, and a short code a key can hold."""

from __future__ import annotations

from dataclasses import dataclass

from keys.codecs import CodeCodec
from model.attributes.base import TEXT_MAX, Attribute, Scalar


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
