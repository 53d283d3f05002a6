"""What a write stamps so that, its answers lost, a consistent read tells whether it landed
(`store/witness.py`): pure."""

from __future__ import annotations

from keys.table import TABLE
from store.requests import (
    WRITE_TOKEN,
    put_request,
    transaction_delete,
    transaction_put,
    transaction_update,
    update_request,
)
from store.witness import Witness, of_put, of_update, stamp

T = "t"
KEY = {"PK": "A", "SK": "B"}


def test_a_put_or_an_update_with_a_token_has_a_witness() -> None:
    assert of_put(put_request(T, {**KEY, "x": 1}), TABLE) is None
    assert of_put(put_request(T, {**KEY, "x": 1}, token="tok"), TABLE) == Witness(KEY, "tok")
    plain = update_request(T, KEY, set_values={"status": "SHIPPED"})
    assert of_update(plain) is None
    # The token sits among other values, however many come before it.
    tokened = update_request(
        T, KEY, set_values={"a": 1, "b": 2, "status": "X"}, add={"n": 1}, token="tok"
    )
    assert of_update(tokened) == Witness(KEY, "tok")


def test_a_transaction_stamps_its_first_conditional_put_only() -> None:
    copy = transaction_put(T, {"PK": "C", "SK": "copy"})
    new = transaction_put(T, {"PK": "C", "SK": "new"}, new_on=TABLE)
    update = transaction_update(update_request(T, KEY, add={"n": 1}))
    actions = [update, copy, new, transaction_put(T, {"PK": "D", "SK": "d"}, new_on=TABLE)]
    before = [dict(a) for a in actions]
    assert stamp(actions, "tok", TABLE) == Witness({"PK": "C", "SK": "new"}, "tok")
    assert actions[2]["Put"]["Item"][WRITE_TOKEN] == {"S": "tok"}
    assert [a for i, a in enumerate(actions) if i != 2] == [
        b for i, b in enumerate(before) if i != 2
    ]
    assert stamp([update, copy, transaction_delete(T, KEY)], "tok", TABLE) is None
    # One that only deletes: landed when what it deleted on a condition is gone.
    deletes = [
        transaction_delete(T, KEY),
        transaction_delete(T, {"PK": "E", "SK": "e"}, must_exist=True),
    ]
    gone = stamp(deletes, "tok", TABLE)
    assert gone == Witness({"PK": "E", "SK": "e"}, None)
    assert gone.holds(None) and not gone.holds({"PK": "E", "SK": "e"})


def test_a_witness_holds_its_own_token_only() -> None:
    seen = Witness(KEY, "tok")
    assert seen.holds({**KEY, WRITE_TOKEN: "tok"})
    assert not seen.holds({**KEY, WRITE_TOKEN: "other"})
    assert not seen.holds({**KEY}) and not seen.holds(None)
