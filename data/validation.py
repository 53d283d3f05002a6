"""Checks on client input that are not about keys (keys/ checks identifiers itself)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

from errors.vocabulary import BadUserInput
from keys.codecs import KSUID_EPOCH, identifier
from store.requests import Key

TEXT_MAX = 200
# Keys, numbers, timestamps, identifiers and attribute names of one item: well under this.
ITEM_OVERHEAD_BYTES = 4 * 1024


def stored_bytes(*texts: int) -> int:
    """The most bytes an item can take whose texts are at most these many characters (4
    bytes a character in UTF-8), for the cost models' 1 MB pages."""
    return 4 * sum(texts) + ITEM_OVERHEAD_BYTES


_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
# What text may not hold: lone surrogates (not Unicode text: no UTF-8 encodes them) and
# control characters (C0, DEL, C1); free-form text may also hold newlines and tabs.
_NOT_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_NOT_MULTILINE_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
# Clocks differ a little between clients and servers; more than this is a mistake.
_CLOCK_SKEW = timedelta(minutes=5)


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


def ident(value: str, field: str = "id") -> str:
    """An identifier of docs/design.md#validation (no delimiter can reach a key)."""
    return identifier(value, field)


def past_time(value: datetime, field: str, now: datetime) -> datetime:
    """A time given for an import of older data: not in the future, not before 2014-05-13."""
    if value > now + _CLOCK_SKEW:
        raise BadUserInput(f"{value.isoformat()} is in the future", field=field)
    if value.timestamp() < KSUID_EPOCH:
        raise BadUserInput("times before 2014-05-13T16:53:20Z cannot be stored", field=field)
    return value


def key_or_none(key_of: Callable[[str], Key], value: str) -> Key | None:
    """The key `value` names, or None when `value` is a valid identifier but cannot name
    such an entity (one that is not a KSUID, say): a miss, not a client error."""
    try:
        return key_of(value)
    except ValueError:
        return None
