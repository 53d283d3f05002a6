"""Key templates declared as data: literal text and composite segments in order.

The classic form is a label and segments joined by `#`: `ORDER#2020-11-09T12:00:00.123Z#2JxU…`
is the template `ORDER` with the segments `placed_at` and `id`. A written form
(`parse_template("$shop#order_${id}")`) holds any literal text around its segments, with a
casing as the key is stored (as given, upper or lower case), for a table another tool made.

Any leading run of segments renders a prefix that only keys with those values start with,
so a partial key doubles as a `begins_with` bound: the prefix ends with the text that
follows its last segment up to a delimiter (`#`, `/`, `~`), which no segment holds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from keys.codecs import ANY, DELIMITERS, Codec

DELIMITER = "#"
Casing = Literal["none", "upper", "lower"]
CASINGS: tuple[Casing, ...] = ("none", "upper", "lower")
# `${attribute}` in a written template.
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_DELIMITED = re.compile(f"[{re.escape(''.join(sorted(DELIMITERS)))}]")


class TemplateError(ValueError):
    """A written template that could not be parsed back into its values."""


@dataclass(frozen=True)
class Segment:
    name: str
    codec: Codec[Any]


@dataclass(frozen=True)
class Written:
    """A written template's text: the literal before each segment and after the last (one
    more than the segments), and the names of its segments, in order."""

    texts: tuple[str, ...]
    names: tuple[str, ...]
    casing: Casing = "none"

    @property
    def label(self) -> str:
        """The literal text before its first segment (the whole key, without one)."""
        return self.texts[0]


def parse_template(text: str, casing: Casing = "none") -> Written:
    """`"ORG#${orgId}#EVENT#${day}"` as literal texts and segment names. Refused
    (TemplateError) unless it parses back whatever it renders: between two segments, and
    after the last one if anything follows it, the literal text holds a delimiter (`#`,
    `/`, `~`), which no segment value can hold; each attribute at most once; no `${` left
    unclosed."""
    if casing not in CASINGS:
        raise TemplateError(f"casing {casing!r}: one of {list(CASINGS)}")
    texts: list[str] = []
    names: list[str] = []
    position = 0
    for found in _PLACEHOLDER.finditer(text):
        texts.append(text[position : found.start()])
        names.append(found.group(1))
        position = found.end()
    texts.append(text[position:])
    if any("${" in t for t in texts):
        raise TemplateError(f"template {text!r}: a `${{` is not closed or names no attribute")
    if len(set(names)) != len(names):
        raise TemplateError(f"template {text!r}: an attribute appears twice")
    for between in texts[1:-1]:
        if not _DELIMITED.search(between):
            raise TemplateError(
                f"template {text!r}: {between!r} between two attributes holds no delimiter"
                " ('#', '/' or '~'), so the key could not be read back into its values"
            )
    if names and texts[-1] and not _DELIMITED.search(texts[-1]):
        raise TemplateError(
            f"template {text!r}: the text {texts[-1]!r} after the last attribute holds no"
            " delimiter ('#', '/' or '~'), so a value could run into it"
        )
    if not names and not text:
        raise TemplateError("an empty template: a key needs text or an attribute")
    return Written(tuple(texts), tuple(names), casing)


@dataclass(frozen=True)
class KeyTemplate:
    label: str
    segments: tuple[Segment, ...] = ()
    # A written template's literal texts (one more than the segments) and casing; None:
    # the classic form, `label#segment#…`.
    texts: tuple[str, ...] | None = None
    casing: Casing = "none"
    # A number key (`N`): its one segment's digits, held as a number.
    numeric: bool = False

    def stored(self, **values: Any) -> str | int:
        """The key as its item holds it: text, or a number for a number key."""
        rendered = self.render(**values)
        return int(rendered) if self.numeric else rendered

    def render(self, **values: Any) -> str:
        """The full key; every segment must be given."""
        missing = [s.name for s in self.segments if s.name not in values]
        if missing:
            raise TypeError(f"{self.label} key needs {missing}")
        if self.texts is not None:
            parts = [self.texts[0]]
            for segment, after in zip(self.segments, self.texts[1:], strict=True):
                parts += [_checked(segment.codec.encode(values[segment.name])), after]
            return self._cased("".join(parts))
        return self.prefix(**values).removesuffix(DELIMITER) if self.segments else self.label

    def prefix(self, **values: Any) -> str:
        """The key up to the first segment not given, ending in the text that follows the
        last given segment up to a delimiter (a delimiter, when none follows).

        Segments must be given in order: a value after a gap could not narrow the range.
        """
        unknown = set(values) - {s.name for s in self.segments}
        if unknown:
            raise TypeError(f"{self.label} key has no segments {sorted(unknown)}")
        if self.texts is None:
            parts = [self.label]
            for segment in self.segments:
                if segment.name not in values:
                    break
                parts.append(_checked(segment.codec.encode(values[segment.name])))
            if len(parts) - 1 != len(values):
                raise TypeError(f"{self.label} key segments must be given in order")
            return DELIMITER.join(parts) + DELIMITER
        given = 0
        parts = [self.texts[0]]
        for segment in self.segments:
            if segment.name not in values:
                break
            if given:
                parts.append(self.texts[given])
            parts.append(_checked(segment.codec.encode(values[segment.name])))
            given += 1
        if given != len(values):
            raise TypeError(f"{self.label} key segments must be given in order")
        if given:
            after = self.texts[given]
            found = _DELIMITED.search(after)
            # The text up to its first delimiter ends the value: no longer value matches.
            parts.append(after[: found.end()] if found else after + DELIMITER)
        return self._cased("".join(parts))

    def parse(self, key: str | int) -> dict[str, Any]:
        """The segment values of a full key rendered by this template (a key stored in
        one case holds its values in that case; a number key, as a number)."""
        if self.numeric and isinstance(key, int):
            key = str(key)
        if not isinstance(key, str):
            raise ValueError(f"{key!r} is not a {self.label!r} key")
        if self.texts is not None:
            found = self._pattern.fullmatch(key)
            if found is None:
                raise ValueError(f"{key!r} is not a {self.label!r} key")
            return {
                s.name: s.codec.decode(value)
                for s, value in zip(self.segments, found.groups(), strict=True)
            }
        # A label may itself start with the delimiter (`#TEAM`, which sorts before letters).
        if key == self.label and not self.segments:
            return {}
        head = self.label + DELIMITER
        parts = key.removeprefix(head).split(DELIMITER)
        if not key.startswith(head) or len(parts) != len(self.segments):
            raise ValueError(f"{key!r} is not a {self.label} key")
        return {s.name: s.codec.decode(p) for s, p in zip(self.segments, parts, strict=True)}

    def matches(self, key: str | int) -> bool:
        if self.texts is not None and self.casing != "none":
            # Values stored folded may not decode (a KSUID in lower case): the form decides.
            return isinstance(key, str) and self._pattern.fullmatch(key) is not None
        try:
            self.parse(key)
        except ValueError:
            return False
        return True

    def described(self, fixed: Mapping[str, Any] | None = None) -> str:
        """The key with each segment named (`CUSTOMER#<id>`), or its value where fixed."""
        given = fixed or {}
        named = [str(given[s.name]) if s.name in given else f"<{s.name}>" for s in self.segments]
        if self.texts is None:
            return DELIMITER.join([self.label, *named])
        parts = [self.texts[0]]
        for value, after in zip(named, self.texts[1:], strict=True):
            parts += [value, after]
        shown = "".join(parts)
        return shown if self.casing == "none" else f"{shown} ({self.casing} case)"

    @cached_property
    def _pattern(self) -> re.Pattern[str]:
        assert self.texts is not None
        value = f"([^{re.escape(''.join(sorted(DELIMITERS - {ANY})))}]+)"
        return re.compile(value.join(re.escape(self._cased(t)) for t in self.texts))

    def _cased(self, key: str) -> str:
        if self.casing == "upper":
            return key.upper()
        if self.casing == "lower":
            return key.lower()
        return key


def _checked(segment: str) -> str:
    # Codecs promise this already; a key built from a bad segment could reach another entity.
    if segment == ANY:
        return segment
    if DELIMITERS.intersection(segment) or not segment:
        raise ValueError(f"segment {segment!r} is empty or holds a delimiter")
    return segment


def render_all(templates: Mapping[str, KeyTemplate], **values: Any) -> dict[str, str]:
    """Render several key attributes (`{"PK": t1, "SK": t2}`) from one set of values."""
    return {
        attribute: template.render(**{s.name: values[s.name] for s in template.segments})
        for attribute, template in templates.items()
    }
