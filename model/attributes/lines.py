"""An entity's lines, kept in its own item (an order's), and the total the engine computes
over them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from math import prod
from typing import Any

from errors.vocabulary import BadUserInput
from model.attributes.base import INT_MAX, Attribute, Holder, Scalar, TypeSentence
from model.attributes.numbers import EngineNumber, Number
from model.attributes.texts import Text
from model.attributes.value_checks import number
from model.errors import ModelError

MOST_LINES = 100
# How a line's position is read: a number, which no field declares.
_POSITION = Number()


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
    def as_lines(self) -> Lines:
        return self

    @property
    def listed_most(self) -> int:
        return self.most

    @property
    def most_bytes(self) -> int:
        names = sum(map(len, self.fields)) + len(self.numbered)
        line = sum(f.most_bytes for f in self.fields.values()) + Number().most_bytes + names
        return self.most * line

    def checked(self, value: Any, field: str) -> list[dict[str, Any]]:
        """Each line as kept: a mapping of its fields, numbered from 1 (a line given as an
        object is read by its fields' names)."""
        lines = list(value)
        number(len(lines), f"{field} (count)", 1, self.most)
        kept = []
        for position, line in enumerate(lines, start=1):
            values = {self.numbered: position}
            for name, kind in self.fields.items():
                given = line.get(name) if isinstance(line, Mapping) else getattr(line, name, None)
                values[name] = kind.accepted(given, f"{field}[{position}].{name}")
            kept.append(values)
        return kept

    def from_stored(self, value: Any) -> list[dict[str, Any]]:
        # The position, which no field declares, is a number too.
        return [
            {n: _read(self.fields.get(n, _POSITION), v) for n, v in line.items()} for line in value
        ]

    @property
    def kind_sentence(self) -> str:
        return (
            f"1 to {self.most} lines, each numbered by `{self.numbered}` from 1;"
            " given once, on create"
        )

    def type_sentences(self, whose: str) -> Iterator[TypeSentence]:
        line = f"One line of {whose}"
        yield (self.name,), f"{line}."
        yield (f"{self.name}Input",), f"{line}, as a client gives it."
        yield (self.name, self.numbered), "The line's place among them, from 1."
        for field_name, kind in self.fields.items():
            for type_name in (self.name, f"{self.name}Input"):
                yield (type_name, field_name), kind.sentence

    def example(self, entity: Holder, name: str) -> list[dict[str, Any]]:
        line = {n: f.example(entity, n) for n, f in self.fields.items()}
        return [{self.numbered: 1, **line}]

    def check_declaration(self, entity: Holder, where: str) -> None:
        if (
            not self.fields
            or self.numbered in self.fields
            or not all(
                isinstance(f, Text | Number) and not f.optional for f in self.fields.values()
            )
            or not 1 <= self.most <= MOST_LINES
            or self.optional
        ):
            raise ModelError(
                f"{where}: lines need fields (texts and numbers, none optional or named"
                f" {self.numbered!r}), at most {MOST_LINES} of them, and are not optional"
            )


def _read(kind: Attribute, value: Any) -> Any:
    return None if value is None else kind.from_stored(value)


@dataclass(frozen=True, kw_only=True)
class Total(EngineNumber):
    """A number the engine computes on create: the sum, over the entity's `lines`, of the
    product of the numbers `of` (`Total(lines="items", of=("quantity", "unitPriceCents"),
    unit="cents")`), at most `high`; a larger one refuses the create."""

    lines: str
    of: tuple[str, ...]
    unit: str = ""
    high: int = 2**31 - 1

    @property
    def kind_sentence(self) -> str:
        unit = f" in {self.unit}" if self.unit else ""
        product = " times ".join(self.of)
        return f"The sum over `{self.lines}` of {product}{unit}, computed on create"

    def computed(self, entity: Holder, values: Mapping[str, Any]) -> int:
        """The total over the lines in `values`, refused over its most."""
        found = sum(int(prod(line[name] for name in self.of)) for line in values[self.lines])
        if found > self.high:
            unit = f" {self.unit}" if self.unit else ""
            raise BadUserInput(
                f"{self.lines}: the {entity.noun} total {found:,}{unit} is over {self.high:,}"
            )
        return found

    def check_declaration(self, entity: Holder, where: str) -> None:
        lines = entity.attributes.get(self.lines)
        numbers = [] if not isinstance(lines, Lines) else [lines.fields.get(n) for n in self.of]
        if not numbers or not all(isinstance(n, Number) and n.low >= 0 for n in numbers):
            raise ModelError(
                f"{where}: a total of {list(self.of)} needs lines {self.lines!r}"
                " with those numbers, none negative"
            )
        if not 0 < self.high <= INT_MAX:
            raise ModelError(f"{where}: its most must be within GraphQL's 32-bit Int")
