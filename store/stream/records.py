"""One change of the table's stream, as the reader hands it over: decoded from
GetRecords' answer, and encoded for (and decoded from) the replicas that hear of it
through Redis."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from store.requests import from_attributes, to_attributes


@dataclass(frozen=True)
class StreamRecord:
    """One change of one item, its images decoded to plain values."""

    event: Literal["INSERT", "MODIFY", "REMOVE"]
    keys: dict[str, Any]
    old: dict[str, Any] | None
    new: dict[str, Any] | None
    sequence: str
    shard: str
    # ApproximateCreationDateTime, epoch seconds.
    created: float


def from_raw(raw: Mapping[str, Any], shard: str) -> StreamRecord:
    change = raw["dynamodb"]
    old, new = change.get("OldImage"), change.get("NewImage")
    created = change.get("ApproximateCreationDateTime")
    return StreamRecord(
        event=raw["eventName"],
        keys=from_attributes(change.get("Keys", {})),
        old=None if old is None else from_attributes(old),
        new=None if new is None else from_attributes(new),
        sequence=change["SequenceNumber"],
        shard=shard,
        created=created.timestamp() if isinstance(created, datetime) else float(created or 0),
    )


def encoded(record: StreamRecord) -> dict[str, Any]:
    """`record` as JSON can carry it (images in DynamoDB's typed form, binaries in
    base64), for the replicas that hear of it through Redis."""
    return {
        "event": record.event,
        "keys": _typed(record.keys),
        "old": None if record.old is None else _typed(record.old),
        "new": None if record.new is None else _typed(record.new),
        "sequence": record.sequence,
        "shard": record.shard,
        "created": record.created,
    }


def decoded(data: Mapping[str, Any]) -> StreamRecord:
    """The record `encoded` made."""
    old, new = data["old"], data["new"]
    return StreamRecord(
        event=data["event"],
        keys=_plain_of(data["keys"]),
        old=None if old is None else _plain_of(old),
        new=None if new is None else _plain_of(new),
        sequence=str(data["sequence"]),
        shard=str(data["shard"]),
        created=float(data["created"]),
    )


def _typed(item: Mapping[str, Any]) -> dict[str, Any]:
    return {name: _text_only(value) for name, value in to_attributes(item).items()}


def _plain_of(typed: Mapping[str, Any]) -> dict[str, Any]:
    return from_attributes({name: _bytes_back(value) for name, value in typed.items()})


def _text_only(value: Mapping[str, Any]) -> dict[str, Any]:
    """A typed attribute with its binaries in base64 (JSON has no bytes)."""
    kind, inner = next(iter(value.items()))
    if kind == "B":
        return {"B": base64.b64encode(bytes(inner)).decode()}
    if kind == "BS":
        return {"BS": [base64.b64encode(bytes(b)).decode() for b in inner]}
    if kind == "M":
        return {"M": {k: _text_only(v) for k, v in inner.items()}}
    if kind == "L":
        return {"L": [_text_only(v) for v in inner]}
    return dict(value)


def _bytes_back(value: Mapping[str, Any]) -> dict[str, Any]:
    kind, inner = next(iter(value.items()))
    if kind == "B":
        return {"B": base64.b64decode(inner)}
    if kind == "BS":
        return {"BS": [base64.b64decode(b) for b in inner]}
    if kind == "M":
        return {"M": {k: _bytes_back(v) for k, v in inner.items()}}
    if kind == "L":
        return {"L": [_bytes_back(v) for v in inner]}
    return dict(value)
