"""Cursors: opaque, sealed, bound to field, parent and arguments (no DynamoDB)."""

from __future__ import annotations

import base64
import json
import math
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errors.vocabulary import BadCursor
from store.cursors import Binding, CursorCodec

B64URL = string.ascii_letters + string.digits + "-_"
CODEC = CursorCodec(b"test-secret")
BINDING = Binding("Customer.orders", "alice", {"status": None, "placed": None, "direction": "DESC"})
KEY = ["ORDER#01HXYZ", "ORDER#01HXYZ", "CUSTOMER#alice", "ORDER#2021-01-01T00:00:00.000Z#01HXYZ"]

keys = st.lists(st.text(max_size=80), min_size=1, max_size=5)
names = st.text(max_size=20)
bindings = st.builds(
    Binding,
    names,
    names,
    st.dictionaries(names, st.none() | st.booleans() | st.integers() | names, max_size=4),
)


def raw(cursor: str) -> bytes:
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))


def test_round_trip() -> None:
    cursor = CODEC.encode(BINDING, KEY)
    assert CODEC.decode(BINDING, cursor) == KEY
    assert CODEC.encode(BINDING, KEY) == cursor  # deterministic
    assert set(cursor) <= set(B64URL)


@given(key=keys)
@settings(database=None)
def test_round_trip_of_any_key(key: list[str]) -> None:
    assert CODEC.decode(BINDING, CODEC.encode(BINDING, key)) == key


@given(key=keys)
@settings(database=None)
def test_a_cursor_is_its_key_and_a_tag_long(key: list[str]) -> None:
    """The key's JSON and AES-SIV's 16-byte synthetic IV, in URL-safe base64, no padding."""
    payload = len(json.dumps(key, separators=(",", ":")))
    assert len(CODEC.encode(BINDING, key)) == math.ceil((payload + 16) * 4 / 3)


def test_different_keys_give_different_cursors() -> None:
    assert CODEC.encode(BINDING, ["a", "b"]) != CODEC.encode(BINDING, ["a", "c"])


@given(key=keys, data=st.data())
@settings(database=None, max_examples=300)
def test_any_single_character_change_is_bad_cursor(key: list[str], data: st.DataObject) -> None:
    cursor = CODEC.encode(BINDING, key)
    position = data.draw(st.integers(0, len(cursor) - 1), label="position")
    replacement = data.draw(
        st.sampled_from([c for c in B64URL if c != cursor[position]]), label="replacement"
    )
    altered = cursor[:position] + replacement + cursor[position + 1 :]
    with pytest.raises(BadCursor):
        CODEC.decode(BINDING, altered)


@given(binding=bindings, key=keys, data=st.data())
@settings(database=None, max_examples=300)
def test_any_single_character_change_anywhere_is_bad_cursor(
    binding: Binding, key: list[str], data: st.DataObject
) -> None:
    cursor = CODEC.encode(binding, key)
    position = data.draw(st.integers(0, len(cursor) - 1), label="position")
    replacement = data.draw(st.characters().filter(lambda c: c != cursor[position]))
    with pytest.raises(BadCursor):
        CODEC.decode(binding, cursor[:position] + replacement + cursor[position + 1 :])


@given(binding=bindings, other=bindings, key=keys)
@settings(database=None, max_examples=300)
def test_a_cursor_for_another_binding_is_bad_cursor(
    binding: Binding, other: Binding, key: list[str]
) -> None:
    cursor = CODEC.encode(binding, key)
    if other.canonical() == binding.canonical():
        assert CODEC.decode(other, cursor) == key
    else:
        with pytest.raises(BadCursor):
            CODEC.decode(other, cursor)


def test_every_change_of_the_last_character_is_bad_cursor() -> None:
    # The last base64 character has spare bits when the length is not a multiple of 3 bytes.
    for key in (["a"], ["ab"], ["abc"]):
        cursor = CODEC.encode(BINDING, key)
        for replacement in B64URL.replace(cursor[-1], ""):
            with pytest.raises(BadCursor):
                CODEC.decode(BINDING, cursor[:-1] + replacement)


@pytest.mark.parametrize(
    "other",
    [
        Binding("Query.openOrders", "alice", BINDING.arguments),
        Binding("Customer.orders", "bob", BINDING.arguments),
        Binding("Customer.orders", "", BINDING.arguments),
        Binding("Customer.orders", "alice", {**BINDING.arguments, "direction": "ASC"}),
        Binding("Customer.orders", "alice", {**BINDING.arguments, "status": "PLACED"}),
        Binding("Customer.orders", "alice", {"status": None, "direction": "DESC"}),
        Binding("Customer.orders", "alice", {}),
    ],
)
def test_another_binding_is_bad_cursor(other: Binding) -> None:
    cursor = CODEC.encode(BINDING, KEY)
    with pytest.raises(BadCursor):
        CODEC.decode(other, cursor)


def test_equal_bindings_accept_each_others_cursors() -> None:
    same = Binding(
        "Customer.orders", "alice", {"direction": "DESC", "placed": None, "status": None}
    )
    assert CODEC.decode(same, CODEC.encode(BINDING, KEY)) == KEY


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "=",
        "====",
        "a",
        "ab",
        "abc",
        "AAAA",
        "!!!!",
        "not base64 at all!",
        "é" * 30,
        "\x00" * 30,
        "A" * 5000,
        "A" * 4096,
        "A" * 100_000,
        "ey" + "A" * 40,
        base64.urlsafe_b64encode(b"x" * 40).decode(),
        base64.urlsafe_b64encode(b'["CUSTOMER#alice","ORDER#1"]').decode(),
    ],
)
def test_garbage_is_bad_cursor(garbage: str) -> None:
    with pytest.raises(BadCursor):
        CODEC.decode(BINDING, garbage)


@given(text=st.text(max_size=200))
@settings(database=None)
def test_any_text_is_a_key_or_bad_cursor(text: str) -> None:
    try:
        CODEC.decode(BINDING, text)
    except BadCursor:
        return
    pytest.fail(f"accepted a forged cursor {text!r}")


def test_padding_or_whitespace_added_is_bad_cursor() -> None:
    cursor = CODEC.encode(BINDING, ["ab"])
    for altered in (cursor + "=", cursor + "==", " " + cursor, cursor + "\n", cursor + "A"):
        with pytest.raises(BadCursor):
            CODEC.decode(BINDING, altered)


def test_truncated_or_extended_is_bad_cursor() -> None:
    cursor = CODEC.encode(BINDING, KEY)
    for altered in (cursor[:-1], cursor[:-4], cursor[1:], cursor[:22], cursor + "AAAA"):
        with pytest.raises(BadCursor):
            CODEC.decode(BINDING, altered)


def test_another_secret_is_bad_cursor() -> None:
    cursor = CODEC.encode(BINDING, KEY)
    with pytest.raises(BadCursor):
        CursorCodec(b"other-secret").decode(BINDING, cursor)
    assert CursorCodec(b"other-secret").encode(BINDING, KEY) != cursor


@given(key=keys)
@settings(database=None)
def test_payload_does_not_show_the_key(key: list[str]) -> None:
    cursor = CODEC.encode(BINDING, ["CUSTOMER#alice", "ORDER#2021-01-01", *key])
    decoded = raw(cursor)
    for secret in (b"CUSTOMER", b"ORDER", b"alice", b"2021-01-01"):
        assert secret not in decoded
    assert "CUSTOMER" not in cursor
    assert "alice" not in cursor


def test_payload_does_not_show_a_table_key() -> None:
    decoded = raw(CODEC.encode(BINDING, KEY))
    for part in KEY:
        assert part.encode() not in decoded
    assert b"CUSTOMER#" not in decoded
    assert b"ORDER#" not in decoded
