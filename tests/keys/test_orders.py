"""Key conditions of orders select exactly the orders a brute-force filter selects.

Each test renders the index attributes of random orders, "queries" them the way DynamoDB
would (partition equal, sort key inside the inclusive interval) and compares with a plain
filter over the orders. Keys are ASCII and bounds end in KEY_MAX (U+FFFF), so Python's `str`
order equals DynamoDB's UTF-8 byte order; `selected` checks both to keep that honest.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errors.vocabulary import BadUserInput
from keys.codecs import KSUID_PAYLOAD_BYTES, to_millis
from keys.codecs import ksuid as make_ksuid
from keys.conditions import KeyCondition
from keys.table import GSI1, GSI2, GSI3, TABLE
from tests.demo_orders import CUSTOMER_TEMPLATE as CUSTOMER
from tests.demo_orders import (
    OPEN_ORDER_ATTRIBUTES,
    OPEN_STATUS,
    ORDER_STATUSES,
    TimeRange,
    customer_key,
    customer_orders,
    open_orders,
    order_index_attributes,
    order_key,
)
from tests.demo_orders import ORDER_TEMPLATE as ORDER
from tests.keys.strategies import FAST, FEWER, QUICK

# Ids that prefix one another, and that differ only in case, to catch leaky prefixes.
CUSTOMER_POOL = ["a", "ab", "abc", "A", "ab.c", "ab-1"]
STATUSES = sorted(ORDER_STATUSES)
# Across a year, a day, a second boundary, so digits of every field change.
BASE = datetime(2021, 12, 31, 23, 59, 59, 980_000, tzinfo=UTC)


@dataclass(frozen=True)
class Order:
    customer_id: str
    order_id: str
    status: str
    placed_at: datetime  # whole milliseconds, in any offset

    @property
    def attributes(self) -> dict[str, str]:
        return order_index_attributes(self.customer_id, self.order_id, self.status, self.placed_at)


zones = st.one_of(
    st.just(UTC),
    st.builds(timezone, st.timedeltas(timedelta(hours=-23), timedelta(hours=23))),
)
# Mostly within 60 ms of BASE so that orders and bounds share milliseconds; sometimes years.
millis = st.one_of(st.integers(-30, 30), st.integers(-(10**11), 10**11))
instants = st.builds(
    lambda ms, zone: (BASE + timedelta(milliseconds=ms)).astimezone(zone), millis, zones
)
payloads = st.binary(min_size=KSUID_PAYLOAD_BYTES, max_size=KSUID_PAYLOAD_BYTES)


def _order(customer_id: str, status: str, placed_at: datetime, payload: bytes) -> Order:
    seconds = (placed_at - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(seconds=1)
    return Order(customer_id, make_ksuid(seconds, payload), status, placed_at)


orders = st.builds(
    _order, st.sampled_from(CUSTOMER_POOL), st.sampled_from(STATUSES), instants, payloads
)
order_lists = st.lists(orders, max_size=30, unique_by=lambda order: order.order_id)


@dataclass(frozen=True)
class Scenario:
    among: list[Order]
    customer_id: str
    status: str | None


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    """Orders and a query that, half the time, aims at one of them."""
    among = draw(order_lists)
    aimed = draw(st.booleans())
    if among and aimed:
        target = draw(st.sampled_from(among))
        return Scenario(among, target.customer_id, draw(st.sampled_from([None, target.status])))
    customer_id = draw(st.sampled_from(CUSTOMER_POOL))
    return Scenario(among, customer_id, draw(st.none() | st.sampled_from(STATUSES)))


def bounds_near(scenario: Scenario) -> st.SearchStrategy[datetime]:
    """Any instant, or one on, just before or just after an order's time, in any offset."""
    mine = [o for o in scenario.among if o.customer_id == scenario.customer_id]
    if not mine:
        return instants
    shifted = st.builds(
        lambda order, ms, zone: (order.placed_at + timedelta(milliseconds=ms)).astimezone(zone),
        st.sampled_from(mine),
        st.sampled_from([0, 0, -1, 1]),
        zones,
    )
    return st.one_of(instants, shifted, shifted)


def selected(condition: KeyCondition, attributes: dict[str, str]) -> bool:
    """Would a Query with `condition` on its index return an item with these attributes?"""
    partition_key, sort_key = condition.index.attributes
    if attributes.get(partition_key) != condition.partition or sort_key not in attributes:
        return False
    key = attributes[sort_key]
    in_str_order = condition.contains(key)
    in_byte_order = (condition.low is None or condition.low.encode() <= key.encode()) and (
        condition.high is None or key.encode() <= condition.high.encode()
    )
    assert in_str_order == in_byte_order
    return in_str_order


def query(condition: KeyCondition, among: list[Order]) -> list[Order]:
    """The selected orders in the index's sort-key order, as DynamoDB returns them."""
    sort_key = condition.index.sort_key
    hits = [order for order in among if selected(condition, order.attributes)]
    return sorted(hits, key=lambda order: order.attributes[sort_key])


def by_time(found: list[Order]) -> list[Order]:
    return sorted(found, key=lambda order: (to_millis(order.placed_at), order.order_id))


# ---- customer orders -------------------------------------------------------------------


@FAST
@given(scenarios(), st.data())
def test_customer_orders_select_exactly_the_matching_orders(
    scenario: Scenario, data: st.DataObject
) -> None:
    # Bounds here are whole milliseconds, like placedAt; finer ones: the next test.
    among, customer_id, status = scenario.among, scenario.customer_id, scenario.status
    start = data.draw(st.none() | bounds_near(scenario), label="from")
    end = data.draw(st.none() | bounds_near(scenario), label="to")
    if start is None and end is None:
        placed = None
    elif start is not None and end is not None and start > end:
        with pytest.raises(BadUserInput):
            TimeRange(start, end)
        return
    else:
        placed = TimeRange(start, end)
    condition = customer_orders(customer_id, status, placed)

    assert condition.index is (GSI1 if status is None else GSI2)
    assert condition.partition == CUSTOMER.render(id=customer_id)
    # DynamoDB refuses BETWEEN with low > high, so a valid range never builds one.
    assert condition.low is not None and condition.high is not None
    assert condition.low <= condition.high
    if placed is None:
        assert condition.begins_with is not None

    expected = [
        order
        for order in among
        if order.customer_id == customer_id
        and (status is None or order.status == status)
        and (start is None or start <= order.placed_at)
        and (end is None or order.placed_at <= end)
    ]
    found = query(condition, among)
    assert sorted(o.order_id for o in found) == sorted(o.order_id for o in expected)
    # The index returns them by placement time (ties by KSUID), so `direction` is free.
    assert found == by_time(found)


@FEWER
@given(scenarios(), st.data(), st.integers(0, 999), st.integers(0, 2))
def test_bounds_below_a_millisecond_are_taken_at_millisecond_precision(
    scenario: Scenario, data: st.DataObject, extra_micros: int, length_ms: int
) -> None:
    """`from`/`to` with microseconds are truncated like every time in a key.

    Orders are stored at millisecond precision; a `from` of .123456 therefore includes an
    order placed at .123 (truncation), exactly as a `from` of .123 does.
    """
    among, customer_id, status = scenario.among, scenario.customer_id, scenario.status
    start = data.draw(bounds_near(scenario), label="from, whole milliseconds")
    fine_start = start + timedelta(microseconds=extra_micros)
    fine_end = start + timedelta(milliseconds=length_ms, microseconds=extra_micros)
    fine = customer_orders(customer_id, status, TimeRange(fine_start, fine_end))
    coarse = customer_orders(
        customer_id, status, TimeRange(to_millis(fine_start), to_millis(fine_end))
    )
    assert fine == coarse
    expected = [
        order
        for order in among
        if order.customer_id == customer_id
        and (status is None or order.status == status)
        and to_millis(fine_start) <= order.placed_at <= to_millis(fine_end)
    ]
    assert {o.order_id for o in query(fine, among)} == {o.order_id for o in expected}


@QUICK
@given(st.text(max_size=10), st.sampled_from(CUSTOMER_POOL))
def test_unknown_statuses_are_invalid_input(status: str, customer_id: str) -> None:
    if status in ORDER_STATUSES:
        customer_orders(customer_id, status)
    else:
        with pytest.raises(BadUserInput):
            customer_orders(customer_id, status)


@QUICK
@given(st.sampled_from(["", "a#b", "a/b", "a~b", "a b", "-a", "a" * 65, "ORDER#x"]))
def test_bad_customer_ids_are_invalid_input(customer_id: str) -> None:
    with pytest.raises(BadUserInput):
        customer_orders(customer_id)
    with pytest.raises(BadUserInput):
        customer_key(customer_id)


# ---- open orders -----------------------------------------------------------------------


@FEWER
@given(order_lists)
def test_open_orders_are_exactly_the_placed_orders_oldest_first(among: list[Order]) -> None:
    condition = open_orders()
    assert condition.index is GSI3
    found = query(condition, among)
    expected = [order for order in among if order.status == OPEN_STATUS]
    assert sorted(o.order_id for o in found) == sorted(o.order_id for o in expected)
    assert found == by_time(found)


@QUICK
@given(orders)
def test_only_placed_orders_carry_open_order_attributes(order: Order) -> None:
    attributes = order.attributes
    has_gsi3 = set(GSI3.attributes) <= set(attributes)
    assert has_gsi3 == (order.status == OPEN_STATUS)
    assert has_gsi3 or not set(GSI3.attributes) & set(attributes)  # both or neither
    # Moving away from PLACED removes exactly OPEN_ORDER_ATTRIBUTES.
    placed = order_index_attributes(order.customer_id, order.order_id, OPEN_STATUS, order.placed_at)
    shipped = order_index_attributes(order.customer_id, order.order_id, "SHIPPED", order.placed_at)
    assert set(placed) - set(shipped) == set(OPEN_ORDER_ATTRIBUTES)
    assert placed[GSI1.sort_key] == shipped[GSI1.sort_key]


@QUICK
@given(orders)
def test_table_keys_parse_back(order: Order) -> None:
    key = order_key(order.order_id)
    assert key[TABLE.partition_key] == key[TABLE.sort_key]
    assert ORDER.parse(key[TABLE.partition_key]) == {"id": order.order_id}
    customer = customer_key(order.customer_id)
    assert CUSTOMER.parse(customer[TABLE.sort_key]) == {"id": order.customer_id}
    assert customer[TABLE.partition_key] == order.attributes[GSI1.partition_key]


# ---- time ranges -----------------------------------------------------------------------


def test_time_range_needs_an_end() -> None:
    with pytest.raises(BadUserInput) as raised:
        TimeRange(None, None)
    assert raised.value.field == "placed"


@QUICK
@given(instants, instants)
def test_time_range_refuses_from_after_to(a: datetime, b: datetime) -> None:
    if a > b:
        with pytest.raises(BadUserInput):
            TimeRange(a, b)
    else:
        assert TimeRange(a, b).start == a
    assert TimeRange(a, a).end == a
    assert TimeRange(a, None).end is None
    assert TimeRange(None, b).start is None


@FAST
@given(
    st.none() | st.datetimes() | st.datetimes(timezones=zones),
    st.none() | st.datetimes() | st.datetimes(timezones=zones),
)
def test_any_time_range_input_is_accepted_or_invalid_input(
    start: datetime | None, end: datetime | None
) -> None:
    """Naive times, mixes of naive and aware, years out of range: all are the client's."""
    try:
        customer_orders("a", None, TimeRange(start, end))
    except BadUserInput:
        return
    assert start is None or start.tzinfo is not None
    assert end is None or end.tzinfo is not None
