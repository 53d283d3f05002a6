"""Declarations the demo's orders need (`model/`), pure: lines and their total, an owner, a
list that picks its index by the arguments given, a root list at a fixed partition, an
update that reads what its keys need; each refused when the engine could not serve it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

import model as m
from data.entities import checked
from data.entity_lists import list_read, narrowed
from data.writes.entities import update_calls
from data.writes.key_changes import kept_values
from demo.model import MODEL
from demo.model.orders import CUSTOMER, ORDER, OrderStatus
from demo.model.tickets import TICKET
from errors.vocabulary import BadUserInput
from keys.table import GSI1, GSI2, GSI3
from store.pagination import PageArgs
from tests.model.declaring import refused_by_name
from tests.model.library import BOOK

PAGE = PageArgs(5, False, None)
[ORDERS, OPEN_ORDERS] = [p for p in MODEL.of_kind(m.ListOf) if p.entity is ORDER]
LINES = ORDER.attributes["items"]


def test_lines_are_numbered_checked_by_place_and_totalled() -> None:
    assert isinstance(LINES, m.Lines)
    given = [
        {"sku": "A", "quantity": 2, "unitPriceCents": 150},
        {"sku": "B", "quantity": 1, "unitPriceCents": 5},
    ]
    lines = checked(LINES, given, "items")
    assert lines == [{"position": 1, **given[0]}, {"position": 2, **given[1]}]
    totalled = ORDER.attributes["totalCents"]
    assert isinstance(totalled, m.Total)
    assert totalled.computed(ORDER, {"items": lines}) == 305
    for wrong, message in [
        ([], "items (count): 0 is outside 1 to 50"),
        ([given[0], {**given[1], "quantity": 0}], "items[2].quantity: 0 is outside 1 to 1,000"),
        ([{**given[0], "sku": None}], "items[1].sku: must be given"),
    ]:
        with pytest.raises(BadUserInput, match=f"^{re.escape(message)}"):
            checked(LINES, wrong, "items")
    over = checked(LINES, [{"sku": "A", "quantity": 3, "unitPriceCents": 10**9}], "items")
    with pytest.raises(BadUserInput, match=r"^items: the order total 3,000,000,000 cents is over"):
        totalled.computed(ORDER, {"items": over})


def test_a_choice_or_an_address_a_client_gets_wrong_is_bad_input() -> None:
    with pytest.raises(BadUserInput, match="'SOLD' is not one of PLACED"):
        checked(ORDER.attributes["status"], "SOLD", "status")
    with pytest.raises(BadUserInput, match="does not look like an e-mail address"):
        checked(CUSTOMER.attributes["email"], "not-an-email", "email")


def test_a_list_reads_the_index_its_arguments_can_narrow() -> None:
    def condition(status: OrderStatus | None, span: Any = None) -> Any:
        narrowing = narrowed(ORDERS, {"status": status}, span)
        return list_read(ORDERS, CUSTOMER, {"id": "ann"}, PAGE, narrowing).condition

    assert (condition(None).index, condition(OrderStatus.SHIPPED).index) == (GSI1, GSI2)
    assert condition(None).partition == condition(OrderStatus.SHIPPED).partition == "CUSTOMER#ann"
    assert condition(OrderStatus.SHIPPED).begins_with == "ORDER#SHIPPED#"
    # The parent is in neither index: no page is read with it.
    read = list_read(ORDERS, CUSTOMER, {"id": "ann"}, PAGE, narrowed(ORDERS, {}))
    assert read.parent is None
    opened = list_read(OPEN_ORDERS, None, {}, PAGE).condition
    assert (opened.index, opened.partition) == (GSI3, "ORDERS#PLACED")


def test_an_update_reads_first_only_what_its_keys_need_and_no_update_changes() -> None:
    assert kept_values(ORDER, {"status"}) == {"placedAt"}
    assert update_calls(ORDER, ("status",)) == (2, 1)  # the read, then one UpdateItem
    assert kept_values(TICKET, {"title", "status"}) == set()
    # A book's year is changeable: a change of genre alone must give it, not read it. Its
    # GSI3 sort key follows `updatedAt`, and is written only while the book is on loan:
    # whether it is, is read.
    assert kept_values(BOOK, {"genre"}) == {"loan"}


def _lined(lines: m.Lines, **more: Any) -> m.Entity:
    return m.Entity(
        "Bill", {"id": m.Identifier(), "lines": lines, **more}, key=m.same(m.key("BILL", "id"))
    )


FIELDS = {"sku": m.Text(max_length=8), "count": m.Number(low=1, high=9)}
OWNED = m.Entity(
    "Job",
    {"id": m.GeneratedId(), "owner": m.Identifier(), "phase": m.Identifier()},
    key=m.same(m.key("JOB", "id")),
    indexes={
        GSI1: m.Keys(m.key("OWNER", "owner"), m.key("JOB", "phase", "id")),
        GSI2: m.Keys(m.key("OWNER", "owner"), m.key("JOB", "id")),
        GSI3: m.Keys(m.key("PHASES", "phase"), m.key("JOB", "id")),
    },
    sparse={GSI3: m.only("phase", "new")},
    owner=m.Owner("owner", "owner"),
)


def _jobs(*patterns: Callable[[m.Entity], Any]) -> m.Model:
    return m.Model((OWNED,), tuple(p(OWNED) for p in patterns))


test_a_declaration_the_engine_cannot_serve_is_refused_by_name = refused_by_name(
    [
        (lambda: _lined(m.Lines(name="Line")), "lines need fields"),
        (
            lambda: _lined(m.Lines(name="Line", fields={"position": m.Number()})),
            "lines need fields",
        ),
        (lambda: _lined(m.Lines(name="Line", fields=FIELDS, most=101)), "at most 100 of them"),
        (lambda: _lined(m.Lines(name="Line", fields=FIELDS, optional=True)), "are not optional"),
        (
            lambda: _lined(
                m.Lines(name="Line", fields=FIELDS), total=m.Total(lines="lines", of=("sku",))
            ),
            "a total of ['sku'] needs lines 'lines' with those numbers",
        ),
        (
            lambda: _lined(
                m.Lines(name="Line", fields={"n": m.Number(low=-1)}),
                total=m.Total(lines="lines", of=("n",)),
            ),
            "none negative",
        ),
        (
            lambda: _lined(
                m.Lines(name="Line", fields={"note": m.Text(max_length=10_000)}, most=100)
            ),
            "bytes, over the 405,504 an item has besides its keys",
        ),
        (
            lambda: m.Entity(
                "Job",
                {"id": m.GeneratedId(), "by": m.Text()},
                key=m.same(m.key("JOB", "id")),
                owner=m.Owner("by", "x"),
            ),
            "Job's owner: 'by' is no Identifier",
        ),
        (
            lambda: m.Model(
                (e := m.Entity("Pad", {"id": m.Identifier()}, key=m.same(m.key("PAD", "id"))),),
                (m.Lookup(e, "pad", access="owner"),),
            ),
            "Pad 'pad': access 'owner' needs the entity's Owner",
        ),
        (
            lambda: _jobs(lambda e: m.ListOf(e, GSI3, "jobs", root=True, access="owner")),
            "access 'owner' is for lookups, creates, updates, deletes, and root lists",
        ),
        (
            lambda: _jobs(lambda e: m.ListOf(e, GSI1, "jobs", root=True, unnarrowed=GSI2)),
            "read without [] on GSI2, it needs keys there",
        ),
        (
            lambda: _jobs(
                lambda e: m.ListOf(e, GSI1, "jobs", root=True, equal=("phase",), unnarrowed=GSI3)
            ),
            "read without ['phase'] on GSI3, it needs keys there with the same partition",
        ),
        (
            lambda: _jobs(lambda e: m.ListOf(e, GSI3, "jobs", root=True, at={"owner": "x"})),
            "`at` names ['owner'], not all of its partition",
        ),
        (
            lambda: _jobs(lambda e: m.ListOf(e, GSI3, "jobs", root=True, at={"phase": "a b"})),
            "`at` gives 'phase' 'a b', which it cannot hold",
        ),
        (
            lambda: _jobs(lambda e: m.ListOf(e, GSI3, "jobs", root=True, at={"phase": "old"})),
            "`at` gives what the sparse GSI3 never holds",
        ),
        (
            lambda: _lined(m.Lines(name="Line", fields={"at": m.Timestamp()})),  # type: ignore[dict-item]
            "lines need fields (texts and numbers",
        ),
    ]
)


def test_what_the_engine_can_serve_is_accepted() -> None:
    assert _jobs(
        lambda e: m.Lookup(e, "job", access="owner"),
        lambda e: m.Create(e, "addJob", access="owner"),
        lambda e: m.ListOf(e, GSI3, "newJobs", root=True, at={"phase": "new"}, access="admins"),
        lambda e: m.ListOf(
            e,
            GSI1,
            "jobs",
            root=True,
            equal=("phase",),
            unnarrowed=GSI2,
            subscription="jobChanges",
            subscription_access="owner",
        ),
    )
    pad = m.Entity(
        "Pad",
        {"id": m.Identifier(), "mail": m.Email(), "lines": m.Lines(name="PadLine", fields=FIELDS)},
        key=m.same(m.key("PAD", "id")),
    )
    assert m.Model((pad,), (m.Create(pad, "addPad", access="admins"),))


def test_a_list_away_from_its_parent_and_an_update_that_reads_are_accepted() -> None:
    """The parent is in no index: the list is read from the parent's key; a move re-renders
    a key with a time no update changes, which the update reads."""
    desk = m.Entity("Desk", {"id": m.Identifier()}, key=m.same(m.key("DESK", "id")))
    ticket = m.Entity(
        "Slip",
        {
            "id": m.GeneratedId(),
            "desk": m.Identifier(),
            "state": m.Identifier(),
            "at": m.Timestamp(stamped="create"),
        },
        key=m.same(m.key("SLIP", "id")),
        indexes={GSI1: m.Keys(m.key("DESK", "desk"), m.key("SLIP", "state", "at", "id"))},
        parent=m.Parent("Desk", {"desk": "id"}),
    )
    model = m.Model(
        (desk, ticket),
        (
            m.ListOf(ticket, GSI1, "slips", equal=("state",), range=m.Range("at", "when")),
            m.Update(ticket, "move", ("state",), access="admins"),
        ),
    )
    assert model and kept_values(ticket, {"state"}) == {"at"}
