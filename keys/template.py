"""Key templates declared as data: a label and an ordered list of composite segments.

`ORDER#2020-11-09T12:00:00.123Z#2JxU…` is the template `ORDER` with the segments
`placed_at` and `id`. Any leading run of segments renders a prefix that only keys with
those values start with, so a partial key doubles as a `begins_with` bound.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from keys.codecs import ANY, DELIMITERS, Codec

DELIMITER = "#"


@dataclass(frozen=True)
class Segment:
    name: str
    codec: Codec[Any]


@dataclass(frozen=True)
class KeyTemplate:
    label: str
    segments: tuple[Segment, ...] = ()

    def render(self, **values: Any) -> str:
        """The full key; every segment must be given."""
        missing = [s.name for s in self.segments if s.name not in values]
        if missing:
            raise TypeError(f"{self.label} key needs {missing}")
        return self.prefix(**values).removesuffix(DELIMITER) if self.segments else self.label

    def prefix(self, **values: Any) -> str:
        """The key up to the first segment not given, ending in a delimiter.

        Segments must be given in order: a value after a gap could not narrow the range.
        """
        unknown = set(values) - {s.name for s in self.segments}
        if unknown:
            raise TypeError(f"{self.label} key has no segments {sorted(unknown)}")
        parts = [self.label]
        for segment in self.segments:
            if segment.name not in values:
                break
            parts.append(_checked(segment.codec.encode(values[segment.name])))
        if len(parts) - 1 != len(values):
            raise TypeError(f"{self.label} key segments must be given in order")
        return DELIMITER.join(parts) + DELIMITER

    def parse(self, key: str) -> dict[str, Any]:
        """The segment values of a full key rendered by this template."""
        # A label may itself start with the delimiter (`#TEAM`, which sorts before letters).
        if key == self.label and not self.segments:
            return {}
        head = self.label + DELIMITER
        parts = key.removeprefix(head).split(DELIMITER)
        if not key.startswith(head) or len(parts) != len(self.segments):
            raise ValueError(f"{key!r} is not a {self.label} key")
        return {s.name: s.codec.decode(p) for s, p in zip(self.segments, parts, strict=True)}

    def matches(self, key: str) -> bool:
        try:
            self.parse(key)
        except ValueError:
            return False
        return True


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
