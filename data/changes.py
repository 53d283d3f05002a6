"""Entity changes read from the table's stream, and what each subscription wants of them.

A stream record is one item's change. Only an entity's own item makes an entity change
(a declared entity's own item); the items derived from it (comment copies, marker places
and cell counters, index attributes) make none, so one change of an entity is one change
here, whichever items the write touched.

Each change has a *topic*, the one partition of subscriptions that can want it (the
product of a comment, the repository of an issue …), so a change is matched only against
the subscriptions of its topic; the subscription's filter then decides its kind from the
old and new states (`kind_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Protocol

from keys.table import TABLE, Index
from store.trace_marks import cause_of

Item = dict[str, Any]


class ChangeKind(StrEnum):
    ADDED = "ADDED"
    CHANGED = "CHANGED"
    REMOVED = "REMOVED"


class Record(Protocol):
    """What a change is made of: one stream record (`store.stream.reader.StreamRecord`)."""

    @property
    def keys(self) -> Mapping[str, Any]: ...
    @property
    def old(self) -> Mapping[str, Any] | None: ...
    @property
    def new(self) -> Mapping[str, Any] | None: ...
    @property
    def created(self) -> float: ...


@dataclass(frozen=True)
class Change:
    """One entity's change: its states before and after (None where it did not exist)."""

    topic: tuple[str, str]
    id: str
    old: Any
    new: Any
    # When DynamoDB wrote it (epoch seconds), for the stream lag.
    created: float
    # Whether the old and the new state belong to `topic`: a ticket moved to another queue
    # leaves one topic (REMOVED there) and enters another (ADDED there).
    was_here: bool = True
    is_here: bool = True
    # The traceparent of the write that made it, when that write was traced
    # (`store/trace_marks.py`).
    cause: str | None = None


@dataclass(frozen=True)
class Followed:
    """An entity whose changes subscriptions follow: how its own item is recognised (by
    its table key), its state read and its topic found."""

    name: str
    owns: Callable[[str, str], bool]
    read: Callable[[Item], Any]
    topic: Callable[[Item, str], str]
    id_of: Callable[[Item], str]
    # The table its items are keyed on (the layout's).
    table: Index = TABLE


def entity_changes(record: Record, followed: Sequence[Followed]) -> list[Change]:
    """The entity change `record` is, once per topic it concerns (two when the entity moves
    from one topic to another, one per list that follows it); none for an item derived from
    an entity, or one no subscription follows. An item that is not a whole entity raises
    KeyError, TypeError or ValueError."""
    found: list[Change] = []
    for entity in followed:
        partition = record.keys.get(entity.table.partition_key)
        sort = record.keys.get(entity.table.sort_key)
        if not isinstance(partition, str) or not isinstance(sort, str):
            continue
        if not entity.owns(partition, sort):
            continue
        old = None if record.old is None else dict(record.old)
        new = None if record.new is None else dict(record.new)
        item = new if new is not None else old
        if item is None:
            return []
        change = Change(
            topic=(entity.name, entity.topic(item, partition)),
            id=entity.id_of(item),
            old=None if old is None else entity.read(old),
            new=None if new is None else entity.read(new),
            created=record.created,
            cause=cause_of(new),
        )
        left = None if old is None else (entity.name, entity.topic(old, partition))
        if left is None or left == change.topic:
            found.append(change)
        else:
            found += [replace(change, topic=left, is_here=False), replace(change, was_here=False)]
    return found


def entity_change(record: Record, followed: Sequence[Followed]) -> Change | None:
    """The change of a record whose entity stays in one topic (or None)."""
    changes = entity_changes(record, followed)
    return changes[-1] if changes else None


def kind_of(change: Change, matches: Callable[[Any], bool]) -> ChangeKind | None:
    """ADDED when only the new state matches, CHANGED when both do, REMOVED when only the
    old one does; None when neither does (not delivered)."""
    before = change.was_here and change.old is not None and matches(change.old)
    after = change.is_here and change.new is not None and matches(change.new)
    if before and after:
        return ChangeKind.CHANGED
    if after:
        return ChangeKind.ADDED
    if before:
        return ChangeKind.REMOVED
    return None
