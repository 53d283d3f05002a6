"""Values as other apps store them (`model/stored_values.py`): the check of a client's
booleans, non-whole numbers, sets and JSON, and times held as ISO text or epoch numbers,
both ways."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from math import isfinite
from typing import Any

from data import validation
from errors.vocabulary import BadUserInput
from keys.codecs import format_timestamp, from_epoch, parse_timestamp, to_epoch, to_millis
from model.attributes import Flag, Json, NumberSet, Real, TextSet, TimeFormat

# DynamoDB's deepest nesting of lists and maps.
JSON_DEPTH = 32


def checked(attribute: Flag | Real | TextSet | NumberSet | Json, value: Any, field: str) -> Any:
    """A client's `value` as it is kept, or BAD_USER_INPUT naming `field`."""
    if isinstance(attribute, Flag):
        if not isinstance(value, bool):
            raise BadUserInput("must be true or false", field=field)
        return value
    if isinstance(attribute, Real):
        number = float(value)
        if not isfinite(number) or not attribute.low <= number <= attribute.high:
            raise BadUserInput(
                f"{value} is outside {attribute.low:g} to {attribute.high:g}", field=field
            )
        return number
    if isinstance(attribute, TextSet):
        texts = {validation.text(t, field, attribute.max_length) for t in value}
        return _at_most(sorted(texts), attribute.most, field)
    if isinstance(attribute, NumberSet):
        numbers = {validation.number(n, field, attribute.low, attribute.high) for n in value}
        return _at_most(sorted(numbers), attribute.most, field)
    return _json(attribute, value, field)


def _at_most(values: list[Any], most: int, field: str) -> list[Any]:
    if len(values) > most:
        raise BadUserInput(f"{len(values)} distinct values; at most {most}", field=field)
    return values


def _json(attribute: Json, value: Any, field: str) -> Any:
    if not isinstance(value, list | dict):
        raise BadUserInput("must be a JSON list or object", field=field)
    try:
        written = json.dumps(value, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):
        raise BadUserInput("holds a value JSON cannot", field=field) from None
    if len(written.encode()) > attribute.limit:
        raise BadUserInput(f"over {attribute.limit:,} bytes as JSON", field=field)
    if _depth(value) > JSON_DEPTH:
        raise BadUserInput(f"nested over {JSON_DEPTH} levels", field=field)
    return value


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def json_loaded(value: Any) -> Any:
    """A stored list or map as JSON shows it: sets as sorted lists, binaries as base64."""
    if isinstance(value, Mapping):
        return {name: json_loaded(v) for name, v in value.items()}
    if isinstance(value, list):
        return [json_loaded(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(json_loaded(v) for v in value)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    if hasattr(value, "value") and isinstance(value.value, bytes):  # boto3's Binary
        return base64.b64encode(value.value).decode()
    return value


def time_stored(form: TimeFormat, value: datetime) -> str | int:
    if form == "iso":
        return format_timestamp(value)
    return to_epoch(value, millis=form == "epoch_millis")


def time_loaded(form: TimeFormat, value: Any) -> datetime:
    """The time an item holds: the engine's own ISO form, any ISO 8601 text (a time without
    a zone is UTC), or a number of seconds or milliseconds since 1970."""
    if form == "iso":
        if not isinstance(value, str):
            raise ValueError(f"{value!r} is no ISO 8601 time")
        try:
            return parse_timestamp(value)
        except BadUserInput:
            written = datetime.fromisoformat(value)
            return to_millis(written if written.tzinfo else written.replace(tzinfo=UTC))
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{value!r} is no number of {form.removeprefix('epoch_')}")
    return from_epoch(value, millis=form == "epoch_millis")
