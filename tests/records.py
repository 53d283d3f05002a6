"""Records as the tests read them: a declared entity's record (`data.entities.record`), its
attributes also read by their snake-case names (`repo.star_count` is `repo["starCount"]`),
or made into a dataclass whose fields are those names."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Self, dataclass_transform

from data.entities import record
from model import Entity
from store.requests import Item


def attribute_name(field: str) -> str:
    """The attribute a snake-case field stands for (`star_count` is `starCount`)."""
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), field)


class Fields(dict[str, Any]):
    """A record whose attributes read as fields, in snake case."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[attribute_name(name)]
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


@dataclass_transform(frozen_default=True)
class FromRecord:
    """A frozen dataclass of the attributes of the entity its class names
    (`class Comment(FromRecord, entity=COMMENT)`), each field the attribute of its
    snake-case name, made from the entity's record: one reading for every such class."""

    ENTITY: ClassVar[Entity]

    def __init_subclass__(cls, entity: Entity, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.ENTITY = entity
        dataclass(frozen=True)(cls)

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> Self:
        return cls(**{f.name: values[attribute_name(f.name)] for f in fields(cls)})

    @classmethod
    def from_item(cls, item: Item) -> Self:
        return cls.of(record(cls.ENTITY, item))
