"""The fan-out of entity changes to the subscriptions of one process.

The stream reader hands every batch of records to `ChangeFeed.publish`, which turns them
into entity changes (`data.changes`) and offers each to the subscriptions of its topic.
Offering never waits: each subscription holds its own bounded buffer, and one that is full
(a client that does not read its socket) is ended with `Unavailable` instead of slowing
the reader or any other subscriber.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from data.changes import (
    Change,
    ChangeKind,
    Followed,
    Record,
    entity_changes,
    kind_of,
)
from errors.vocabulary import Unavailable

Topic = tuple[str, str]
logger = logging.getLogger("dynagate")


class Subscriber:
    """One subscription's buffer of (kind, change), read by its resolver."""

    def __init__(self, matches: Callable[[Any], bool], buffer: int) -> None:
        self.matches = matches
        self.buffer = buffer
        self.pending: deque[tuple[ChangeKind, Change]] = deque()
        self.overflowed = False
        self._ready = asyncio.Event()

    def offer(self, change: Change) -> int:
        """Buffer `change` if it concerns this subscription; the events dropped (the
        buffer's and this one) when it overflows."""
        if self.overflowed:
            return 0
        kind = kind_of(change, self.matches)
        if kind is None:
            return 0
        if len(self.pending) >= self.buffer:
            dropped = len(self.pending) + 1
            self.overflowed = True
            self.pending.clear()
            self._ready.set()
            return dropped
        self.pending.append((kind, change))
        self._ready.set()
        return 0

    async def changes(self) -> AsyncIterator[tuple[ChangeKind, Change]]:
        while True:
            await self._ready.wait()
            if self.overflowed:
                raise Unavailable(
                    f"the subscription fell more than {self.buffer} events behind (the client"
                    " did not read them): subscribe again, and read events as they come"
                )
            while self.pending:
                yield self.pending.popleft()
                if self.overflowed:
                    break
            if not self.pending and not self.overflowed:
                self._ready.clear()


class ChangeFeed:
    """Every subscription of the process, by topic; fed by `publish`."""

    def __init__(self, followed: Sequence[Followed]) -> None:
        # The entities whose changes subscriptions can follow (the model's).
        self.followed = tuple(followed)
        self.topics: dict[Topic, set[Subscriber]] = {}
        # Told of events "delivered" and "dropped" (past a full buffer), with how many.
        self.observers: list[Callable[[str, int], None]] = []
        # Told of every record, entity or not (the persisted documents hear theirs).
        self.listeners: list[Callable[[Record], None]] = []

    @property
    def active(self) -> int:
        return sum(len(subscribers) for subscribers in self.topics.values())

    def publish(self, records: Iterable[Record]) -> None:
        if not self.topics and not self.listeners:
            return  # nobody subscribed (the stream is read for the read cache alone)
        for record in records:
            for listener in self.listeners:
                listener(record)
            try:
                changes = entity_changes(record, self.followed)
            except (KeyError, TypeError, ValueError):
                # An item another writer left incomplete: the other changes still go out.
                logger.warning("a stream record is not a whole entity; skipped", exc_info=True)
                continue
            for change in changes:
                self._offer(change)

    def _offer(self, change: Change) -> None:
        subscribers = self.topics.get(change.topic, set())
        for subscriber in tuple(subscribers):
            dropped = subscriber.offer(change)
            if dropped:
                # Ended: offered nothing more, even while its client cannot be told.
                subscribers.discard(subscriber)
                self._tell("dropped", dropped)

    def delivered(self) -> None:
        """One event reached its client (the resolver tells, once it is yielded)."""
        self._tell("delivered", 1)

    def _tell(self, outcome: str, count: int) -> None:
        for observer in self.observers:
            observer(outcome, count)

    @contextmanager
    def subscribe(
        self, topic: Topic, matches: Callable[[Any], bool], buffer: int
    ) -> Iterator[Subscriber]:
        subscriber = Subscriber(matches, buffer)
        self.topics.setdefault(topic, set()).add(subscriber)
        try:
            yield subscriber
        finally:
            subscribers = self.topics.get(topic)
            if subscribers is not None:
                subscribers.discard(subscriber)
                if not subscribers:
                    del self.topics[topic]
