"""A time, held as ISO text or as a number since 1970, and stamped by the engine's clock
when declared so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from keys.codecs import Codec, TimestampCodec
from model.attributes.base import Attribute, Scalar, Stamp, TimeFormat


@dataclass(frozen=True, kw_only=True)
class Timestamp(Attribute):
    """A time, in milliseconds, held as `stored_as` says (keys hold it as ISO text only);
    `stamped` on create or on every write by the engine's clock (then never given by a
    client). A timestamp stamped on every write that sorts an index is a changing
    sort key: an update moves the item within that index.
    `imported`: stamped on create unless an admin gives an earlier time (an import of older
    data); anyone else giving one is refused."""

    stamped: Stamp | None = None
    imported: bool = False
    stored_as: TimeFormat = "iso"

    @property
    def scalar(self) -> Scalar:
        return "DateTime"

    @property
    def codec(self) -> Codec[Any] | None:
        # Keys hold times as fixed-width ISO text, which sorts; epoch numbers are values only.
        return TimestampCodec() if self.stored_as == "iso" else None

    @property
    def given(self) -> bool:
        return self.stamped is None or self.imported

    @property
    def changeable(self) -> bool:
        return self.stamped is None

    @property
    def most_bytes(self) -> int:
        return 24
