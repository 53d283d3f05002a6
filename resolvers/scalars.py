"""Scalars and enums shared by every area."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from enum import Enum

import strawberry

from keys.codecs import format_timestamp, to_millis

_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")
# What an ISO-8601 date or time is written with. Python's parser stops reading at a NUL and
# takes what came before it as the whole value, so a value holding anything else is refused
# before it is parsed.
_ISO_8601_CHARS = re.compile(r"[0-9T:.,+\-ZW ]+")


def parse_datetime(value: object) -> datetime:
    """ISO-8601 with `Z` or an offset, or a date alone (midnight UTC)."""
    if not isinstance(value, str):
        raise ValueError("a DateTime is a string such as 2020-11-09T12:00:00Z")
    if not _ISO_8601_CHARS.fullmatch(value):
        raise ValueError(f"{value!r} is not an ISO-8601 date or time")
    try:
        if _DATE_ONLY.fullmatch(value):
            return datetime.combine(date.fromisoformat(value), datetime.min.time(), UTC)
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"{value!r} is not an ISO-8601 date or time") from exc
    if parsed.tzinfo is None:
        raise ValueError(f"{value!r} has no time zone: add Z or an offset such as +02:00")
    return to_millis(parsed)


def serialize_datetime(value: datetime) -> str:
    return format_timestamp(value)


# Every `datetime` annotation maps to this scalar through the schema's `scalar_map`.
DATETIME_SCALAR = strawberry.scalar(
    name="DateTime",
    description=(
        "Input: ISO-8601 with Z or an offset, or a date alone (midnight UTC). "
        "Output: always UTC, millisecond precision: 2020-11-09T12:00:00.123Z"
    ),
    serialize=serialize_datetime,
    parse_value=parse_datetime,
)


@strawberry.enum
class SortDirection(Enum):
    ASC = "ASC"
    DESC = "DESC"


@strawberry.input(description="Both bounds inclusive; at least one.")
class DateTimeRange:
    from_: datetime | None = strawberry.field(name="from", default=strawberry.UNSET)
    to: datetime | None = strawberry.UNSET
