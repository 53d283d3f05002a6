"""Records as the tests read them: a declared entity's record (`data.entities.record`), its
attributes also read by their snake-case names (`repo.star_count` is `repo["starCount"]`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from data.entities import record
from model import Entity
from store.requests import Item


class Fields(dict[str, Any]):
    """A record whose attributes read as fields, in snake case."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)]
        except KeyError:
            raise AttributeError(name) from None


@dataclass(frozen=True)
class RecordOf:
    """The records of one entity, made from values or from a stored item."""

    entity: Entity

    def of(self, values: Mapping[str, Any]) -> Fields:
        return Fields(values)

    def from_item(self, item: Item) -> Fields:
        return Fields(record(self.entity, item))
