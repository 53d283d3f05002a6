"""Values as other apps store them, without I/O: times both ways in each form, and the
declarations of the kinds that hold DynamoDB's own types refused where they cannot work."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import model as m
from keys.codecs import TIMESTAMP_MAX, TIMESTAMP_MIN
from model.attributes.times import time_loaded, time_stored

TIMES = st.datetimes(
    min_value=TIMESTAMP_MIN.replace(tzinfo=None),
    max_value=TIMESTAMP_MAX.replace(tzinfo=None),
    timezones=st.just(UTC),
).map(lambda t: t.replace(microsecond=t.microsecond - t.microsecond % 1000))


@given(TIMES)
def test_each_form_reads_back_what_it_writes(time: datetime) -> None:
    assert time_loaded("iso", time_stored("iso", time)) == time
    assert time_loaded("epoch_millis", time_stored("epoch_millis", time)) == time
    whole = time.replace(microsecond=0)
    assert time_loaded("epoch_seconds", time_stored("epoch_seconds", time)) == whole


@pytest.mark.parametrize(
    ("form", "held", "read"),
    [
        ("iso", "2025-03-01T12:00:00+02:00", "2025-03-01T10:00:00"),
        ("iso", "2025-03-01T10:00:00", "2025-03-01T10:00:00"),  # no zone: UTC
        ("iso", "2025-03-01T10:00:00.123456Z", "2025-03-01T10:00:00.123"),
        ("epoch_seconds", 0, "1970-01-01T00:00:00"),
        ("epoch_seconds", 1.5, "1970-01-01T00:00:01.500"),
        ("epoch_millis", -1000, "1969-12-31T23:59:59"),
    ],
)
def test_times_other_apps_write_are_read(form: Any, held: Any, read: str) -> None:
    assert time_loaded(form, held) == datetime.fromisoformat(read).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("form", "held"),
    [
        ("iso", 1_740_823_200),
        ("iso", "yesterday"),
        ("epoch_seconds", "1740823200"),
        ("epoch_seconds", True),
        ("epoch_millis", 10**20),
        ("epoch_seconds", -(10**11)),
    ],
)
def test_a_time_held_otherwise_is_no_time(form: Any, held: Any) -> None:
    with pytest.raises(ValueError):
        time_loaded(form, held)


def device(**attributes: m.Attribute) -> m.Entity:
    return m.Entity(
        "Device",
        {"id": m.Identifier(), **attributes},
        key=m.same(m.key("DEVICE", "id")),
    )


@pytest.mark.parametrize(
    ("attributes", "says"),
    [
        ({"ratio": m.Real(low=1, high=0)}, "finite numbers, in order"),
        ({"ratio": m.Real(high=float("inf"))}, "finite numbers, in order"),
        ({"tags": m.TextSet(most=0)}, "a set holds 1 to 1000 values"),
        ({"ports": m.NumberSet(low=0, high=2**40)}, "32-bit Int"),
        ({"blob": m.Json(limit=10**6)}, "JSON of 2 to 65,536 bytes"),
        ({"a": m.Version(), "b": m.Version()}, "one version per entity"),
    ],
)
def test_kinds_are_refused_beyond_their_bounds(
    attributes: dict[str, m.Attribute], says: str
) -> None:
    with pytest.raises(m.ModelError, match=says):
        device(**attributes)


def test_a_time_stored_as_a_number_keys_nothing() -> None:
    with pytest.raises(m.ModelError):
        m.Entity(
            "Reading",
            {"id": m.Identifier(), "at": m.Timestamp(stored_as="epoch_millis")},
            key=m.Keys(m.key("READING", "id"), m.key("AT", "at")),
        )
