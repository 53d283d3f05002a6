"""Key conditions as data: one partition and an inclusive sort-key interval."""

from __future__ import annotations

from dataclasses import dataclass

from keys.codecs import KEY_MAX
from keys.table import Index


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
