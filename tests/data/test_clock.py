"""The clock and the randomness behind generated ids and write tokens (`data/clock.py`)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from data.clock import new_ksuid, new_token, now
from keys.codecs import KSUID_EPOCH, ksuid_seconds


def _utc_wall(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)


# Any time a KSUID can hold (2014-05-13 to 2150).
times = st.datetimes(
    min_value=_utc_wall(KSUID_EPOCH),
    max_value=_utc_wall(KSUID_EPOCH + (1 << 32) - 1),
    timezones=st.just(UTC),
)


def test_now_is_utc_in_whole_milliseconds() -> None:
    before = datetime.now(UTC)
    current = now()
    assert current.tzinfo is UTC and current.microsecond % 1000 == 0
    assert before - timedelta(milliseconds=1) <= current <= datetime.now(UTC)


@given(times, times)
def test_ksuids_carry_their_second_and_sort_by_it(a: datetime, b: datetime) -> None:
    first, second = new_ksuid(a), new_ksuid(b)
    assert ksuid_seconds(first) == int(a.timestamp())
    if int(a.timestamp()) < int(b.timestamp()):
        assert first < second


def test_ids_and_tokens_are_fresh_each_time() -> None:
    at = datetime(2024, 5, 1, tzinfo=UTC)
    assert len({new_ksuid(at) for _ in range(1000)}) == 1000
    tokens = {new_token() for _ in range(1000)}
    assert len(tokens) == 1000
    assert all(re.fullmatch("[0-9a-f]{32}", t) for t in tokens)
