"""Kinds of text: free text, an e-mail address, and a short code a key can hold."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from keys.codecs import CodeCodec
from model.attributes.base import TEXT_MAX, Attribute, Holder, Scalar
from model.attributes.value_checks import email, text

# Tried in turn for a Code's example when its description gives none ("… such as 'en'").
CODE_EXAMPLES = ("en", "2025-03-01", "alice@example.com", "abc", "a1", "1")
_SUCH_AS = re.compile(r"such as\s+'?([^'\s,;)]+)'?")


@dataclass(frozen=True, kw_only=True)
class Text(Attribute):
    """Free text of 1 to `max_length` characters; `multiline` also allows newlines and tabs."""

    max_length: int = TEXT_MAX
    multiline: bool = False
    fixed_scalar: ClassVar[Scalar] = "String"

    @property
    def most_bytes(self) -> int:
        return 4 * self.max_length

    def checked(self, value: Any, field: str) -> str:
        return text(value, field, self.max_length, multiline=self.multiline)

    @property
    def kind_sentence(self) -> str:
        lines = ", newlines and tabs allowed" if self.multiline else ""
        return f"Text of 1 to {self.max_length:,} characters{lines}"


@dataclass(frozen=True, kw_only=True)
class Email(Attribute):
    """An e-mail address, of at most 200 characters."""

    fixed_scalar: ClassVar[Scalar] = "String"
    fixed_bytes: ClassVar[int] = 4 * TEXT_MAX
    fixed_sentence: ClassVar[str] = "An e-mail address"
    fixed_example: ClassVar[str] = "alice@example.com"

    def checked(self, value: Any, field: str) -> str:
        return email(value, field)


@dataclass(frozen=True, kw_only=True)
class Code(Attribute):
    """A short code matching `pattern`, kept in lower case (`Code(pattern="[A-Za-z]{2}",
    described="a two-letter language code such as 'en'")`): text a key can hold."""

    pattern: str
    described: str
    max_length: int = 16
    fixed_scalar: ClassVar[Scalar] = "String"

    @property
    def codec(self) -> CodeCodec:
        return CodeCodec(self.pattern, self.described, self.max_length)

    @property
    def most_bytes(self) -> int:
        return 4 * self.max_length

    def checked(self, value: Any, field: str) -> str:
        return self.codec.code(str(value), field)

    @property
    def kind_sentence(self) -> str:
        return f"{self.described[0].upper()}{self.described[1:]}, kept in lower case"

    def example(self, entity: Holder, name: str) -> str | None:
        """The example its description gives, else the first of a few its pattern takes."""
        told = _SUCH_AS.search(self.described)
        for candidate in ([told.group(1)] if told else []) + list(CODE_EXAMPLES):
            try:
                return self.codec.encode(candidate)
            except ValueError:
                continue
        return None
