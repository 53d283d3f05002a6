"""Property tests of `keys.template.KeyTemplate` on templates shaped as the demo's orders'.

Keys are ASCII, bounds add KEY_MAX (U+FFFF): for such strings Python's `str` order is
DynamoDB's UTF-8 byte order, so `KeyCondition.contains` (plain `<=`) is what DynamoDB does.
"""

from __future__ import annotations

import string
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from errors.vocabulary import BadUserInput
from keys.codecs import (
    DELIMITERS,
    KSUID_EPOCH,
    ChoiceCodec,
    IdentifierCodec,
    KsuidCodec,
    TimestampCodec,
    to_millis,
)
from keys.codecs import ksuid as make_ksuid
from keys.conditions import KeyCondition
from keys.table import GSI1, TABLE
from keys.template import DELIMITER, KeyTemplate, Segment, render_all
from tests.keys.strategies import FAST, FEWER, QUICK, ksuids

ORDER_STATUSES = frozenset({"PLACED", "SHIPPED", "DELIVERED", "CANCELLED"})
CUSTOMER = KeyTemplate("CUSTOMER", (Segment("customer_id", IdentifierCodec()),))
ORDER = KeyTemplate("ORDER", (Segment("order_id", KsuidCodec()),))
ORDER_BY_TIME = KeyTemplate(
    "ORDER", (Segment("placed_at", TimestampCodec()), Segment("order_id", KsuidCodec()))
)
ORDER_BY_STATUS = KeyTemplate(
    "ORDER",
    (
        Segment("status", ChoiceCodec(ORDER_STATUSES)),
        Segment("placed_at", TimestampCodec()),
        Segment("order_id", KsuidCodec()),
    ),
)
OPEN_ORDERS = KeyTemplate("ORDERS", (Segment("status", ChoiceCodec(ORDER_STATUSES)),))
TEMPLATES: dict[str, KeyTemplate] = {
    "CUSTOMER": CUSTOMER,
    "ORDER": ORDER,
    "ORDER_BY_TIME": ORDER_BY_TIME,
    "ORDER_BY_STATUS": ORDER_BY_STATUS,
    "OPEN_ORDERS": OPEN_ORDERS,
}
template_names = st.sampled_from(sorted(TEMPLATES))

identifiers = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", fullmatch=True)
zones = st.one_of(
    st.just(UTC),
    st.builds(timezone, st.timedeltas(timedelta(hours=-23), timedelta(hours=23))),
)
placed_ats = st.datetimes(datetime(1000, 1, 2), datetime(9999, 12, 30), timezones=zones)

# One strategy per segment name used by the templates under test.
SEGMENT_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "customer_id": identifiers,
    "order_id": ksuids,
    "placed_at": placed_ats,
    "status": st.sampled_from(sorted(ORDER_STATUSES)),
}


def values_for(template: KeyTemplate) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({s.name: SEGMENT_VALUES[s.name] for s in template.segments})


def canonical(values: dict[str, Any]) -> dict[str, Any]:
    """What parsing gives back: times in UTC at millisecond precision."""
    return {k: to_millis(v) if isinstance(v, datetime) else v for k, v in values.items()}


template_and_values = template_names.flatmap(
    lambda name: st.tuples(st.just(TEMPLATES[name]), values_for(TEMPLATES[name]))
)


@FAST
@given(template_and_values)
def test_render_parse_round_trip(case: tuple[KeyTemplate, dict[str, Any]]) -> None:
    template, values = case
    key = template.render(**values)
    assert key.isascii()
    assert len(key.encode()) <= 1024  # DynamoDB's limit for a sort key
    assert key.count(DELIMITER) == len(template.segments)
    assert not {"/", "~"}.intersection(key)
    assert template.parse(key) == canonical(values)
    assert template.matches(key)
    assert template.render(**template.parse(key)) == key


@FEWER
@given(template_and_values)
def test_a_key_matches_only_its_own_template(case: tuple[KeyTemplate, dict[str, Any]]) -> None:
    template, values = case
    key = template.render(**values)
    assert [t for t in TEMPLATES.values() if t.matches(key)] == [template]


@FAST
@given(template_and_values)
def test_every_leading_prefix_prefixes_the_full_key(
    case: tuple[KeyTemplate, dict[str, Any]],
) -> None:
    template, values = case
    key = template.render(**values)
    names = [s.name for s in template.segments]
    for count in range(len(names)):
        leading = {name: values[name] for name in names[:count]}
        prefix = template.prefix(**leading)
        assert prefix.endswith(DELIMITER)
        assert key.startswith(prefix)
        condition = KeyCondition.prefix(TABLE, "P", prefix)
        assert condition.begins_with == prefix
        assert condition.contains(key)
    # All segments given: the key itself plus a delimiter, which bounds nothing longer.
    assert template.prefix(**values) == key + DELIMITER


def _segment_variants(
    template: KeyTemplate,
) -> st.SearchStrategy[tuple[KeyTemplate, int, dict[str, Any], Any]]:
    """A template, a segment position, values for the full key, and another value there."""
    return st.integers(0, len(template.segments) - 1).flatmap(
        lambda i: st.tuples(
            st.just(template),
            st.just(i),
            values_for(template),
            SEGMENT_VALUES[template.segments[i].name],
        )
    )


variants = template_names.flatmap(lambda name: _segment_variants(TEMPLATES[name]))


@FEWER
@given(variants)
@example((CUSTOMER, 0, {"customer_id": "abc"}, "ab"))
@example((CUSTOMER, 0, {"customer_id": "ab"}, "abc"))
@example((CUSTOMER, 0, {"customer_id": "ab"}, "ab.c"))
@example((CUSTOMER, 0, {"customer_id": "ab-c"}, "ab"))
def test_a_prefix_never_reaches_another_value(
    case: tuple[KeyTemplate, int, dict[str, Any], Any],
) -> None:
    """The prefix through segment i with value A holds no key whose segment i is B != A."""
    template, position, values, other = case
    segment = template.segments[position]
    assume(segment.codec.encode(other) != segment.codec.encode(values[segment.name]))
    names = [s.name for s in template.segments]
    leading = {name: values[name] for name in names[:position]}
    prefix = template.prefix(**leading, **{segment.name: other})
    key = template.render(**values)
    assert not key.startswith(prefix)
    assert not KeyCondition.prefix(TABLE, "P", prefix).contains(key)


@FEWER
@given(template_and_values, st.data())
def test_segments_out_of_order_raise_type_error(
    case: tuple[KeyTemplate, dict[str, Any]], data: st.DataObject
) -> None:
    template, values = case
    names = [s.name for s in template.segments]
    chosen = data.draw(st.sets(st.sampled_from(names), min_size=1))
    given_values = {name: values[name] for name in chosen}
    is_leading_run = set(names[: len(chosen)]) == chosen
    if is_leading_run:
        # A full key's prefix is the key plus a delimiter, hence the comparison with that.
        assert (template.render(**values) + DELIMITER).startswith(template.prefix(**given_values))
    else:
        with pytest.raises(TypeError):
            template.prefix(**given_values)
    if chosen != set(names):
        with pytest.raises(TypeError):
            template.render(**given_values)


@QUICK
@given(template_and_values, st.sampled_from(["customerId", "extra", "PK"]))
def test_unknown_segments_raise_type_error(
    case: tuple[KeyTemplate, dict[str, Any]], unknown: str
) -> None:
    template, values = case
    with pytest.raises(TypeError):
        template.render(**values, **{unknown: "x"})
    with pytest.raises(TypeError):
        template.prefix(**{unknown: "x"})


# Text an attacker might send as an id: delimiters, labels and white space among id chars.
hostile_text = st.one_of(
    identifiers,
    st.text(
        alphabet=st.sampled_from(string.ascii_letters[:6] + string.digits[:3] + "#/~ .-_\n"),
        max_size=20,
    ),
    st.sampled_from(["ab#ORDER", "ab#", "#ab", "ORDER#x", "x/y", "x~y", "CUSTOMER#ab", "a b"]),
    st.text(max_size=20),
)


@FAST
@given(hostile_text, hostile_text)
def test_no_identifier_can_inject_segments(customer_id: str, other_id: str) -> None:
    """An id either is refused or renders a key that parses back to exactly that id."""
    try:
        key = CUSTOMER.render(customer_id=customer_id)
    except BadUserInput:
        return
    assert key.count(DELIMITER) == 1
    assert CUSTOMER.parse(key) == {"customer_id": customer_id}
    try:
        other = CUSTOMER.render(customer_id=other_id)
    except BadUserInput:
        return
    # Two different ids never share a key, nor does one's prefix reach the other's key.
    assert (key == other) == (customer_id == other_id)
    assert not other.startswith(CUSTOMER.prefix(customer_id=customer_id))


@QUICK
@given(hostile_text)
def test_delimiters_in_ids_are_invalid_input(text: str) -> None:
    if DELIMITERS.intersection(text) or not text or any(c.isspace() for c in text):
        with pytest.raises(BadUserInput):
            CUSTOMER.render(customer_id=text)
        with pytest.raises(BadUserInput):
            CUSTOMER.prefix(customer_id=text)


@QUICK
@given(identifiers, ksuids, placed_ats, st.sampled_from(sorted(ORDER_STATUSES)))
def test_render_all_renders_each_attribute(
    customer_id: str, order_id: str, placed_at: datetime, status: str
) -> None:
    rendered = render_all(
        {"PK": CUSTOMER, "SK": ORDER_BY_STATUS, GSI1.sort_key: ORDER_BY_TIME},
        customer_id=customer_id,
        order_id=order_id,
        placed_at=placed_at,
        status=status,
    )
    assert rendered == {
        "PK": CUSTOMER.render(customer_id=customer_id),
        "SK": ORDER_BY_STATUS.render(status=status, placed_at=placed_at, order_id=order_id),
        GSI1.sort_key: ORDER_BY_TIME.render(placed_at=placed_at, order_id=order_id),
    }


def test_parse_refuses_foreign_keys() -> None:
    key = ORDER_BY_TIME.render(
        placed_at=datetime(2020, 11, 9, 12, tzinfo=UTC), order_id=make_ksuid(KSUID_EPOCH, bytes(16))
    )
    assert key == "ORDER#2020-11-09T12:00:00.000Z#000000000000000000000000000"
    for foreign in ["", "ORDER", "ORDERS#PLACED", "CUSTOMER#a", key + DELIMITER, "X" + key]:
        assert not ORDER_BY_TIME.matches(foreign)
        with pytest.raises(ValueError):
            ORDER_BY_TIME.parse(foreign)
    assert KeyTemplate("LABEL").render() == "LABEL"
    assert KeyTemplate("LABEL").prefix() == "LABEL#"
