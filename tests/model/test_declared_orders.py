"""Declarations the demo's orders need (`model/`), pure: lines and their total, an owner, a
list that picks its index by the arguments given, a root list at a fixed partition, an
update that reads what its keys need; each refused when the engine could not serve it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from data.entities import checked, total
from data.entity_lists import list_read, narrowed
from data.writes.entities import update_calls
from data.writes.key_changes import kept_values
from demo.model import MODEL
from demo.model.orders import CUSTOMER, ORDER, OrderStatus
from demo.model.tickets import TICKET
from errors.vocabulary import BadUserInput
from keys.table import GSI1, GSI2, GSI3
from model import (
    Create,
    Email,
    Entity,
    GeneratedId,
    Identifier,
    Keys,
    Lines,
    ListOf,
    Lookup,
    Model,
    ModelError,
    Number,
    Owner,
    Parent,
    Range,
    Text,
    Timestamp,
    Total,
    Update,
    key,
    only,
    same,
)
from store.pagination import PageArgs
from tests.model.library import BOOK

PAGE = PageArgs(5, False, None)
[ORDERS, OPEN_ORDERS] = [p for p in MODEL.of_kind(ListOf) if p.entity is ORDER]
LINES = ORDER.attributes["items"]


def test_lines_are_numbered_checked_by_place_and_totalled() -> None:
    assert isinstance(LINES, Lines)
    given = [
        {"sku": "A", "quantity": 2, "unitPriceCents": 150},
        {"sku": "B", "quantity": 1, "unitPriceCents": 5},
    ]
    lines = checked(LINES, given, "items")
    assert lines == [{"position": 1, **given[0]}, {"position": 2, **given[1]}]
    totalled = ORDER.attributes["totalCents"]
    assert isinstance(totalled, Total)
    assert total(ORDER, totalled, {"items": lines}) == 305
    for wrong, message in [
        ([], "items (count): 0 is outside 1 to 50"),
        ([given[0], {**given[1], "quantity": 0}], "items[2].quantity: 0 is outside 1 to 1,000"),
        ([{**given[0], "sku": None}], "items[1].sku: must be given"),
    ]:
        with pytest.raises(BadUserInput, match=f"^{re.escape(message)}"):
            checked(LINES, wrong, "items")
    over = checked(LINES, [{"sku": "A", "quantity": 3, "unitPriceCents": 10**9}], "items")
    with pytest.raises(BadUserInput, match=r"^items: the order total 3,000,000,000 cents is over"):
        total(ORDER, totalled, {"items": over})


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


def _lined(lines: Lines, **more: Any) -> Entity:
    return Entity("Bill", {"id": Identifier(), "lines": lines, **more}, key=same(key("BILL", "id")))


FIELDS = {"sku": Text(max_length=8), "count": Number(low=1, high=9)}
OWNED = Entity(
    "Job",
    {"id": GeneratedId(), "owner": Identifier(), "phase": Identifier()},
    key=same(key("JOB", "id")),
    indexes={
        GSI1: Keys(key("OWNER", "owner"), key("JOB", "phase", "id")),
        GSI2: Keys(key("OWNER", "owner"), key("JOB", "id")),
        GSI3: Keys(key("PHASES", "phase"), key("JOB", "id")),
    },
    sparse={GSI3: only("phase", "new")},
    owner=Owner("owner", "owner"),
)


def _jobs(*patterns: Callable[[Entity], Any]) -> Model:
    return Model((OWNED,), tuple(p(OWNED) for p in patterns))


@pytest.mark.parametrize(
    ("declare", "refusal"),
    [
        (lambda: _lined(Lines(name="Line")), "lines need fields"),
        (lambda: _lined(Lines(name="Line", fields={"position": Number()})), "lines need fields"),
        (lambda: _lined(Lines(name="Line", fields=FIELDS, most=101)), "at most 100 of them"),
        (lambda: _lined(Lines(name="Line", fields=FIELDS, optional=True)), "are not optional"),
        (
            lambda: _lined(
                Lines(name="Line", fields=FIELDS), total=Total(lines="lines", of=("sku",))
            ),
            "a total of ['sku'] needs lines 'lines' with those numbers",
        ),
        (
            lambda: _lined(
                Lines(name="Line", fields={"n": Number(low=-1)}),
                total=Total(lines="lines", of=("n",)),
            ),
            "none negative",
        ),
        (
            lambda: _lined(Lines(name="Line", fields={"note": Text(max_length=10_000)}, most=100)),
            "bytes, over the 405,504 an item has besides its keys",
        ),
        (
            lambda: Entity(
                "Job",
                {"id": GeneratedId(), "by": Text()},
                key=same(key("JOB", "id")),
                owner=Owner("by", "x"),
            ),
            "Job's owner: 'by' is no Identifier",
        ),
        (
            lambda: Model(
                (e := Entity("Pad", {"id": Identifier()}, key=same(key("PAD", "id"))),),
                (Lookup(e, "pad", access="owner"),),
            ),
            "Pad 'pad': access 'owner' needs the entity's Owner",
        ),
        (
            lambda: _jobs(lambda e: ListOf(e, GSI3, "jobs", root=True, access="owner")),
            "access 'owner' is for lookups, creates, updates, deletes, and root lists",
        ),
        (
            lambda: _jobs(lambda e: ListOf(e, GSI1, "jobs", root=True, unnarrowed=GSI2)),
            "read without [] on GSI2, it needs keys there",
        ),
        (
            lambda: _jobs(
                lambda e: ListOf(e, GSI1, "jobs", root=True, equal=("phase",), unnarrowed=GSI3)
            ),
            "read without ['phase'] on GSI3, it needs keys there with the same partition",
        ),
        (
            lambda: _jobs(lambda e: ListOf(e, GSI3, "jobs", root=True, at={"owner": "x"})),
            "`at` names ['owner'], not all of its partition",
        ),
        (
            lambda: _jobs(lambda e: ListOf(e, GSI3, "jobs", root=True, at={"phase": "a b"})),
            "`at` gives 'phase' 'a b', which it cannot hold",
        ),
        (
            lambda: _jobs(lambda e: ListOf(e, GSI3, "jobs", root=True, at={"phase": "old"})),
            "`at` gives what the sparse GSI3 never holds",
        ),
        (
            lambda: _lined(Lines(name="Line", fields={"at": Timestamp()})),  # type: ignore[dict-item]
            "lines need fields (texts and numbers",
        ),
    ],
)
def test_a_declaration_the_engine_cannot_serve_is_refused_by_name(
    declare: Callable[[], Any], refusal: str
) -> None:
    with pytest.raises(ModelError, match=re.escape(refusal)):
        declare()


def test_what_the_engine_can_serve_is_accepted() -> None:
    assert _jobs(
        lambda e: Lookup(e, "job", access="owner"),
        lambda e: Create(e, "addJob", access="owner"),
        lambda e: ListOf(e, GSI3, "newJobs", root=True, at={"phase": "new"}, access="admins"),
        lambda e: ListOf(
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
    pad = Entity(
        "Pad",
        {"id": Identifier(), "mail": Email(), "lines": Lines(name="PadLine", fields=FIELDS)},
        key=same(key("PAD", "id")),
    )
    assert Model((pad,), (Create(pad, "addPad", access="admins"),))


def test_a_list_away_from_its_parent_and_an_update_that_reads_are_accepted() -> None:
    """The parent is in no index: the list is read from the parent's key; a move re-renders
    a key with a time no update changes, which the update reads."""
    desk = Entity("Desk", {"id": Identifier()}, key=same(key("DESK", "id")))
    ticket = Entity(
        "Slip",
        {
            "id": GeneratedId(),
            "desk": Identifier(),
            "state": Identifier(),
            "at": Timestamp(stamped="create"),
        },
        key=same(key("SLIP", "id")),
        indexes={GSI1: Keys(key("DESK", "desk"), key("SLIP", "state", "at", "id"))},
        parent=Parent("Desk", {"desk": "id"}),
    )
    model = Model(
        (desk, ticket),
        (
            ListOf(ticket, GSI1, "slips", equal=("state",), range=Range("at", "when")),
            Update(ticket, "move", ("state",), access="admins"),
        ),
    )
    assert model and kept_values(ticket, {"state"}) == {"at"}
