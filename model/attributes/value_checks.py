"""The checks of a client's text, e-mail addresses and whole numbers, which the attribute
kinds and the gateway's own inputs share."""

from __future__ import annotations

import re

from errors.vocabulary import BadUserInput
from model.attributes.base import TEXT_MAX

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
# What text may not hold: lone surrogates (not Unicode text: no UTF-8 encodes them) and
# control characters (C0, DEL, C1); free-form text may also hold newlines and tabs.
_NOT_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_NOT_MULTILINE_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def text(value: str, field: str, max_length: int = TEXT_MAX, *, multiline: bool = False) -> str:
    """Text of 1 to `max_length` characters; `multiline` also allows newlines and tabs."""
    if not value.strip():
        raise BadUserInput("must not be empty", field=field)
    if len(value) > max_length:
        raise BadUserInput(
            f"{len(value)} characters is over the limit of {max_length}", field=field
        )
    return _unicode(value, field, multiline=multiline)


def _unicode(value: str, field: str, *, multiline: bool = False) -> str:
    """`value` unless it holds a lone surrogate or a control character."""
    found = (_NOT_MULTILINE_TEXT if multiline else _NOT_TEXT).search(value)
    if found is None:
        return value
    char, position = found.group(), found.start()
    if "\ud800" <= char <= "\udfff":
        raise BadUserInput(
            f"U+{ord(char):04X} at position {position} is a lone surrogate, not Unicode text",
            field=field,
        )
    allowed = "; only newline and tab are" if multiline else ""
    raise BadUserInput(
        f"the control character U+{ord(char):04X} at position {position} is not allowed{allowed}",
        field=field,
    )


def email(value: str, field: str = "email") -> str:
    _unicode(value, field)
    if len(value) > TEXT_MAX or not _EMAIL.fullmatch(value):
        raise BadUserInput(
            f"{value[:TEXT_MAX]!r} does not look like an e-mail address", field=field
        )
    return value


def number(value: int, field: str, low: int, high: int) -> int:
    if not low <= value <= high:
        raise BadUserInput(f"{value} is outside {low} to {high:,}", field=field)
    return value
