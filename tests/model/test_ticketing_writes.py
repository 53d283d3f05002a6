"""Writes the rules of `tests/model/ticketing.py` let through: an attendee changes and
removes their own order (only an admin refunds), the event's organizer changes and removes
its orders;
each decided by the write's own condition, so that an order or an event handed to another
between the read and the write is refused, never written."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.client import Api
from tests.identity import SECURED, token
from tests.model.test_ticketing_rules import ORGANIZER, seed

pytestmark = pytest.mark.overrides(model="tests.model.ticketing", **SECURED)


@pytest.fixture
async def seeded(api: Api) -> Api:
    return await seed(api)


@contextmanager
def handed_over_after(
    check: str, client: Any, table: str, key: str, owner: tuple[str, str]
) -> Iterator[None]:
    """While in it, just after the owner check `check` (of `data.writes.owners`, as
    `data.writes.plain` calls it) has read, the item `key` of the event's partition is
    handed to another (`owner`: the attribute and its new value): the race between the
    read and the write."""
    from data.writes import owners as owner_writes

    checked = getattr(owner_writes, check)
    attribute, other = owner

    async def then_handed_over(*args: Any, **kwargs: Any) -> Any:
        found = await checked(*args, **kwargs)
        await client.update_item(
            TableName=table,
            Key={"PK": {"S": "EVENT#ev1"}, "SK": {"S": key}},
            UpdateExpression=f"SET {attribute} = :owner",
            ExpressionAttributeValues={":owner": {"S": other}},
        )
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(f"data.writes.plain.{check}", then_handed_over)
        yield


STATUS = 'mutation {{ setOrderStatus(eventId: "ev1", id: "{id}", status: {status}) {{ status }} }}'
CANCEL = 'mutation {{ cancelOrder(eventId: "ev1", id: "{id}") }}'


async def test_an_owner_changes_and_removes_their_own_order_only(seeded: Api) -> None:
    alice, bob = (seeded.signed_in(token(n)) for n in ("alice", "bob"))
    paid = await alice(STATUS.format(id="o1", status="PAID"))
    assert paid.ok()["setOrderStatus"] == {"status": "PAID"}
    # Another attendee's order: refused, unchanged; anonymous: asked to sign in.
    theirs = await bob(STATUS.format(id="o1", status="REFUNDED"))
    assert theirs.errors[0]["extensions"]["code"] == "FORBIDDEN"
    assert "only admins" in theirs.errors[0]["message"]  # decided on the token, first
    taken = await bob(STATUS.format(id="o1", status="PAID"))
    assert "is not yours" in taken.errors[0]["message"], taken.errors
    anonymous = await seeded(STATUS.format(id="o2", status="PAID"))
    assert anonymous.errors[0]["extensions"]["code"] == "UNAUTHENTICATED"
    # Only an admin refunds, even the owner's own order.
    refund = await alice(STATUS.format(id="o1", status="REFUNDED"))
    assert refund.errors[0]["extensions"]["code"] == "FORBIDDEN"
    assert "only admins" in refund.errors[0]["message"]
    admin = seeded.signed_in(token("root", groups=["admin"]))
    assert (await admin(STATUS.format(id="o1", status="REFUNDED"))).ok()["setOrderStatus"] == {
        "status": "REFUNDED"
    }
    # Removing: the owner's own only.
    refused = await alice(CANCEL.format(id="o2"))
    assert refused.errors[0]["extensions"]["code"] == "FORBIDDEN"
    assert (await bob(CANCEL.format(id="o2"))).ok()["cancelOrder"] is True
    mine = await admin('{ order(eventId: "ev1", id: "o2") { id } }')
    assert mine.ok()["order"] is None
    # Each part of the key named by its attribute, as the caller gave them.
    gone = await bob(CANCEL.format(id="o2"))
    assert gone.errors[0]["message"] == "order (eventId 'ev1', id 'o2') does not exist"


async def test_an_order_that_changed_hands_meanwhile_is_not_written(
    seeded: Api, client: Any, table: str
) -> None:
    """The owner is read, then held by the write's own condition: an order handed to
    another between the two is refused, not paid for its new owner."""
    with handed_over_after("owner_held", client, table, "ORDER#o1", ("attendeeId", "bob")):
        answer = await seeded.signed_in(token("alice"))(STATUS.format(id="o1", status="PAID"))
    assert answer.errors[0]["extensions"]["code"] == "FORBIDDEN", answer.body
    stored = await client.get_item(
        TableName=table, Key={"PK": {"S": "EVENT#ev1"}, "SK": {"S": "ORDER#o1"}}
    )
    assert stored["Item"]["status"] == {"S": "RESERVED"}


RESEAT = 'mutation { reseat(eventId: "ev1", id: "o1", seats: 4) { seats } }'


async def test_the_event_s_organizer_changes_its_orders(seeded: Api) -> None:
    """A rule through a relationship: the organizer is the event's owner, checked in the
    write's own transaction; the attendee, another organizer, anonymous are refused."""
    for who, code in (("alice", "FORBIDDEN"), ("bob", "FORBIDDEN"), (None, "UNAUTHENTICATED")):
        caller = seeded if who is None else seeded.signed_in(token(who))
        refused = await caller(RESEAT)
        assert refused.errors[0]["extensions"]["code"] == code, (who, refused.errors)
    done = await seeded.signed_in(token(ORGANIZER))(RESEAT)
    assert done.ok()["reseat"] == {"seats": 4}
    missing = await seeded.signed_in(token(ORGANIZER))(RESEAT.replace('"o1"', '"o9"'))
    assert missing.errors[0]["extensions"]["code"] == "NOT_FOUND", missing.errors
    assert missing.errors[0]["message"] == "order (eventId 'ev1', id 'o9') does not exist"


DROP = 'mutation {{ dropOrder(eventId: "ev1", id: "{id}") }}'


async def test_the_event_s_organizer_removes_its_orders(seeded: Api) -> None:
    for who, code in (("alice", "FORBIDDEN"), ("bob", "FORBIDDEN"), (None, "UNAUTHENTICATED")):
        caller = seeded if who is None else seeded.signed_in(token(who))
        refused = await caller(DROP.format(id="o1"))
        assert refused.errors[0]["extensions"]["code"] == code, (who, refused.errors)
    organizer = seeded.signed_in(token(ORGANIZER))
    assert (await organizer(DROP.format(id="o1"))).ok()["dropOrder"] is True
    gone = await organizer(DROP.format(id="o1"))
    assert gone.errors[0]["extensions"]["code"] == "NOT_FOUND", gone.errors
    left = await organizer('{ event(id: "ev1") { orders { edges { node { id } } } } }')
    assert [e["node"]["id"] for e in left.ok()["event"]["orders"]["edges"]] == ["o2"]
    # Another event's organizer: refused, though the order exists.
    other = await seeded.signed_in(token("oscar"))(
        'mutation { addEvent(input: {id: "ev2", organizer: "oscar", title: "Fair"}) { id } }'
    )
    other.ok()
    theirs = await seeded.signed_in(token("oscar"))(DROP.format(id="o2"))
    assert theirs.errors[0]["extensions"]["code"] == "FORBIDDEN", theirs.errors


@pytest.mark.parametrize("write", [RESEAT, DROP.format(id="o1")], ids=["update", "delete"])
async def test_an_event_handed_to_another_organizer_meanwhile_is_not_written_under(
    seeded: Api, client: Any, table: str, write: str
) -> None:
    with handed_over_after(
        "parent_owner_check", client, table, "EVENT#ev1", ("organizer", "oscar")
    ):
        answer = await seeded.signed_in(token(ORGANIZER))(write)
    assert answer.errors[0]["extensions"]["code"] == "FORBIDDEN", answer.body
    assert "only the event's organizer" in answer.errors[0]["message"]
    stored = await client.get_item(
        TableName=table, Key={"PK": {"S": "EVENT#ev1"}, "SK": {"S": "ORDER#o1"}}
    )
    assert stored["Item"]["seats"] == {"N": "1"}  # neither changed nor removed
