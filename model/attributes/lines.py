"""An entity's lines, kept in its own item (an order's), and the total the engine computes
over them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from model.attributes.base import Attribute, Scalar
from model.attributes.numbers import EngineNumber, Number
from model.attributes.texts import Text


@dataclass(frozen=True, kw_only=True)
class Lines(Attribute):
    """1 to `most` entries of `fields` (texts and numbers), kept inside the entity's own
    item and given once, on create (an order's lines): the entity with its lines is one
    read. GraphQL shows them as `[<name>!]!`, each with its `numbered` field (its position,
    from 1) first, and takes them as `[<name>Input!]!`."""

    name: str
    fields: Mapping[str, Text | Number] = field(default_factory=dict)
    most: int = 50
    numbered: str = "position"

    @property
    def scalar(self) -> Scalar:
        raise TypeError("lines are an object type of their own")

    @property
    def changeable(self) -> bool:
        return False

    @property
    def most_bytes(self) -> int:
        names = sum(map(len, self.fields)) + len(self.numbered)
        line = sum(f.most_bytes for f in self.fields.values()) + Number().most_bytes + names
        return self.most * line


@dataclass(frozen=True, kw_only=True)
class Total(EngineNumber):
    """A number the engine computes on create: the sum, over the entity's `lines`, of the
    product of the numbers `of` (`Total(lines="items", of=("quantity", "unitPriceCents"),
    unit="cents")`), at most `high`; a larger one refuses the create."""

    lines: str
    of: tuple[str, ...]
    unit: str = ""
    high: int = 2**31 - 1
