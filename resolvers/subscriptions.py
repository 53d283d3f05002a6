"""Subscriptions: live answers from the table's stream (docs/subscriptions.md).

Each field follows one topic of the process's change feed (`data.feed`) with the filter of
its query counterpart, and yields one event per entity change that concerns it. The node of
an event is the entity's new state (null once it is deleted), answered like any other node,
so every field rule applies to each event; the reads that answering makes are the event's
own, charged to the caller (`Context.next_event`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any, TypeVar

import strawberry

from data.changes import Change, ChangeKind
from data.feed import Topic
from errors.vocabulary import Unavailable
from resolvers.access import Rule
from resolvers.context import Context
from resolvers.field_costs import FieldCost, field_options

Info = strawberry.Info[Context, None]
Event = TypeVar("Event")

strawberry.enum(ChangeKind)
# Reads nothing itself: what an event costs is what its selection reads.
FOLLOW = FieldCost()


# Reads, when it starts, the parent's item a rule of readers decides on.
FOLLOW_READING_PARENT = FieldCost(requests=1, items=1)


def subscription(rule: Rule, *, reads_parent: bool = False) -> Callable[[Callable[..., Any]], Any]:
    """`@strawberry.subscription` open to callers `rule` allows."""
    cost = FOLLOW_READING_PARENT if reads_parent else FOLLOW
    return lambda resolver: strawberry.subscription(resolver, **field_options(cost, rule))


async def follow(
    info: Info,
    followed: tuple[Topic, Callable[[Any], bool]],
    event: Callable[[ChangeKind, Change], Event],
) -> AsyncGenerator[Event, None]:
    context = info.context
    feed = context.changes
    if feed is None:
        raise Unavailable("subscriptions are not served here; use the WebSocket at /graphql")
    topic, matches = followed
    with feed.subscribe(topic, matches, context.subscription_buffer) as subscriber:
        try:
            async for kind, change in subscriber.changes():
                feed.delivered()
                tracing = context.store.tracing
                if tracing is None:
                    yield event(kind, change)
                else:
                    # The event's span is current while its selection is answered.
                    with tracing.delivery(topic[0], change.cause):
                        yield event(kind, change)
                # Resumed once the event is sent: its reads are charged now, and the next
                # event starts afresh.
                context.next_event()
        finally:
            context.next_event()  # an event whose send was cut short is charged too


def _node(record: Any, make: Callable[[Any], Any]) -> Any:
    return None if record is None else make(record)
