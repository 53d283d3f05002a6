"""One of an enum's values, which a new entity may start at."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from keys.codecs import ChoiceCodec, Codec
from model.attributes.base import Attribute


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
