"""Property tests of the segment codecs in `keys.codecs`.

DynamoDB compares string sort keys by their UTF-8 bytes. Every segment a codec produces is
ASCII, and for ASCII (and for KEY_MAX, U+FFFF, which is above it) UTF-8 byte order is code
point order, which is how Python compares `str`. So `a < b` on segments here is exactly
DynamoDB's order; `test_utf8_byte_order_is_str_order` checks that claim.
"""

from __future__ import annotations

import string
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from errors.vocabulary import BadUserInput
from keys.codecs import (
    DELIMITERS,
    KEY_MAX,
    TIMESTAMP_MAX,
    TIMESTAMP_MIN,
    IdentifierCodec,
    TimestampCodec,
    identifier,
    to_millis,
)
from tests.keys.strategies import (
    FAST,
    IDENTIFIER_REST,
    IDENTIFIER_START,
    QUICK,
    any_text,
    any_zone,
    identifiers,
)

# ---- strategies ------------------------------------------------------------------------

# Aware datetimes whose instant lies inside the codec's range whatever the offset.
aware_in_range = st.datetimes(
    min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30), timezones=any_zone
)
utc_millis = st.datetimes(
    min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999000)
).map(lambda d: d.replace(microsecond=d.microsecond - d.microsecond % 1000, tzinfo=UTC))


def is_identifier(value: str) -> bool:
    """The identifier rule written out without a regular expression."""
    return (
        1 <= len(value) <= 64
        and value[0] in IDENTIFIER_START
        and all(char in IDENTIFIER_REST for char in value)
    )


# ---- identifiers -----------------------------------------------------------------------


@FAST
@given(identifiers)
def test_identifier_accepts_the_pattern(value: str) -> None:
    assert is_identifier(value)
    assert identifier(value) == value
    assert IdentifierCodec().decode(IdentifierCodec().encode(value)) == value


@FAST
@given(any_text)
@example("a" * 64)
@example("a" * 65)
@example("")
@example("-a")
@example(".a")
@example("a\n")
@example("a#b")
@example("a/b")
@example("a~b")
@example("a b")
@example("é")
@example("٣")
def test_identifier_accepts_exactly_the_pattern(value: str) -> None:
    if is_identifier(value):
        assert identifier(value) == value
    else:
        with pytest.raises(BadUserInput) as raised:
            identifier(value, "customerId")
        assert raised.value.field == "customerId"
        with pytest.raises(BadUserInput):
            IdentifierCodec().encode(value)
        with pytest.raises(BadUserInput):
            IdentifierCodec(case_insensitive=True).encode(value)


@QUICK
@given(
    st.text(max_size=30),
    st.sampled_from([*sorted(DELIMITERS), " ", "\t", "\n", "\u00a0", "\u2003"]),
    st.text(max_size=30),
)
def test_delimiters_and_white_space_are_refused(before: str, bad: str, after: str) -> None:
    with pytest.raises(BadUserInput):
        identifier(before + bad + after)


@QUICK
@given(st.integers(65, 300), st.sampled_from(IDENTIFIER_START))
def test_identifiers_over_64_characters_are_refused(length: int, char: str) -> None:
    with pytest.raises(BadUserInput):
        identifier(char * length)


@FAST
@given(any_text, st.booleans())
def test_encoded_identifiers_never_hold_a_delimiter(value: str, fold: bool) -> None:
    try:
        encoded = IdentifierCodec(case_insensitive=fold).encode(value)
    except BadUserInput:
        return
    assert encoded
    assert not DELIMITERS.intersection(encoded)
    assert encoded.isascii()


@FAST
@given(identifiers)
def test_case_insensitive_identifiers_fold_case(value: str) -> None:
    folding = IdentifierCodec(case_insensitive=True)
    assert folding.encode(value) == value.lower()
    assert folding.encode(value.upper()) == folding.encode(value.swapcase())
    assert folding.decode(folding.encode(value)) == value.lower()
    # The default codec keeps case: `Alice` and `alice` are two ids.
    exact = IdentifierCodec()
    assert (exact.encode(value) == exact.encode(value.swapcase())) == (value == value.swapcase())


# ---- timestamps ------------------------------------------------------------------------


@FAST
@given(aware_in_range)
def test_timestamp_round_trip_at_millisecond_precision(value: datetime) -> None:
    codec = TimestampCodec()
    encoded = codec.encode(value)
    assert len(encoded) == 24
    assert encoded.isascii()
    assert not DELIMITERS.intersection(encoded)
    decoded = codec.decode(encoded)
    assert decoded.utcoffset() == timedelta(0)
    assert decoded == to_millis(value)
    assert timedelta(0) <= value - decoded < timedelta(milliseconds=1)


@FAST
@given(utc_millis, any_zone)
def test_millisecond_timestamps_round_trip_exactly(value: datetime, zone: timezone) -> None:
    codec = TimestampCodec()
    assert codec.decode(codec.encode(value)) == value
    if datetime(1000, 1, 2, tzinfo=UTC) <= value <= datetime(9999, 12, 30, tzinfo=UTC):
        assert codec.encode(value.astimezone(zone)) == codec.encode(value)


@FAST
@given(aware_in_range, aware_in_range)
def test_timestamp_string_order_is_time_order(a: datetime, b: datetime) -> None:
    codec = TimestampCodec()
    a_ms, b_ms = to_millis(a), to_millis(b)
    assert (codec.encode(a) < codec.encode(b)) == (a_ms < b_ms)
    assert (codec.encode(a) == codec.encode(b)) == (a_ms == b_ms)
    if a <= b:
        assert codec.encode(a) <= codec.encode(b)


@FAST
@given(st.datetimes(timezones=any_zone))
@example(datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))))
@example(datetime.max.replace(tzinfo=timezone(timedelta(hours=-1))))
@example(datetime(999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC))
@example(TIMESTAMP_MIN)
@example(TIMESTAMP_MAX)
@example(datetime.max.replace(tzinfo=UTC))
def test_any_aware_datetime_encodes_or_is_invalid_input(value: datetime) -> None:
    """Years 1000 to 9999 (UTC) encode; anything else, even near datetime.min/max, is input."""
    in_range = TIMESTAMP_MIN <= value <= datetime.max.replace(tzinfo=UTC)
    if in_range:
        assert len(TimestampCodec().encode(value)) == 24
    else:
        with pytest.raises(BadUserInput):
            TimestampCodec().encode(value)


@QUICK
@given(st.datetimes())
def test_naive_datetimes_are_refused(value: datetime) -> None:
    with pytest.raises(BadUserInput):
        TimestampCodec().encode(value)


def _mutations(encoded: str) -> st.SearchStrategy[str]:
    positions = st.integers(0, len(encoded) - 1)
    chars = st.sampled_from("0123456789-:.TZ# ٠٣²" + string.ascii_letters)
    return st.tuples(positions, chars).map(
        lambda pc: encoded[: pc[0]] + pc[1] + encoded[pc[0] + 1 :]
    )


timestamp_like = st.one_of(
    utc_millis.map(TimestampCodec().encode).flatmap(_mutations),
    st.text(max_size=30),
    st.sampled_from(
        [
            "0999-12-31T23:59:59.999Z",
            "0000-01-01T00:00:00.000Z",
            "2020-13-01T00:00:00.000Z",
            "2020-02-30T00:00:00.000Z",
            "٢٠٢٠-11-09T12:00:00.123Z",
            "2020-11-09T12:00:00.123Z\n",
        ]
    ),
)


@FAST
@given(timestamp_like)
def test_timestamp_decode_accepts_only_canonical_segments(segment: str) -> None:
    """A segment either decodes to the value that encodes back to it, or is refused."""
    codec = TimestampCodec()
    try:
        value = codec.decode(segment)
    except ValueError:  # BadUserInput is a ValueError; `KeyTemplate.matches` relies on it
        return
    assert codec.encode(value) == segment


# ---- byte order ------------------------------------------------------------------------


@FAST
@given(
    st.text(alphabet=st.characters(max_codepoint=127), max_size=12),
    st.text(alphabet=st.characters(max_codepoint=127), max_size=12),
    st.booleans(),
)
def test_utf8_byte_order_is_str_order(a: str, b: str, bound: bool) -> None:
    """What lets every test compare keys with `<` as DynamoDB compares their bytes."""
    if bound:
        b += KEY_MAX
    assert (a < b) == (a.encode() < b.encode())
    assert (b < a) == (b.encode() < a.encode())
