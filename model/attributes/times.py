"""A time, held as ISO text or as a number since 1970, and stamped by the engine's clock
when declared so; and its forms both ways."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

from errors.vocabulary import BadUserInput
from keys.codecs import (
    Codec,
    EpochCodec,
    TimestampCodec,
    format_timestamp,
    from_epoch,
    parse_timestamp,
    to_epoch,
    to_millis,
)
from model.attributes.base import (
    EXAMPLE_TIME,
    Attribute,
    Creation,
    Holder,
    Scalar,
    Stamp,
    TimeFormat,
)
from model.errors import ModelError


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
    fixed_scalar: ClassVar[Scalar] = "DateTime"
    fixed_bytes: ClassVar[int] = 24

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
    def importable(self) -> bool:
        return self.imported

    @property
    def number_codec(self) -> Codec[Any] | None:
        if self.stored_as == "iso":
            return None
        return EpochCodec(millis=self.stored_as == "epoch_millis")

    def made(self, given: Any, creation: Creation) -> datetime | None:
        if self.stamped is None:
            return None
        return creation.created if self.stamped == "create" else creation.current

    def checked(self, value: Any, field: str) -> datetime:
        if not isinstance(value, datetime) or value.utcoffset() is None:
            raise BadUserInput("a time needs a time zone", field=field)
        return to_millis(value)

    def to_stored(self, value: Any) -> str | int:
        return time_stored(self.stored_as, value)

    def from_stored(self, value: Any) -> datetime:
        return time_loaded(self.stored_as, value)

    @property
    def kind_sentence(self) -> str:
        said = "A time in UTC, to the millisecond"
        if self.stamped == "write":
            return f"{said}, set at every write"
        if self.stamped == "create":
            earlier = "; admins may give an earlier one" if self.imported else ""
            return f"{said}, set on create{earlier}"
        return said

    def example(self, entity: Holder, name: str) -> datetime:
        return EXAMPLE_TIME

    def check_declaration(self, entity: Holder, where: str) -> None:
        if self.imported and self.stamped != "create":
            raise ModelError(f"{where}: only a time stamped on create may be imported")


def time_stored(form: TimeFormat, value: datetime) -> str | int:
    if form == "iso":
        return format_timestamp(value)
    return to_epoch(value, millis=form == "epoch_millis")


def time_loaded(form: TimeFormat, value: Any) -> datetime:
    """The time an item holds: the engine's own ISO form, any ISO 8601 text (a time without
    a zone is UTC), or a number of seconds or milliseconds since 1970."""
    if form == "iso":
        if not isinstance(value, str):
            raise ValueError(f"{value!r} is no ISO 8601 time")
        try:
            return parse_timestamp(value)
        except BadUserInput:
            written = datetime.fromisoformat(value)
            return to_millis(written if written.tzinfo else written.replace(tzinfo=UTC))
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{value!r} is no number of {form.removeprefix('epoch_')}")
    return from_epoch(value, millis=form == "epoch_millis")
