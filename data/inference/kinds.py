"""Attribute kinds drafted from the values a sample's items hold (`dynagate model infer`):
identifiers where a key holds them, ISO 8601 times, texts with a round length above the
longest seen, whole numbers with round bounds around those seen, and the kinds the model
offers for the rest (flags, sets, JSON, non-whole numbers, epoch times) where it has them;
a value no kind holds is said in a comment. Also the names: an item attribute whose name is
no GraphQL field's (`__edb_e__`, `_type`) is declared under one, `stored` as it is. Pure.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import model
from data.inference.key_formats import camel
from errors.vocabulary import BadUserInput
from keys.codecs import IDENTIFIER_PATTERN, parse_timestamp
from model.attributes import TEXT_MAX
from model.entities import ENGINE_ATTRIBUTES, INT_MAX

# The longest text a draft declares (4 bytes a character, many in one item of 400 KB).
MOST_TEXT = 10_000
# Whole numbers read as times since the epoch, by the name they are under: 2001 to 2100.
_EPOCH_SECONDS = (978_307_200, 4_102_444_800)
_TIMELY = re.compile(
    r".+(At|Time|Date|Ts|_at|_time|_date|_ts)|created|updated|modified|timestamp|time|date|ts"
)
_CREATED = {"created", "createdAt", "created_at", "createdOn", "creationTime", "createTime"}
_UPDATED = {"updated", "updatedAt", "updated_at", "modified", "modifiedAt", "updateTime"}
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_LOWER_EMAIL = "[a-z0-9._%+-]+@[a-z0-9.-]+"
_GRAPHQL_NAME = re.compile(r"[A-Za-z][_0-9A-Za-z]*")


@dataclass(frozen=True)
class Drafted:
    """One attribute as the draft declares it: its name and kind (`Text`), the kind's
    options, or, without a kind, why not (a comment)."""

    name: str
    kind: str | None
    options: dict[str, Any] = field(default_factory=dict)
    note: str | None = None


def offered() -> frozenset[str]:
    """The kinds beyond the first ones that the model offers now, each made without
    arguments (`Flag`, `TextSet`, `NumberSet`, `Json`, `Real`), and `epoch` where a
    `Timestamp` may be stored as seconds or milliseconds since the epoch."""
    found = set()
    for name in ("Flag", "TextSet", "NumberSet", "Json", "Real"):
        kind = getattr(model, name, None)
        if isinstance(kind, type) and issubclass(kind, model.Attribute):
            try:
                kind()
            except (TypeError, ValueError):
                continue
            found.add(name)
    if "stored_as" in {f.name for f in dataclasses.fields(model.Timestamp)}:
        found.add("epoch")
    return frozenset(found)


def field_name(raw: str, taken: set[str]) -> tuple[str, str | None] | None:
    """The attribute's name for the item attribute `raw`, and the name it is stored under
    when that differs; None: no attribute can be stored under `raw` (the engine's own name,
    or one of other characters than letters, digits and `_`)."""
    if raw in ENGINE_ATTRIBUTES or not raw.isidentifier():
        return None
    if _GRAPHQL_NAME.fullmatch(raw) and raw not in taken:
        return raw, None
    base = camel(raw) or "value"
    if base[0].isdigit():
        base = "n" + base
    name, number = base, 2
    while name in taken or name in ENGINE_ATTRIBUTES:
        name, number = f"{base}Value" if number == 2 else f"{base}Value{number}", number + 1
    return name, raw


def kind_of(
    name: str,
    values: Sequence[Any],
    *,
    optional: bool,
    keyed: bool = False,
    width: int | None = None,
    offers: frozenset[str] = frozenset(),
) -> Drafted:
    """The kind of the values one attribute holds on a group's items (None where an item
    has none); `keyed`: a key holds it, a zero-padded number of `width` digits if given."""
    held = [v for v in values if v is not None]
    kinds = {_type_of(v) for v in held}
    extra: dict[str, Any] = {"optional": True} if optional and not keyed else {}
    if not held:
        return Drafted(name, None, note="always null")
    if len(kinds) > 1 and kinds != {"whole", "real"}:
        return Drafted(name, None, note=f"{', '.join(sorted(kinds))} mixed: no kind holds them")
    (seen,) = kinds if len(kinds) == 1 else {"real"}
    if seen == "text":
        return _text(name, [str(v) for v in held], keyed, extra)
    if seen == "whole":
        return _whole(name, [int(v) for v in held], (keyed, width), extra, offers)
    if seen == "numbers" and all(float(v).is_integer() for s in held for v in s):
        numbers = [int(v) for s in held for v in s]
        bottom = 0 if min(numbers) >= 0 else -round_up(-min(numbers))
        if "NumberSet" in offers and max(numbers) < INT_MAX:
            bounds = {"low": bottom, "high": round_up(max(numbers))}
            return Drafted(name, "NumberSet", {**bounds, **_most(held), **extra})
    if seen == "texts" and "TextSet" in offers:
        longest = max(len(v) for s in held for v in s)
        length = {"max_length": round_up(longest)} if longest >= TEXT_MAX else {}
        return Drafted(name, "TextSet", {**length, **_most(held), **extra})
    simple = {"real": "Real", "flag": "Flag", "json": "Json"}.get(seen)
    if simple is not None and simple in offers:
        return Drafted(name, simple, extra)
    return Drafted(name, None, note=f"{_SAID.get(seen, seen)} — no kind yet")


_SAID = {
    "real": "non-whole numbers",
    "flag": "booleans",
    "texts": "sets of strings",
    "numbers": "sets of numbers",
    "json": "lists and maps",
    "binary": "binary values",
}


def _most(sets: Sequence[Any]) -> dict[str, int]:
    """A set's most values, where the sample holds one of more than the default 100."""
    largest = max(map(len, sets))
    return {"most": round_up(largest)} if largest >= 100 else {}


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "flag"
    if isinstance(value, int):
        return "whole"
    if isinstance(value, float):
        return "real" if not value.is_integer() else "whole"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list | dict):
        return "json"
    if isinstance(value, set | frozenset):
        if value and all(isinstance(v, str) for v in value):
            return "texts"
        if value and all(hasattr(v, "as_integer_ratio") for v in value):
            return "numbers"
        return "binary" if value else "json"
    return "binary"


def _text(name: str, held: list[str], keyed: bool, extra: dict[str, Any]) -> Drafted:
    longest = max(map(len, held))
    if all(_is_time(v) for v in held):
        stamped = "create" if name in _CREATED else "write" if name in _UPDATED else None
        return Drafted(name, "Timestamp", {**({"stamped": stamped} if stamped else {}), **extra})
    if keyed and all(IDENTIFIER_PATTERN.fullmatch(v) for v in held):
        return Drafted(name, "Identifier", extra)
    if keyed:
        email = all(_EMAIL.fullmatch(v) for v in held)
        code = {
            "pattern": _LOWER_EMAIL if email else "[^#/~]+",
            "described": "an e-mail address" if email else f"a value such as {held[0][:20]!r}",
            "max_length": min(round_up(longest), MOST_TEXT),
        }
        mixed_case = any(v != v.lower() for v in held)
        note = (
            "kept in lower case by Code: review, values seen in upper case" if mixed_case else None
        )
        return Drafted(name, "Code", {**code, **extra}, note)
    if longest <= 200 and all(_EMAIL.fullmatch(v) for v in held):
        return Drafted(name, "Email", extra)
    options: dict[str, Any] = {"max_length": min(round_up(longest), MOST_TEXT)}
    if any("\n" in v or "\t" in v for v in held):
        options["multiline"] = True
    note = f"texts of up to {longest:,} characters seen" if longest > MOST_TEXT else None
    if all(_ISO.fullmatch(v) for v in held):
        note = "ISO 8601 times in another form than a Timestamp writes (2025-03-01T09:00:00.000Z)"
    return Drafted(name, "Text", {**options, **extra}, note)


def _whole(
    name: str,
    held: list[int],
    key: tuple[bool, int | None],
    extra: dict[str, Any],
    offers: frozenset[str],
) -> Drafted:
    low, high = min(held), max(held)
    keyed, width = key
    if keyed and width is not None:
        return Drafted(name, "Number", {"low": 0, "high": 10**width - 1, **extra})
    if keyed:
        return Drafted(name, None, note="numbers in a key, not zero-padded — no kind holds them")
    if _TIMELY.fullmatch(name) and low > 0:
        for stored_as, scale in (("epoch_seconds", 1), ("epoch_millis", 1000)):
            earliest, latest = (scale * bound for bound in _EPOCH_SECONDS)
            if earliest <= low and high <= latest:
                if "epoch" in offers:
                    return Drafted(name, "Timestamp", {"stored_as": stored_as, **extra})
                if high > INT_MAX:
                    return Drafted(name, None, note=f"times in {stored_as} — no kind yet")
                times = f"times in {stored_as}, it seems: no Timestamp kind holds them yet"
                return Drafted(name, "Number", {"low": 0, "high": INT_MAX, **extra}, times)
    if low >= -INT_MAX - 1 and high <= INT_MAX:
        bottom = 0 if low >= 0 else max(-round_up(-low), -INT_MAX - 1)
        top = min(round_up(high), INT_MAX)
        return Drafted(name, "Number", {"low": bottom, "high": top, **extra})
    if "Real" in offers:
        return Drafted(name, "Real", extra)
    return Drafted(name, None, note="whole numbers beyond GraphQL's Int — no kind yet")


def _is_time(value: str) -> bool:
    """An ISO 8601 time as the engine keeps one: `2025-03-01T09:00:00.000Z`."""
    try:
        parse_timestamp(value)
    except BadUserInput:
        return False
    return True


def round_up(number: int) -> int:
    """The first of 10, 20, 50, 100, 200, 500, … above `number`."""
    scale = 10
    while True:
        for step in (1, 2, 5):
            if step * scale > number:
                return step * scale
        scale *= 10
