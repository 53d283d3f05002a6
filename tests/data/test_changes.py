"""Stream records to entity changes, their kinds, and the fan-out (pure: no I/O)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from data import changes
from data.changes import (
    Change,
    ChangeKind,
    kind_of,
)
from data.feed import ChangeFeed
from demo.model.orders import OrderStatus
from demo.model.repos import IssueState
from demo.model.tickets import QUEUE, TICKET
from errors.vocabulary import BadUserInput, Unavailable
from gateway.served_model import served
from keys.map import Viewport
from tests.demo_comments import comment_changes, comment_items
from tests.demo_map import marker_changes, marker_items
from tests.demo_orders import OrderLine, order_changes, order_item
from tests.demo_repos import issue_changes, issue_key, repo_key, star_key

KSUID = "2VQp3kQxLzVQbYy3w1wYfJk1bQe"
# The default model's followed entities: the hand-written areas' and the declared ones'.
FOLLOWED = served().followed
AT = datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)


@dataclass(frozen=True)
class Record:
    keys: dict[str, Any]
    old: dict[str, Any] | None
    new: dict[str, Any] | None
    created: float = 0.0


def changed(old: dict[str, Any] | None, new: dict[str, Any] | None) -> Record:
    item = new if new is not None else old
    assert item is not None
    return Record({"PK": item["PK"], "SK": item["SK"]}, old, new)


def entity_change(record: Record) -> Change | None:
    return changes.entity_change(record, FOLLOWED)


def entity_changes(record: Record) -> list[Change]:
    return changes.entity_changes(record, FOLLOWED)


def comment(rating: int = 5, language: str = "en") -> list[dict[str, Any]]:
    return comment_items(
        {
            "id": KSUID,
            "productId": "lamp",
            "language": language,
            "rating": rating,
            "body": "b",
            "createdAt": "2024-01-01T00:00:00.000Z",
            "updatedAt": "2024-01-01T00:00:00.000Z",
            "version": 1,
        }
    )


def issue(state: str = "OPEN") -> dict[str, Any]:
    return {
        **issue_key("Ada", "gateway", 7),
        "number": 7,
        "title": "t",
        "state": state,
        "createdAt": "2024-01-01T00:00:00.000Z",
        "updatedAt": "2024-01-01T00:00:00.000Z",
    }


def ticket_item(queue_id: str = "q1") -> dict[str, Any]:
    return {
        **TICKET.primary_key({"id": KSUID}),
        "id": KSUID,
        "queueId": queue_id,
        "title": "t",
        "status": "OPEN",
        "createdAt": "2024-01-01T00:00:00.000Z",
        "updatedAt": "2024-01-01T00:00:00.000Z",
    }


def test_a_comment_is_one_change_and_its_copies_none() -> None:
    primary, *copies = comment()
    assert len(copies) == 32
    assert all(entity_change(changed(None, copy)) is None for copy in copies)
    change = entity_change(changed(None, primary))
    assert change is not None
    assert (change.topic, change.id, change.old) == (("commentChanges", "lamp"), KSUID, None)
    assert change.new["rating"] == 5


def test_each_entity_has_its_topic_and_id() -> None:
    by_id, place = marker_items(KSUID, 51.5, -0.12, "m", AT)
    assert entity_change(changed(None, place)) is None
    marker = entity_change(changed(None, by_id))
    assert marker is not None and (marker.topic, marker.id) == (("markerChanges", ""), KSUID)
    found = entity_change(changed(issue(), None))
    assert found is not None
    assert found.topic == ("issueChanges", "ada#gateway")
    assert (found.id, found.old["state"], found.new) == ("7", IssueState.OPEN, None)
    ticket = ticket_item()
    found = entity_change(changed(None, ticket))
    assert found is not None and found.topic == ("ticketChanges", "q1")
    order = order_item(KSUID, "c1", [OrderLine("S", 1, 5)], AT, AT)
    found = entity_change(changed(None, order))
    assert found is not None and found.topic == ("orderChanges", "c1")
    # Items no subscription follows: a repository, a queue, a star.
    for key in (
        repo_key("ada", "g"),
        QUEUE.primary_key({"id": "q1"}),
        star_key("ada", "g", "bob"),
    ):
        assert entity_change(Record(key, None, {**key})) is None


@pytest.mark.parametrize(
    ("before", "after", "kind"),
    [
        (None, True, ChangeKind.ADDED),
        (False, True, ChangeKind.ADDED),
        (True, True, ChangeKind.CHANGED),
        (True, False, ChangeKind.REMOVED),
        (True, None, ChangeKind.REMOVED),
        (False, False, None),
        (False, None, None),
        (None, False, None),
    ],
)
def test_kinds_from_the_old_and_new_states(
    before: bool | None, after: bool | None, kind: ChangeKind | None
) -> None:
    rated = {True: 5, False: 2}
    old = None if before is None else comment(rated[before])[0]
    new = None if after is None else comment(rated[after])[0]
    change = entity_change(changed(old, new))
    assert change is not None
    _, matches = comment_changes("lamp", None, [4, 5])
    assert kind_of(change, matches) is kind


def test_filters_are_the_query_filters() -> None:
    _, english = comment_changes("lamp", "EN", None)
    change = entity_change(changed(None, comment(3, "en")[0]))
    assert change is not None and english(change.new)
    with pytest.raises(BadUserInput):
        comment_changes("lamp", "english", None)
    with pytest.raises(BadUserInput):
        comment_changes("lamp", None, [6])
    topic, open_only = issue_changes("ADA", "Gateway", IssueState.OPEN)
    found = entity_change(changed(issue(), issue("CLOSED")))
    assert found is not None and found.topic == topic
    assert kind_of(found, open_only) is ChangeKind.REMOVED
    view = Viewport(north=52, south=51, east=0, west=-1)
    _, inside = marker_changes(view)
    by_id, _ = marker_items(KSUID, 51.5, -0.12, "m", AT)
    marker = entity_change(changed(None, by_id))
    assert marker is not None and inside(marker.new)
    assert order_changes("c1", OrderStatus.PLACED)[0] == ("orderChanges", "c1")


async def test_the_feed_offers_only_its_topic_and_ends_a_full_subscriber() -> None:
    feed = ChangeFeed(FOLLOWED)
    seen: list[tuple[str, int]] = []
    feed.observers.append(lambda outcome, count: seen.append((outcome, count)))
    topic, matches = comment_changes("lamp", None, None)
    other_topic, _ = comment_changes("desk", None, None)
    with (
        feed.subscribe(topic, matches, buffer=2) as full,
        feed.subscribe(topic, matches, buffer=10) as roomy,
        feed.subscribe(other_topic, matches, buffer=10) as elsewhere,
    ):
        assert feed.active == 3
        feed.publish([changed(None, comment()[0])] * 3)
        assert len(roomy.pending) == 3 and not elsewhere.pending
        assert full.overflowed and feed.active == 2
        assert seen == [("dropped", 3)]
        changes = full.changes()
        with pytest.raises(Unavailable, match="fell more than 2 events behind"):
            await anext(changes)
        kinds = [kind async for kind, _ in _take(roomy.changes(), 3)]
        assert kinds == [ChangeKind.ADDED] * 3
    assert feed.active == 0 and not feed.topics


async def _take(changes: Any, count: int) -> Any:
    for _ in range(count):
        yield await asyncio.wait_for(anext(changes), 1)


def test_an_entity_moved_to_another_topic_leaves_one_and_enters_the_other() -> None:
    """Another writer moves a ticket to another queue: REMOVED from the old queue's
    subscribers (with its new state), ADDED for the new queue's."""
    ticket = ticket_item()
    moved = entity_changes(changed(ticket, {**ticket, "queueId": "q2"}))

    def anything(_state: object) -> bool:
        return True

    assert [(c.topic, kind_of(c, anything)) for c in moved] == [
        (("ticketChanges", "q1"), ChangeKind.REMOVED),
        (("ticketChanges", "q2"), ChangeKind.ADDED),
    ]
    assert all(c.new is not None and c.new["title"] == "t" for c in moved)


def test_a_record_that_is_not_a_whole_entity_is_skipped_alone() -> None:
    feed = ChangeFeed(FOLLOWED)
    topic, matches = comment_changes("lamp", None, None)
    primary = comment()[0]
    broken = {k: v for k, v in primary.items() if k != "rating"}
    with feed.subscribe(topic, matches, buffer=10) as subscriber:
        feed.publish([changed(None, broken), changed(None, primary)])
        assert len(subscriber.pending) == 1
