"""The checks on client input that are not about keys (docs/design.md,
"Validation"), against oracles of their own: Unicode categories for text, the identifier
regex as the contract spells it."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from data import validation
from errors.vocabulary import BadUserInput
from tests.demo_comments import BODY_MAX, comment_key
from tests.keys.strategies import any_text

# The contract's `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, anchored at the very end (a Python `$`
# also matches before a final newline).
IDENTIFIER = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
# Every code point a str can hold that is not text: control characters (Cc: C0, DEL, C1)
# and lone surrogates (Cs).
NOT_TEXT = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in ("Cc", "Cs")]
NOT_TEXT_SET = frozenset(NOT_TEXT)


def refusal(check: Callable[..., object], *args: Any, **kwargs: Any) -> BadUserInput:
    with pytest.raises(BadUserInput) as caught:
        check(*args, **kwargs)
    return caught.value


def names(error: BadUserInput, field: str) -> bool:
    """Whether the message starts with the field, as a client sees it."""
    return error.field == field and str(error).startswith(f"{field}: ")


# ---- text -------------------------------------------------------------------------------


def test_the_oracle_holds_the_control_characters_and_surrogates() -> None:
    assert len(NOT_TEXT) == 32 + 1 + 32 + 2048


@pytest.mark.parametrize("multiline", [False, True])
def test_every_control_character_and_lone_surrogate_is_refused_at_its_place(
    multiline: bool,
) -> None:
    allowed = {"\n", "\t"} if multiline else set()
    for char in NOT_TEXT:
        value = f"ab{char}c"
        if char in allowed:
            assert validation.text(value, "body", multiline=multiline) == value
            continue
        error = refusal(validation.text, value, "body", multiline=multiline)
        assert names(error, "body")
        assert f"U+{ord(char):04X} at position 2 " in str(error)
        surrogate = unicodedata.category(char) == "Cs"
        assert ("lone surrogate" in str(error)) == surrogate
        assert ("only newline and tab are" in str(error)) == (multiline and not surrogate)


# Any code point, control characters and surrogates often.
characters = st.one_of(st.characters(), st.sampled_from(NOT_TEXT))


@given(st.text(characters, max_size=210), st.booleans())
@example("\u00a0", False)
@example("é" * 200, False)
@example("😀" * 201, False)
@example(" \n\t", True)
def test_text_is_accepted_exactly_when_the_contract_allows_it(value: str, multiline: bool) -> None:
    allowed = {"\n", "\t"} if multiline else set()
    valid = (
        0 < len(value) <= validation.TEXT_MAX
        and value.strip() != ""
        and not any(c in NOT_TEXT_SET and c not in allowed for c in value)
    )
    if valid:
        assert validation.text(value, "title", multiline=multiline) == value
    else:
        assert names(refusal(validation.text, value, "title", multiline=multiline), "title")


@pytest.mark.parametrize(
    ("limit", "field"), [(validation.TEXT_MAX, "name"), (BODY_MAX, "body")], ids=["200", "10,000"]
)
def test_lengths_count_characters_from_1_to_the_limit(limit: int, field: str) -> None:
    wide = "\U0001f600"  # four bytes in UTF-8, one character
    assert validation.text(wide * limit, field, limit) == wide * limit
    error = refusal(validation.text, "a" * (limit + 1), field, limit)
    assert str(error) == f"{field}: {limit + 1} characters is over the limit of {limit}"
    for blank in ("", " ", "\n\t ", "\u3000"):
        assert str(refusal(validation.text, blank, field, limit, multiline=True)) == (
            f"{field}: must not be empty"
        )


# ---- e-mail, numbers, identifiers --------------------------------------------------------


@pytest.mark.parametrize("value", ["a@x.io", "first.last+tag@mail.example.com", "ü@bücher.de"])
def test_e_mail_addresses_that_look_like_one(value: str) -> None:
    assert validation.email(value) == value


@pytest.mark.parametrize(
    "value",
    ["", "a", "a@x", "@x.io", "a@.io", "a@x.", "a@@x.io", "a@b@x.io", "a b@x.io", "a@x .io"],
)
def test_e_mail_addresses_that_do_not(value: str) -> None:
    error = refusal(validation.email, value)
    assert names(error, "email") and "does not look like an e-mail address" in str(error)


def test_an_e_mail_address_is_at_most_200_characters_and_text() -> None:
    longest = "a" * (200 - len("@x.io")) + "@x.io"
    assert validation.email(longest) == longest
    error = refusal(validation.email, "a" + longest, "contact")
    assert names(error, "contact") and len(str(error)) < 300  # the value is cut in the message
    assert "lone surrogate" in str(refusal(validation.email, "a\udc80@x.io"))
    assert "control character U+0000" in str(refusal(validation.email, "a\x00@x.io"))


def test_numbers_are_within_both_bounds_inclusive() -> None:
    assert [validation.number(n, "quantity", 1, 1_000) for n in (1, 1_000)] == [1, 1_000]
    assert str(refusal(validation.number, 1_001, "quantity", 1, 1_000)) == (
        "quantity: 1001 is outside 1 to 1,000"
    )
    assert names(refusal(validation.number, 0, "quantity", 1, 1_000), "quantity")


@given(any_text)
@example("a" * 64)
@example("a" * 65)
@example("a\n")
@example("_a")
@example("A.b-c_9")
def test_identifiers_are_exactly_those_of_the_contract(value: str) -> None:
    if IDENTIFIER.match(value):
        assert validation.ident(value, "owner") == value
    else:
        assert names(refusal(validation.ident, value, "owner"), "owner")
        assert refusal(validation.ident, value).field == "id"


# ---- times and keys ----------------------------------------------------------------------

NOW = datetime(2024, 5, 1, 12, tzinfo=UTC)


def test_a_past_time_may_be_a_little_ahead_of_this_clock_not_more() -> None:
    ahead = NOW + timedelta(minutes=5)
    assert validation.past_time(ahead, "placedAt", NOW) == ahead
    error = refusal(validation.past_time, ahead + timedelta(seconds=1), "placedAt", NOW)
    assert str(error) == "placedAt: 2024-05-01T12:05:01+00:00 is in the future"


def test_a_past_time_is_not_before_the_first_storable_second() -> None:
    first = datetime(2014, 5, 13, 16, 53, 20, tzinfo=UTC)
    assert validation.past_time(first, "createdAt", NOW) == first
    error = refusal(validation.past_time, first - timedelta(milliseconds=1), "createdAt", NOW)
    assert names(error, "createdAt") and "before 2014-05-13T16:53:20Z" in str(error)


def test_an_identifier_that_cannot_name_the_entity_is_a_miss() -> None:
    ksuid = "2Zb1s7wWQf3ArXcCjpM3zLq1mTu"
    assert validation.key_or_none(comment_key, ksuid) == comment_key(ksuid)
    assert validation.key_or_none(comment_key, "not-a-ksuid") is None

    def broken(value: str) -> dict[str, str]:
        raise KeyError(value)

    with pytest.raises(KeyError):  # only a value the key refuses is a miss
        validation.key_or_none(broken, "x")


# ---- sizes -------------------------------------------------------------------------------


def test_stored_bytes_allows_four_bytes_a_character_beside_the_overhead() -> None:
    assert validation.stored_bytes() == validation.ITEM_OVERHEAD_BYTES
    widest = "\U0010ffff" * validation.TEXT_MAX
    texts = [widest, widest, "\U0001f600" * BODY_MAX]
    room = validation.stored_bytes(*map(len, texts)) - validation.ITEM_OVERHEAD_BYTES
    assert sum(len(t.encode()) for t in texts) <= room
