"""A parent's delete as declared (`Delete(children=…)`, `model/children.py`): where each
child is found from the parent's key, and the declarations refused before anything runs."""

from __future__ import annotations

import pytest

from examples.booking.model import BOOKING, REVIEW, VENUE
from examples.booking.model import MODEL as BOOKINGS
from keys.table import GSI1, TABLE
from model import (
    Delete,
    Entity,
    GeneratedId,
    Identifier,
    Keys,
    Model,
    ModelError,
    Parent,
    key,
    same,
)
from model.children import children_place
from tests.model.library import BOOK


def test_children_are_found_in_the_parent_s_partition_first() -> None:
    bookings = children_place(BOOKING)
    assert bookings is not None
    assert (bookings.index, bookings.exact, bookings.copies) == (TABLE, True, False)
    assert bookings.partition.render(venueId="v1") == "VENUE#v1"
    reviews = children_place(REVIEW)
    assert reviews is not None
    assert (reviews.index, reviews.exact, reviews.copies) == (GSI1, False, True)
    # The copy every review has: any language, every rating.
    values = reviews.values({"id": "v1"})
    assert reviews.partition.render(**values) == "VENUE#v1#~#31"  # the set of every rating
    books = children_place(BOOK)
    assert books is not None and (books.index, books.exact) == (GSI1, False)
    assert BOOKINGS.children_of(VENUE) == [BOOKING, REVIEW]


def _shelf() -> Entity:
    return Entity("Shelf", {"id": Identifier()}, key=same(key("SHELF", "id")))


def _loose() -> Entity:
    """A child found by its own key only: nothing lists it under its shelf."""
    return Entity(
        "Loose",
        {"id": GeneratedId(), "shelf": Identifier()},
        key=same(key("LOOSE", "id")),
        parent=Parent("Shelf", {"shelf": "id"}),
    )


def _kept(name: str = "Kept", parent: str = "Shelf", holds: str = "shelf") -> Entity:
    """A child in its parent's partition."""
    return Entity(
        name,
        {"id": GeneratedId(), holds: Identifier()},
        key=Keys(key(parent.upper(), holds), key(name.upper(), "id")),
        parent=Parent(parent, {holds: "id"}),
    )


def test_a_parent_whose_children_cannot_be_found_is_never_deleted() -> None:
    shelf, loose = _shelf(), _loose()
    with pytest.raises(ModelError, match="Loose's items are not found from a shelf's key"):
        Model((shelf, loose), (Delete(shelf, "drop", access="admins"),))
    kept = _kept()
    Model((shelf, kept), (Delete(shelf, "drop", access="admins"),))  # refused at run time


@pytest.mark.parametrize(
    ("declared", "refusal"),
    [
        (
            {"children": "cascade", "access": "admins"},
            "children='cascade', not 'refuse' or 'remove'",
        ),
        ({"access": "owner"}, "a parent's delete is for admins, .* not access 'owner'"),
    ],
)
def test_what_a_parent_s_delete_declares_is_checked(declared: dict[str, str], refusal: str) -> None:
    shelf, kept = _shelf(), _kept()
    with pytest.raises(ModelError, match=refusal):
        Model((shelf, kept), (Delete(shelf, "drop", **declared),))  # type: ignore[arg-type]


def test_removing_children_with_children_of_their_own_is_refused() -> None:
    shelf, kept = _shelf(), _kept()
    leaf = Entity(
        "Leaf",
        {"id": GeneratedId(), "shelf": Identifier(), "kept": Identifier()},
        key=Keys(key("KEPT", "shelf", "kept"), key("LEAF", "id")),
        parent=Parent("Kept", {"shelf": "shelf", "kept": "id"}),
    )
    entities = (shelf, kept, leaf)
    with pytest.raises(ModelError, match="Kept is the parent of \\['Leaf'\\]"):
        Model(entities, (Delete(shelf, "drop", access="admins", children="remove"),))
    Model(entities, (Delete(shelf, "drop", access="admins"),))  # refusing them is fine
