"""The migration benchmark's model after the change (`bench/migrate.py`): each stream's
events also listed by kind, then sequence, on a new index GSI2, and a new `level` that
existing events get as its initial value.

    event   GSI2  STREAM#<streamId> / EVENT#<kind>#<seq>#<id>
"""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum

from bench.events_v1 import EVENT as OLD_EVENT
from bench.events_v1 import STREAM as OLD_STREAM
from model import GSI1, GSI2, Choice, Create, Keys, ListOf, Lookup, Model, Range, key, same


class Level(StrEnum):
    INFO = "INFO"
    ALERT = "ALERT"


STREAM = replace(
    OLD_STREAM, indexes={GSI1: same(key("STREAM", "id")), GSI2: same(key("STREAM", "id"))}
)
EVENT = replace(
    OLD_EVENT,
    attributes={**OLD_EVENT.attributes, "level": Choice(values=Level, initial=Level.INFO)},
    indexes={
        **OLD_EVENT.indexes,
        GSI2: Keys(key("STREAM", "streamId"), key("EVENT", "kind", "seq", "id")),
    },
)
MODEL = Model(
    (STREAM, EVENT),
    (
        Lookup(STREAM, "stream", access="anyone"),
        Lookup(EVENT, "event", access="anyone"),
        ListOf(EVENT, GSI1, "events", descending=True),
        ListOf(EVENT, GSI2, "byKind", equal=("kind",), range=Range("seq", "seqs")),
        Create(STREAM, "createStream", access="admins"),
        Create(EVENT, "addEvent", access="admins"),
    ),
)
