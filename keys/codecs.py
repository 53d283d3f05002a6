"""Segment codecs: how one value becomes one delimiter-free, order-preserving key segment.

Every codec maps values to strings that never contain a key delimiter (`#`, `/`, `~`)
and, where a codec promises order, sort in UTF-8 byte order exactly as the values do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, Protocol, TypeVar

from errors.vocabulary import BadUserInput

DELIMITERS = frozenset("#/~")
# A whole segment meaning "any value" (a copy's key for any language: `VENUE#v1#~#31`); no
# codec's own output can equal it, since identifiers, languages and numbers never hold a
# `~`.
ANY = "~"
# Sorts after every character a rendered key can hold, so `prefix + KEY_MAX` bounds a prefix.
KEY_MAX = "\uffff"

T = TypeVar("T")


class Codec(Protocol[T]):
    """Turns a value into one key segment and back."""

    def encode(self, value: T) -> str: ...
    def decode(self, segment: str) -> T: ...


# ---- identifiers -----------------------------------------------------------------------

IDENTIFIER_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def identifier(value: str, field: str = "id") -> str:
    """Return `value` if it is a valid identifier, else raise `BadUserInput` naming `field`."""
    if not IDENTIFIER_PATTERN.fullmatch(value):
        raise BadUserInput(
            f"{value!r} is not a valid identifier: use 1 to 64 letters, digits, '.', '_' or '-',"
            " starting with a letter or digit",
            field=field,
        )
    return value


@dataclass(frozen=True)
class IdentifierCodec:
    """Identifiers as they are; `case_insensitive` folds them so `Alice` and `alice` meet."""

    case_insensitive: bool = False

    def encode(self, value: str) -> str:
        identifier(value)
        return value.lower() if self.case_insensitive else value

    def decode(self, segment: str) -> str:
        return identifier(segment)


# ---- timestamps ------------------------------------------------------------------------

TIMESTAMP_MIN = datetime(1000, 1, 1, tzinfo=UTC)
TIMESTAMP_MAX = datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)
_TIMESTAMP_KEY = re.compile(r"[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z", re.ASCII)


def to_millis(value: datetime) -> datetime:
    """Normalise an aware datetime to UTC, truncated to whole milliseconds."""
    if value.tzinfo is None:
        raise BadUserInput("a time needs a time zone", field="timestamp")
    try:
        utc = value.astimezone(UTC)
    except OverflowError as exc:  # an offset pushed datetime.min or max out of range
        raise BadUserInput(
            f"{value.isoformat()} is outside years 1000 to 9999", field="timestamp"
        ) from exc
    return utc.replace(microsecond=utc.microsecond - utc.microsecond % 1000)


def format_timestamp(value: datetime) -> str:
    """`2020-11-09T12:00:00.123Z`: fixed width, so byte order is time order."""
    utc = to_millis(value)
    if not TIMESTAMP_MIN <= utc <= TIMESTAMP_MAX:
        raise BadUserInput(f"{utc.isoformat()} is outside years 1000 to 9999", field="timestamp")
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T"
        f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}.{utc.microsecond // 1000:03d}Z"
    )


def parse_timestamp(text: str) -> datetime:
    if not _TIMESTAMP_KEY.fullmatch(text):
        raise BadUserInput(f"{text!r} is not a key timestamp", field="timestamp")
    try:
        # fromisoformat is several times faster than strptime, and pages parse many of these.
        return datetime.fromisoformat(text)
    except ValueError as exc:  # a well-formed but impossible date, such as month 13
        raise BadUserInput(f"{text!r} is not a key timestamp", field="timestamp") from exc


@dataclass(frozen=True)
class TimestampCodec:
    def encode(self, value: datetime) -> str:
        return format_timestamp(value)

    def decode(self, segment: str) -> datetime:
        return parse_timestamp(segment)


# ---- zero-padded numbers ---------------------------------------------------------------


@dataclass(frozen=True)
class NumberCodec:
    """Non-negative integers zero-padded to `width` digits, so byte order is numeric order."""

    width: int

    @property
    def maximum(self) -> int:
        return int("9" * self.width)

    def encode(self, value: int) -> str:
        if not 0 <= value <= self.maximum:
            raise BadUserInput(f"{value} is outside 0 to {self.maximum}", field="number")
        return f"{value:0{self.width}d}"

    def decode(self, segment: str) -> int:
        if len(segment) != self.width or not (segment.isascii() and segment.isdigit()):
            raise BadUserInput(f"{segment!r} is not a {self.width}-digit number", field="number")
        return int(segment)


@dataclass(frozen=True)
class WholeNumberCodec:
    """A whole number as a number key (`N`) holds it: its decimal digits, unpadded, signed
    when negative; DynamoDB orders such keys as numbers."""

    def encode(self, value: int) -> str:
        return str(int(value))

    def decode(self, segment: str) -> int:
        if not _WHOLE.fullmatch(segment):
            raise BadUserInput(f"{segment!r} is not a whole number", field="number")
        return int(segment)


_WHOLE = re.compile(r"-?(0|[1-9]\d{0,37})", re.ASCII)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)


def to_epoch(value: datetime, *, millis: bool) -> int:
    """`value` as seconds (rounded down) or milliseconds since 1970."""
    since = (to_millis(value) - EPOCH) // _MILLISECOND
    return since if millis else since // 1000


def from_epoch(value: float, *, millis: bool) -> datetime:
    """The time `value` seconds or milliseconds after 1970 (ValueError outside years 1000
    to 9999)."""
    try:
        time = EPOCH + round(value * (1 if millis else 1000)) * _MILLISECOND
    except OverflowError:
        raise ValueError(f"{value!r} is outside years 1000 to 9999") from None
    if not TIMESTAMP_MIN <= time <= TIMESTAMP_MAX:
        raise ValueError(f"{value!r} is outside years 1000 to 9999")
    return time


@dataclass(frozen=True)
class EpochCodec:
    """A time as a number key (`N`) holds it: seconds or milliseconds since 1970."""

    millis: bool

    def encode(self, value: datetime) -> str:
        return str(to_epoch(value, millis=self.millis))

    def decode(self, segment: str) -> datetime:
        try:
            return from_epoch(WholeNumberCodec().decode(segment), millis=self.millis)
        except ValueError as exc:
            raise BadUserInput(str(exc), field="timestamp") from None


# ---- enums -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ChoiceCodec:
    """One of a fixed set of upper-case words (an order status, a role)."""

    choices: frozenset[str]

    def encode(self, value: str) -> str:
        if value not in self.choices:
            raise BadUserInput(f"{value!r} is not one of {sorted(self.choices)}", field="value")
        return value

    def decode(self, segment: str) -> str:
        return self.encode(segment)


# ---- codes, sets and "any" -----------------------------------------------------------


@dataclass(frozen=True)
class CodeCodec:
    """A short code matching `pattern` (a language: `[A-Za-z]{2}`), folded to lower case;
    `described` says what one is in messages ("a two-letter language code such as 'en'")."""

    pattern: str
    described: str
    max_length: int = 16

    def encode(self, value: str) -> str:
        return self.code(value, "value")

    def decode(self, segment: str) -> str:
        return self.encode(segment)

    def code(self, value: str, field: str) -> str:
        if (
            len(value) > self.max_length
            or not re.fullmatch(self.pattern, value)
            or DELIMITERS.intersection(value)
        ):
            raise BadUserInput(f"{value[:40]!r} is not {self.described}", field=field)
        return value.lower()


@dataclass(frozen=True)
class SetCodec:
    """A non-empty set of values of a small ordered `domain`, as a bitmask: the i-th value
    is bit i (ratings 1 to 5: `{1, 2, 5}` -> `19`), one short segment whatever the set."""

    domain: tuple[Any, ...]

    def encode(self, value: frozenset[Any]) -> str:
        if not value or not value <= set(self.domain):
            named = sorted(map(str, value))
            raise BadUserInput(f"{named} is not a set of {self._named}", field="value")
        return str(sum(1 << n for n, member in enumerate(self.domain) if member in value))

    def decode(self, segment: str) -> frozenset[Any]:
        mask = int(segment) if segment.isascii() and segment.isdigit() else 0
        values = frozenset(v for n, v in enumerate(self.domain) if mask >> n & 1)
        if not values or self.encode(values) != segment:
            raise BadUserInput(f"{segment[:40]!r} is not a set of {self._named}", field="value")
        return values

    @property
    def _named(self) -> str:
        return ", ".join(map(str, self.domain))


@dataclass(frozen=True)
class OrAnyCodec(Generic[T]):
    """A value of `codec`, or None for any value (`ANY`)."""

    codec: Codec[T]

    def encode(self, value: T | None) -> str:
        return ANY if value is None else self.codec.encode(value)

    def decode(self, segment: str) -> T | None:
        return None if segment == ANY else self.codec.decode(segment)


# ---- KSUIDs ----------------------------------------------------------------------------

KSUID_EPOCH = 1_400_000_000
KSUID_LENGTH = 27
KSUID_PAYLOAD_BYTES = 16
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_KSUID_PATTERN = re.compile(r"[0-9A-Za-z]{27}")
_KSUID_MAX_VALUE = (1 << 160) - 1


def _base62(number: int) -> str:
    digits = []
    while number:
        number, digit = divmod(number, 62)
        digits.append(_BASE62[digit])
    return "".join(reversed(digits)).rjust(KSUID_LENGTH, "0")


def ksuid(seconds: int, payload: bytes) -> str:
    """A KSUID: 4 bytes of seconds since 2014-05-13 and 16 random bytes, base62, 27 chars.

    The caller supplies the clock and the randomness, which keeps this module pure.
    """
    offset = seconds - KSUID_EPOCH
    if not 0 <= offset < 1 << 32:
        raise BadUserInput("time is outside the KSUID range (2014 to 2150)", field="id")
    if len(payload) != KSUID_PAYLOAD_BYTES:
        raise ValueError("a KSUID payload is 16 bytes")
    return _base62(int.from_bytes(offset.to_bytes(4, "big") + payload, "big"))


def ksuid_seconds(value: str) -> int:
    """The creation time (Unix seconds) a KSUID carries."""
    return (_ksuid_int(value) >> 128) + KSUID_EPOCH


def _ksuid_int(value: str) -> int:
    if not _KSUID_PATTERN.fullmatch(value):
        raise BadUserInput(f"{value!r} is not a KSUID (27 letters and digits)", field="id")
    number = 0
    for char in value:
        number = number * 62 + _BASE62.index(char)
    if number > _KSUID_MAX_VALUE:
        raise BadUserInput(f"{value!r} is not a KSUID (out of range)", field="id")
    return number


def ksuid_bounds(start: datetime, end: datetime) -> tuple[str, str]:
    """The smallest and largest KSUIDs created in the whole seconds from `start` to `end`."""
    low = ksuid(int(start.timestamp()), bytes(KSUID_PAYLOAD_BYTES))
    high = ksuid(int(end.timestamp()), b"\xff" * KSUID_PAYLOAD_BYTES)
    return low, high


@dataclass(frozen=True)
class KsuidCodec:
    def encode(self, value: str) -> str:
        _ksuid_int(value)
        return value

    def decode(self, segment: str) -> str:
        return self.encode(segment)
