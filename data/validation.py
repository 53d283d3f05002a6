"""Checks on client input that are not about keys (keys/ checks identifiers itself); the
checks of text, e-mail addresses and numbers are the attribute kinds' (`model/attributes`),
named here too."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from errors.vocabulary import BadUserInput
from keys.codecs import KSUID_EPOCH, identifier
from model.attributes.base import TEXT_MAX as TEXT_MAX
from model.attributes.value_checks import email as email
from model.attributes.value_checks import number as number
from model.attributes.value_checks import text as text
from store.requests import Key

# Keys, numbers, timestamps, identifiers and attribute names of one item: well under this.
ITEM_OVERHEAD_BYTES = 4 * 1024


def stored_bytes(*texts: int) -> int:
    """The most bytes an item can take whose texts are at most these many characters (4
    bytes a character in UTF-8), for the cost models' 1 MB pages."""
    return 4 * sum(texts) + ITEM_OVERHEAD_BYTES


# Clocks differ a little between clients and servers; more than this is a mistake.
_CLOCK_SKEW = timedelta(minutes=5)


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
