"""Property tests of the number, choice and KSUID segment codecs in `keys.codecs`.

Segments are compared with `<` as DynamoDB compares their UTF-8 bytes; see
`test_keys_codecs.test_utf8_byte_order_is_str_order` for why that holds.
"""

from __future__ import annotations

import re
import string
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from errors.vocabulary import BadUserInput
from keys.codecs import (
    KSUID_EPOCH,
    KSUID_LENGTH,
    KSUID_PAYLOAD_BYTES,
    ChoiceCodec,
    KsuidCodec,
    NumberCodec,
    ksuid,
    ksuid_bounds,
    ksuid_seconds,
)
from tests.keys.strategies import FAST, QUICK, any_text, any_zone

ksuid_seconds_range = st.integers(KSUID_EPOCH, KSUID_EPOCH + (1 << 32) - 1)
payloads = st.binary(min_size=KSUID_PAYLOAD_BYTES, max_size=KSUID_PAYLOAD_BYTES)
payload_edges = st.sampled_from([bytes(16), b"\xff" * 16, b"\x00" * 15 + b"\x01"])
all_payloads = st.one_of(payloads, payload_edges)

# ---- zero-padded numbers ---------------------------------------------------------------

number_cases = st.integers(1, 15).flatmap(
    lambda width: st.tuples(st.just(width), st.integers(0, 10**width - 1))
)


@FAST
@given(number_cases)
def test_number_round_trip_and_fixed_width(case: tuple[int, int]) -> None:
    width, value = case
    codec = NumberCodec(width)
    encoded = codec.encode(value)
    assert len(encoded) == width
    assert encoded.isascii() and encoded.isdigit()
    assert codec.decode(encoded) == value


@QUICK
@given(st.integers(1, 12), st.data())
def test_number_order_is_preserved(width: int, data: st.DataObject) -> None:
    codec = NumberCodec(width)
    a = data.draw(st.integers(0, codec.maximum))
    b = data.draw(st.integers(0, codec.maximum))
    assert (codec.encode(a) < codec.encode(b)) == (a < b)


@FAST
@given(st.integers(1, 12), st.one_of(st.integers(max_value=-1), st.integers(min_value=0)))
def test_numbers_out_of_range_are_refused(width: int, value: int) -> None:
    codec = NumberCodec(width)
    assert codec.maximum == 10**width - 1
    if 0 <= value < 10**width:
        assert codec.decode(codec.encode(value)) == value
    else:
        with pytest.raises(BadUserInput):
            codec.encode(value)


@FAST
@given(st.integers(1, 6), st.text(alphabet="0123456789٣²-+ _x", max_size=8))
def test_number_decode_accepts_only_canonical_segments(width: int, segment: str) -> None:
    codec = NumberCodec(width)
    try:
        value = codec.decode(segment)
    except ValueError:
        return
    assert codec.encode(value) == segment


# ---- choices ---------------------------------------------------------------------------


@QUICK
@given(st.text(max_size=12))
def test_choice_codec_accepts_only_its_choices(value: str) -> None:
    codec = ChoiceCodec(frozenset({"PLACED", "SHIPPED"}))
    if value in codec.choices:
        assert codec.decode(codec.encode(value)) == value
    else:
        with pytest.raises(BadUserInput):
            codec.encode(value)


# ---- KSUIDs ----------------------------------------------------------------------------

KSUID_PATTERN = re.compile(r"[0-9A-Za-z]{27}")


@FAST
@given(ksuid_seconds_range, all_payloads)
def test_ksuid_shape_and_seconds_round_trip(seconds: int, payload: bytes) -> None:
    value = ksuid(seconds, payload)
    assert len(value) == KSUID_LENGTH
    assert KSUID_PATTERN.fullmatch(value)
    assert ksuid_seconds(value) == seconds
    assert KsuidCodec().decode(KsuidCodec().encode(value)) == value


@FAST
@given(ksuid_seconds_range, all_payloads, ksuid_seconds_range, all_payloads)
def test_ksuid_order_is_seconds_then_payload(s1: int, p1: bytes, s2: int, p2: bytes) -> None:
    a, b = ksuid(s1, p1), ksuid(s2, p2)
    assert (a < b) == ((s1, p1) < (s2, p2))
    assert (a == b) == ((s1, p1) == (s2, p2))


@QUICK
@given(
    st.one_of(
        st.integers(max_value=KSUID_EPOCH - 1), st.integers(min_value=KSUID_EPOCH + (1 << 32))
    )
)
def test_ksuid_seconds_out_of_range_are_refused(seconds: int) -> None:
    with pytest.raises(BadUserInput):
        ksuid(seconds, bytes(16))


@QUICK
@given(st.binary(max_size=40).filter(lambda b: len(b) != KSUID_PAYLOAD_BYTES))
def test_ksuid_payload_must_be_16_bytes(payload: bytes) -> None:
    with pytest.raises(ValueError):
        ksuid(KSUID_EPOCH, payload)


KSUID_MAX = ksuid(KSUID_EPOCH + (1 << 32) - 1, b"\xff" * 16)


@FAST
@given(st.text(alphabet=string.digits + string.ascii_letters, min_size=27, max_size=27))
@example(KSUID_MAX)
@example("z" * 27)
def test_ksuid_decode_accepts_exactly_the_160_bit_range(value: str) -> None:
    if value <= KSUID_MAX:
        assert KsuidCodec().decode(value) == value
    else:
        with pytest.raises(BadUserInput):
            KsuidCodec().decode(value)


@FAST
@given(any_text)
def test_ksuid_decode_refuses_other_text(value: str) -> None:
    if KSUID_PATTERN.fullmatch(value) and value <= KSUID_MAX:
        assert KsuidCodec().decode(value) == value
    else:
        with pytest.raises(BadUserInput):
            KsuidCodec().decode(value)


ksuid_instants = st.datetimes(
    min_value=datetime(2014, 5, 14), max_value=datetime(2150, 6, 18), timezones=any_zone
)


def _floor_seconds(value: datetime) -> int:
    """Unix seconds rounded down, in exact integer arithmetic."""
    return (value - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(seconds=1)


@FAST
@given(ksuid_instants, ksuid_instants, st.integers(-2, 2), st.booleans(), all_payloads)
@example(
    datetime(2020, 1, 1, 0, 0, 0, 999999, tzinfo=UTC),
    datetime(2020, 1, 1, 0, 0, 1, 999999, tzinfo=UTC),
    1,
    True,
    b"\xff" * 16,
)
def test_ksuid_bounds_hold_exactly_the_seconds_in_range(
    a: datetime, b: datetime, delta: int, near_start: bool, payload: bytes
) -> None:
    start, end = min(a, b), max(a, b)
    seconds = _floor_seconds(start if near_start else end) + delta
    low, high = ksuid_bounds(start, end)
    value = ksuid(seconds, payload)
    expected = _floor_seconds(start) <= seconds <= _floor_seconds(end)
    assert (low <= value <= high) == expected
