"""The migration benchmark's model before the change (`bench/migrate.py`): streams of
events, each stream's events listed newest first on GSI1.

    stream  PK = SK = STREAM#<id>     GSI1  STREAM#<id> / STREAM#<id>
    event   PK = SK = EVENT#<id>      GSI1  STREAM#<streamId> / #EVENT#<seq>#<id>
"""

from __future__ import annotations

from enum import StrEnum

from model import (
    GSI1,
    Choice,
    Create,
    Entity,
    Identifier,
    Keys,
    ListOf,
    Lookup,
    Model,
    Number,
    Parent,
    Text,
    key,
    same,
)


class Kind(StrEnum):
    CLICK = "CLICK"
    VIEW = "VIEW"
    BUY = "BUY"


STREAM = Entity(
    "Stream",
    {"id": Identifier(), "name": Text(max_length=40)},
    key=same(key("STREAM", "id")),
    indexes={GSI1: same(key("STREAM", "id"))},
)
EVENT = Entity(
    "Event",
    {
        "id": Identifier(),
        "streamId": Identifier(shown=False),
        "kind": Choice(values=Kind),
        "seq": Number(low=0, high=10**9),
    },
    key=same(key("EVENT", "id")),
    indexes={GSI1: Keys(key("STREAM", "streamId"), key("#EVENT", "seq", "id"))},
    parent=Parent("Stream", {"streamId": "id"}),
)
MODEL = Model(
    (STREAM, EVENT),
    (
        Lookup(STREAM, "stream", access="anyone"),
        Lookup(EVENT, "event", access="anyone"),
        ListOf(EVENT, GSI1, "events", descending=True),
        Create(STREAM, "createStream", access="admins"),
        Create(EVENT, "addEvent", access="admins"),
    ),
)
