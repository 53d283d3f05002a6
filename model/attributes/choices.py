"""One of an enum's values, which a new entity may start at."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from errors.vocabulary import BadUserInput
from keys.codecs import ChoiceCodec, Codec
from model.attributes.base import Attribute, Creation, Holder, TypeSentence
from model.errors import ModelError


@dataclass(frozen=True, kw_only=True)
class Choice(Attribute):
    """One of an enum's values; a new entity starts at `initial` when it is given, and the
    client then does not give it on create, unless `settable`: then the client may give
    any of its values on create, `initial` when it leaves it out."""

    values: type[StrEnum]
    initial: StrEnum | None = None
    settable: bool = False

    @property
    def scalar(self) -> type[StrEnum]:
        return self.values

    @property
    def codec(self) -> Codec[Any]:
        return ChoiceCodec(frozenset(self.values))

    @property
    def given(self) -> bool:
        return self.initial is None or self.settable

    @property
    def create_default(self) -> StrEnum | None:
        return self.initial if self.settable else None

    @property
    def optional_on_create(self) -> bool:
        return self.optional or self.settable

    @property
    def starts_at(self) -> StrEnum | None:
        return self.initial

    @property
    def domain(self) -> tuple[StrEnum, ...]:
        return tuple(self.values)

    def made(self, given: Any, creation: Creation) -> StrEnum | None:
        # A settable choice starts at its initial value only when the client leaves it out.
        return self.initial if given is None or not self.settable else None

    def checked(self, value: Any, field: str) -> StrEnum:
        try:
            return self.values(getattr(value, "value", value))
        except ValueError:
            known = ", ".join(self.values)
            raise BadUserInput(f"{str(value)[:64]!r} is not one of {known}", field=field) from None

    def to_stored(self, value: Any) -> str:
        return str(value)

    def from_stored(self, value: Any) -> StrEnum:
        return self.values(value)

    @property
    def absent(self) -> StrEnum | None:
        return self.initial  # declared since the item was written

    @property
    def kind_sentence(self) -> str:
        values = ", ".join(str(value) for value in self.values)
        if self.initial is None:
            return f"One of {values}"
        if self.settable:
            return f"One of {values}; {self.initial} when left out on create"
        return f"One of {values}; {self.initial} when made"

    def type_sentences(self, whose: str) -> Iterator[TypeSentence]:
        yield (self.values.__name__,), f"The values of {whose}."

    def example(self, entity: Holder, name: str) -> StrEnum:
        return self.initial or next(iter(self.values))

    def check_declaration(self, entity: Holder, where: str) -> None:
        if self.initial is not None and not isinstance(self.initial, self.values):
            raise ModelError(f"{where}: its initial value is not one of its values")
        if self.settable and self.initial is None:
            raise ModelError(
                f"{where}: `settable` needs an initial value, for a create that leaves it out"
                " (a choice without one is always given)"
            )
