"""Who is asking (`data/callers.py`): the restriction each rule of access (docs/identity.md)
holds a caller to, with usernames compared without regard to case."""

from __future__ import annotations

import pytest

from data.callers import ANONYMOUS, AUTHOR, AUTHOR_KEY, OPEN, Caller, author_of, wrote
from errors.vocabulary import Unauthenticated

ALICE = Caller("Alice")
ADMIN = Caller("root", admin=True)


def test_a_signed_in_caller_is_held_to_their_lower_case_username() -> None:
    assert (ALICE.signed_in, ALICE.unrestricted, ALICE.key) == (True, False, "alice")
    assert ALICE.restriction() == "alice"
    assert ALICE.is_user("ALICE") and ALICE.is_user("alice") and not ALICE.is_user("alicia")


@pytest.mark.parametrize("caller", [ADMIN, OPEN], ids=["admin", "open mode"])
def test_an_admin_or_open_mode_is_held_to_nothing(caller: Caller) -> None:
    assert caller.unrestricted and caller.restriction() is None


def test_an_anonymous_caller_is_refused_with_the_reason_given() -> None:
    assert not ANONYMOUS.signed_in and ANONYMOUS.key is None
    assert not ANONYMOUS.is_user("")  # no username names an anonymous caller
    with pytest.raises(Unauthenticated, match=r"^sign in to close an issue$"):
        ANONYMOUS.restriction("sign in to close an issue")
    with pytest.raises(Unauthenticated):
        wrote({AUTHOR_KEY: "alice"}, ANONYMOUS)


def test_what_a_caller_writes_records_them_as_its_author() -> None:
    item = ALICE.authored()
    assert item == {AUTHOR: "Alice", AUTHOR_KEY: "alice"}
    assert author_of(item) == "Alice"
    assert OPEN.authored() == {} and author_of({}) is None


def test_only_the_author_or_an_unrestricted_caller_wrote_an_item() -> None:
    by_alice = Caller("ALICE").authored()
    assert wrote(by_alice, ALICE) and wrote(by_alice, ADMIN) and wrote(by_alice, OPEN)
    assert not wrote(by_alice, Caller("bob"))
    # An item written in open mode has no author: only an unrestricted caller may change it.
    assert not wrote({}, ALICE) and wrote({}, ADMIN)
