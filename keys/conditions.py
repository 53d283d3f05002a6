"""Key conditions as data: one partition and an inclusive sort-key interval."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from keys.codecs import KEY_MAX
from keys.table import Index
from keys.template import KeyTemplate


@dataclass(frozen=True)
class KeyCondition:
    """`partition_key = partition AND sort_key BETWEEN low AND high` on `index`.

    `None` leaves that end open. A prefix is the interval `[p, p + KEY_MAX]`.
    """

    index: Index
    partition: str
    low: str | None = None
    high: str | None = None

    @classmethod
    def prefix(cls, index: Index, partition: str, prefix: str) -> KeyCondition:
        return cls(index, partition, prefix, prefix + KEY_MAX)

    @property
    def begins_with(self) -> str | None:
        """The prefix this interval stands for, if it is one."""
        if self.low is not None and self.high == self.low + KEY_MAX:
            return self.low
        return None

    def contains(self, sort_key: str) -> bool:
        return (self.low is None or self.low <= sort_key) and (
            self.high is None or sort_key <= self.high
        )


def narrowed_to(
    index: Index, partition: str, template: KeyTemplate, leading: Mapping[str, Any]
) -> KeyCondition:
    """The keys of `template` with the `leading` segments: a prefix, or for a number key
    (one segment) that number or the whole partition."""
    if not template.numeric:
        return KeyCondition.prefix(index, partition, template.prefix(**leading))
    if not leading:
        return KeyCondition(index, partition)
    exact = template.render(**leading)
    return KeyCondition(index, partition, exact, exact)


def within(
    index: Index,
    partition: str,
    template: KeyTemplate,
    leading: Mapping[str, Any],
    name: str,
    start: Any | None,
    end: Any | None,
) -> KeyCondition:
    """The keys of `template` with the `leading` segments, whose next segment `name` is from
    `start` to `end` (both inclusive; None leaves that end open)."""
    if template.numeric:  # numbers compare as numbers: the bounds are the values
        low_number = None if start is None else template.render(**{name: start})
        high_number = None if end is None else template.render(**{name: end})
        return KeyCondition(index, partition, low_number, high_number)
    whole = KeyCondition.prefix(index, partition, template.prefix(**leading))
    # On the last segment the key itself is the least with that value (its prefix would
    # add a delimiter after it); before it, the prefix is.
    bounded = template.render if name == template.segments[-1].name else template.prefix
    low = whole.low if start is None else bounded(**leading, **{name: start})
    # Keys at the end's value extend its prefix, so the prefix plus KEY_MAX bounds them.
    high = whole.high if end is None else template.prefix(**leading, **{name: end}) + KEY_MAX
    return KeyCondition(index, partition, low, high)
