"""Declarations (`model/`), pure: the keys an entity renders, the keys a change re-renders,
and every declaration the engine could not serve refused when the model is built, naming it."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from enum import StrEnum
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import model as m
from data.writes.key_changes import index_changes, kept_values
from demo.model.tickets import QUEUE, TICKET
from errors.vocabulary import BadUserInput
from keys.codecs import to_millis
from keys.table import GSI1, GSI2, TABLE
from tests.keys.strategies import FAST, any_zone, identifiers, ksuids
from tests.model.declaring import refused_by_name

instants = st.datetimes(datetime(1000, 1, 2), datetime(9999, 12, 30), timezones=any_zone)


class Size(StrEnum):
    S = "S"
    M = "M"


@FAST
@given(identifiers, ksuids, instants)
def test_every_key_of_an_item_parses_back_to_its_values(
    queue_id: str, ticket_id: str, at: datetime
) -> None:
    values = {"id": ticket_id, "queueId": queue_id, "updatedAt": to_millis(at)}
    keys = TICKET.key_values(values)
    for attribute, template in TICKET.templates.items():
        parsed = template.parse(keys[attribute])
        assert all(parsed[name] == values[name] for name in parsed)
    # A ticket lists under its queue: same partition on GSI1, a sort key the queue's is not.
    head = QUEUE.key_values({"id": queue_id})
    assert keys[GSI1.partition_key] == head[GSI1.partition_key]
    assert keys[GSI1.sort_key] < head[GSI1.sort_key]
    assert TICKET.owns(keys[TABLE.partition_key], keys[TABLE.sort_key])
    assert not QUEUE.owns(keys[TABLE.partition_key], keys[TABLE.sort_key])


def test_a_change_re_renders_exactly_the_keys_that_use_it() -> None:
    assert TICKET.rerendered(["updatedAt"]) == (GSI1.sort_key,)
    assert TICKET.rerendered(["queueId"]) == (GSI1.partition_key,)
    assert TICKET.rerendered(["title", "status"]) == ()
    assert TICKET.key_attributes == ("id",)
    assert TICKET.write_stamps == ("updatedAt",)


def item(name: str = "Item", **more: Any) -> m.Entity:
    attributes = {"id": m.Identifier(), "size": m.Choice(values=Size), "note": m.Text(), **more}
    return m.Entity(name, attributes, key=m.same(m.key(name.upper(), "id")))


test_a_declaration_the_engine_cannot_serve_is_refused_by_name = refused_by_name(
    [
        (
            lambda: m.Entity("Box", {"id": m.Identifier()}, key=m.same(m.key("BOX", "code"))),
            "Box's key 'BOX' on the table names 'code', which Box lacks",
        ),
        (
            lambda: m.Entity(
                "Box", {"id": m.Identifier(), "t": m.Text()}, key=m.same(m.key("BOX", "t"))
            ),
            "'t' cannot be part of a key",
        ),
        (
            lambda: m.Model((item("A"), item("A")), ()),
            "entities declared twice: ['A']",
        ),
        (
            lambda: m.Model(
                (item("A"), m.Entity("B", {"id": m.Identifier()}, m.same(m.key("A", "id")))), ()
            ),
            "B and A keys on the table can collide: both A / A",
        ),
        (
            lambda: m.Model((item(),), (m.Update(item(), "change", ("note",)),)),
            "change: Item is not in the model",
        ),
        (
            lambda: _one(lambda e: m.Update(e, "change", ())),
            "Item update 'change' changes nothing",
        ),
        (
            lambda: _one(lambda e: m.Update(e, "change", ("id",))),
            "'id' is part of the primary key",
        ),
        (
            lambda: _one(
                lambda e: m.Update(e, "change", ("made",)), made=m.Timestamp(stamped="create")
            ),
            "'made' is not an attribute a client may change",
        ),
        (
            lambda: _one(lambda e: m.ListOf(e, GSI1, "items")),
            "Item list 'items': Item has no keys on GSI1",
        ),
        (
            lambda: _sorted_by_size_and_note((), m.ListOf, GSI2, "items"),
            "Item list 'items': Item declares no parent",
        ),
        (
            lambda: _sorted_by_size_and_note((), m.ListOf, GSI2, "items", equal=("note",)),
            "its arguments narrow ['note'], which are not the leading segments of its sort key",
        ),
        (
            lambda: _one(
                lambda e: m.Create(e, "item"),
                lambda e: m.Update(e, "item", ("note",), access="admins"),
            ),
            "generated type names clash: ['ItemInput']",
        ),
        (
            lambda: _one(lambda e: m.Lookup(e, "item"), lambda e: m.Lookup(e, "item")),
            "generated Query field names clash: ['item']",
        ),
    ]
)


def test_a_list_must_share_its_parents_partition() -> None:
    shelf = m.Entity(
        "Shelf",
        {"id": m.Identifier()},
        key=m.same(m.key("SHELF", "id")),
        indexes={GSI1: m.same(m.key("SHELF", "id"))},
    )
    book = m.Entity(
        "Book",
        {"id": m.GeneratedId(), "shelf": m.Identifier()},
        key=m.same(m.key("BOOK", "id")),
        indexes={GSI1: m.Keys(m.key("RACK", "shelf"), m.key("#BOOK", "id"))},
        parent=m.Parent("Shelf", {"shelf": "id"}),
    )
    with pytest.raises(m.ModelError, match="its partition on GSI1 is not Shelf's"):
        m.Model((shelf, book), (m.ListOf(book, GSI1, "books"),))


def _one(*patterns: Any, **more: Any) -> m.Model:
    entity = item(**more)
    return m.Model((entity,), tuple(p(entity) for p in patterns))


def test_what_an_update_cannot_change_is_read_when_a_key_it_renders_needs_it() -> None:
    """A change of size renders GSI2SK, which needs the note: an update that cannot change
    the note reads it first; one that can, has it given (or is refused)."""
    model = _sorted_by_size_and_note(("size",), m.Update, "change", access="anyone")
    (entity,) = model.entities
    assert kept_values(entity, {"size"}, {"size"}) == {"note"}
    assert kept_values(entity, {"size"}, {"size", "note"}) == set()


def _sorted_by_size_and_note(
    changes: tuple[str, ...], kind: Any, *args: Any, **more: Any
) -> m.Model:
    """An item listed on GSI2 by size, then note; `kind(entity, *args, …)` its pattern."""
    entity = m.Entity(
        "Item",
        {"id": m.Identifier(), "size": m.Choice(values=Size), "note": m.Identifier()},
        key=m.same(m.key("ITEM", "id")),
        indexes={GSI2: m.Keys(m.key("ITEMS"), m.key("ITEM", "size", "note"))},
    )
    pattern = (
        kind(entity, *args, changes, **more) if kind is m.Update else kind(entity, *args, **more)
    )
    return m.Model((entity,), (pattern,))


def _escaped(text: str) -> str:
    return "".join("\\" + c if c in "[]().*+?{}|^$\\" else c for c in text)


def test_a_sparse_index_is_left_or_entered_only_by_its_predicate() -> None:
    def loans(changes: tuple[str, ...]) -> m.Model:
        entity = _at_a_desk()
        return m.Model((entity,), (m.Update(entity, "change", changes, access="admins"),))

    with pytest.raises(m.ModelError, match="re-renders GSI2PK of the sparse GSI2 without changing"):
        loans(("desk",))
    assert loans(("desk", "size"))  # the update decides membership, and knows every segment


def _shelf_and(child: m.Entity, *patterns: Any) -> m.Model:
    shelf = m.Entity(
        "Shelf",
        {"id": m.Identifier()},
        key=m.same(m.key("SHELF", "id")),
        indexes={GSI1: m.same(m.key("SHELF", "id"))},
    )
    return m.Model((shelf, child), tuple(p(child) if callable(p) else p for p in patterns))


def _child(label: str = "#BOOK", **more: Any) -> m.Entity:
    return m.Entity(
        more.pop("name", "Book"),
        {"id": m.GeneratedId(), "shelf": m.Identifier(), "size": m.Choice(values=Size), **more},
        key=m.same(m.key(label.strip("#"), "id")),
        indexes={GSI1: m.Keys(m.key("SHELF", "shelf"), m.key(label, "size", "id"))},
        parent=m.Parent("Shelf", {"shelf": "id"}),
    )


test_what_would_fail_at_run_time_is_refused_when_declared = refused_by_name(
    [
        (lambda: item(type=m.Text()), "'type': the name is the engine's own"),
        (
            lambda: replace(
                item(),
                attributes={**item().attributes, "GSI1PK": m.Text()},
                indexes={GSI1: m.same(m.key("ITEM", "id"))},
            ),
            "'GSI1PK': the name is a key attribute of its table or an index",
        ),
        (lambda: item(count=m.Number(high=2**31)), "within GraphQL's 32-bit Int"),
        (lambda: item(count=m.Number(low=5, high=1)), "low to high must be in order"),
        (lambda: item(hue=m.Choice(values=Size, initial="L")), "initial value is not one of"),  # type: ignore[arg-type]
        (
            lambda: m.Entity("Box", {"id": m.Identifier()}, key=m.same(m.key("BOX#A", "id"))),
            "Box's key label 'BOX#A'",
        ),
        (
            lambda: m.Entity(
                "Box",
                {"id": m.Identifier(), "s": m.Choice(values=Odd)},
                key=m.same(m.key("BOX", "s")),
            ),
            "a value of 's' holds a key delimiter",
        ),
        (
            lambda: _shelf_and(
                _child(),
                lambda c: m.ListOf(c, GSI1, "books", equal=("size",), range=m.Range("id", "ids")),
            ),
            "its sort key must end with a segment its arguments leave free",
        ),
        (
            lambda: _shelf_and(
                _child(), lambda c: m.ListOf(c, GSI1, "books", range=m.Range("size", "sizes"))
            ),
            "a range over 'size' orders nothing",
        ),
        (
            lambda: _shelf_and(
                _child(), lambda c: m.ListOf(c, GSI1, "books", equal=("size",), access="anyone")
            ),
            "give `access` to root lists only",
        ),
        (
            lambda: _shelf_and(
                _child(), lambda c: m.Update(c, "move", ("shelf",), access="admins")
            ),
            "['shelf'] hold its parent's key",
        ),
        (
            lambda: _shelf_and(_child(), lambda c: m.Update(c, "resize", ("size",))),
            "access 'writer' needs an Author attribute",
        ),
        (
            lambda: _one(lambda e: m.Update(e, "c", ("note",), moves=(m.moves("size", {}),))),
            "moves of 'size', not a choice it changes",
        ),
        (
            lambda: _one(
                lambda e: m.Update(
                    e, "c", ("size",), access="admins", moves=(m.moves("size", {Size.S: ["L"]}),)
                )
            ),
            "moves of 'size' name other values",
        ),
        (
            lambda: m.Model(
                (
                    m.Entity("Shelf", {"id": m.Identifier()}, key=m.same(m.key("SHELF", "id"))),
                    m.Entity(
                        "Book",
                        {"id": m.GeneratedId(), "shelf": m.Identifier()},
                        key=m.same(m.key("BOOK", "id")),
                        parent=m.Parent("Shelf", {}),
                    ),
                ),
                (),
            ),
            "Book's parent Shelf: nothing holds its key's ['id']",
        ),
    ]
)


def test_a_list_read_with_its_parent_has_nothing_else_in_between() -> None:
    notes = _child("#NOTE", name="Note")
    mags = _child("#MAG", name="Mag")
    shelf = m.Entity(
        "Shelf",
        {"id": m.Identifier()},
        key=m.same(m.key("SHELF", "id")),
        indexes={GSI1: m.same(m.key("SHELF", "id"))},
    )
    with pytest.raises(
        m.ModelError, match="Note's items \\(#NOTE\\) sort between its own and Shelf's"
    ):
        m.Model((shelf, mags, notes), (m.ListOf(mags, GSI1, "mags"),))


def test_an_update_that_would_move_an_item_into_a_sparse_index_unasked_is_refused() -> None:
    entity = _at_a_desk()
    values = {"id": "i1", "desk": "d2"}
    with pytest.raises(BadUserInput, match="give `size` with `desk`"):
        index_changes(entity, values, {"desk": "d2"})
    entering, removed = index_changes(
        entity, {**values, "size": Size.M}, {"desk": "d2", "size": Size.M}
    )
    assert (entering, removed) == ({"GSI2PK": "DESK#d2", "GSI2SK": "ITEM#i1"}, [])
    assert index_changes(entity, {**values, "size": Size.S}, {"size": Size.S}) == (
        {},
        ["GSI2PK", "GSI2SK"],
    )


class Odd(StrEnum):
    A = "A#B"


def test_a_list_filters_by_choices_only() -> None:
    with pytest.raises(m.ModelError, match="it may filter by choices only, not 'shelf'"):
        _shelf_and(_child(), lambda c: m.ListOf(c, GSI1, "books", filtered=("shelf",)))
    assert _shelf_and(_child(), lambda c: m.ListOf(c, GSI1, "books", filtered=("size",)))


def _at_a_desk() -> m.Entity:
    """An item listed on GSI2 under its desk, only while it is of size M."""
    return m.Entity(
        "Item",
        {"id": m.Identifier(), "desk": m.Identifier(), "size": m.Choice(values=Size)},
        key=m.same(m.key("ITEM", "id")),
        indexes={GSI2: m.Keys(m.key("DESK", "desk"), m.key("ITEM", "id"))},
        sparse={GSI2: m.only("size", Size.M)},
    )


def test_two_choices_of_one_name_would_be_two_graphql_enums_of_one_name() -> None:
    first = StrEnum("Status", {"A": "A"})
    second = StrEnum("Status", {"B": "B"})
    one = m.Entity(
        "One",
        {"id": m.Identifier(), "state": m.Choice(values=first)},
        key=m.same(m.key("ONE", "id")),
    )
    two = m.Entity(
        "Two",
        {"id": m.Identifier(), "state": m.Choice(values=second)},
        key=m.same(m.key("TWO", "id")),
    )
    with pytest.raises(m.ModelError, match=r"generated type names clash: \['Status'\]"):
        m.Model((one, two), ())
    assert m.Model(
        (one, replace(two, attributes={"id": m.Identifier(), "s": m.Choice(values=first)})), ()
    )


@pytest.mark.parametrize("label", ["X-Y", "X Y", "É", "#"])
def test_a_key_label_is_letters_and_digits(label: str) -> None:
    with pytest.raises(m.ModelError, match="letters and digits"):
        m.Entity("One", {"id": m.Identifier()}, key=m.same(m.key(label, "id")))
