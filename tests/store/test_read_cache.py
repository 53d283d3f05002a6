"""The read cache's bookkeeping (`store/cache/memory.py`), pure: an entry answers until a
change touches what it depends on; a read in flight while its range changes is never
stored; memory is bounded; a suspended cache answers and stores nothing."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from keys.table import GSI1, GSI2, TABLE
from store.cache.dependencies import item as item_dependency
from store.cache.dependencies import of_image as partitions_of
from store.cache.memory import ReadCache

ORDERS = ("GSI1", "CUSTOMER#c1")
OTHER = ("GSI1", "CUSTOMER#c2")


def test_an_entry_answers_until_a_change_touches_what_it_depends_on() -> None:
    cache = ReadCache(max_bytes=1_000)
    assert cache.put(cache.begin(), "orders", ["o1"], 10, [ORDERS])
    assert cache.get("orders") == ["o1"]
    assert cache.invalidate([OTHER]) == 0
    assert cache.get("orders") == ["o1"]
    assert cache.invalidate([ORDERS]) == 1
    assert cache.get("orders") is None
    assert (cache.stats.hits, cache.stats.misses, cache.stats.invalidations) == (2, 1, 1)


def test_a_read_in_flight_while_its_range_changes_is_never_stored() -> None:
    cache = ReadCache(max_bytes=1_000)
    ticket = cache.begin()  # the read is sent to DynamoDB
    cache.invalidate([ORDERS])  # a change to its partition arrives meanwhile
    assert not cache.put(ticket, "orders", ["before the change"], 10, [ORDERS])
    assert cache.get("orders") is None and cache.stats.raced == 1
    # A read that began after the change is stored.
    assert cache.put(cache.begin(), "orders", ["after"], 10, [ORDERS])
    # One whose range was not touched is stored too.
    other = cache.begin()
    cache.invalidate([OTHER])
    assert cache.put(other, "orders", ["after"], 10, [ORDERS])


def test_changes_are_remembered_only_while_a_read_may_ask() -> None:
    cache = ReadCache(max_bytes=1_000)
    cache.invalidate([ORDERS])  # no read in flight: nothing to remember
    assert not cache._changed
    first = cache.begin()
    cache.invalidate([ORDERS])
    second = cache.begin()
    cache.invalidate([OTHER])
    assert set(cache._changed) == {ORDERS, OTHER}
    cache.end(first)
    assert set(cache._changed) == {OTHER}  # only `second` may still ask, and only of OTHER
    assert cache.put(second, "orders", [], 1, [ORDERS])
    assert not cache._changed


def test_memory_is_bounded_least_recently_used_first() -> None:
    cache = ReadCache(max_bytes=100)
    for name in ("a", "b", "c"):
        cache.put(cache.begin(), name, name, 40, [("", name)])
    assert cache.get("a") is None and cache.get("b") == "b" and cache.bytes == 80
    cache.put(cache.begin(), "d", "d", 40, [("", "d")])
    assert cache.get("c") is None and cache.get("b") == "b"  # `b` was used last
    assert not cache.put(cache.begin(), "huge", "x", 101, [("", "x")])
    assert cache.bytes <= 100 and cache.stats.evictions == 2


def test_a_suspended_cache_answers_nothing_and_stores_no_read_begun_before() -> None:
    cache = ReadCache(max_bytes=1_000)
    cache.put(cache.begin(), "orders", ["o1"], 10, [ORDERS])
    in_flight = cache.begin()
    cache.suspend()
    assert cache.get("orders") is None and len(cache) == 0
    assert not cache.put(cache.begin(), "orders", ["o1"], 10, [ORDERS])
    cache.resume()
    assert not cache.put(in_flight, "orders", ["o1"], 10, [ORDERS])
    assert cache.put(cache.begin(), "orders", ["o1"], 10, [ORDERS])


def test_an_item_is_in_the_partitions_of_the_indexes_whose_keys_it_holds() -> None:
    item = {"PK": "ORDER#1", "SK": "ORDER#1", "GSI1PK": "CUSTOMER#c1", "GSI1SK": "x"}
    assert partitions_of(item, TABLE, [GSI1, GSI2]) == {
        ("", "ORDER#1"),
        item_dependency("ORDER#1", "ORDER#1"),
        ("GSI1", "CUSTOMER#c1"),
    }
    # A sparse index's partition key without its sort key: not in the index.
    assert ("GSI2", "P") not in partitions_of({**item, "GSI2PK": "P"}, TABLE, [GSI2])


@given(st.integers(min_value=0, max_value=2**32))
def test_no_interleaving_stores_a_read_a_change_in_flight_could_alter(seed: int) -> None:
    """Reads and changes of three partitions in a random order: an entry is stored only
    when no change of its partition came between its read's start and its store, and it
    is answered only while no change of its partition came since."""
    draw = random.Random(seed)
    cache = ReadCache(max_bytes=10_000)
    partitions = [("", f"P{n}") for n in range(3)]
    version = dict.fromkeys(partitions, 0)  # the truth: changes so far
    in_flight: list[tuple[object, tuple[str, str], int]] = []
    for _ in range(60):
        action = draw.random()
        if action < 0.35:
            partition = draw.choice(partitions)
            in_flight.append((cache.begin(), partition, version[partition]))
        elif action < 0.7 and in_flight:
            ticket, partition, read = in_flight.pop(draw.randrange(len(in_flight)))
            stored = cache.put(ticket, partition[1], read, 1, [partition])  # type: ignore[arg-type]
            assert stored == (read == version[partition])
        elif action < 0.9:
            partition = draw.choice(partitions)
            version[partition] += 1
            cache.invalidate([partition])
        for partition in partitions:
            answer = cache.get(partition[1])
            assert answer is None or answer == version[partition]


def test_a_read_of_what_changed_moments_ago_is_kept_only_for_moments() -> None:
    """DynamoDB's eventually consistent reads and its indexes may lag a change: what a read
    began just after it returned may predate it."""
    now = [100.0]
    cache = ReadCache(max_bytes=1_000, settle=0.5, clock=lambda: now[0])
    cache.invalidate([ORDERS])
    now[0] += 0.1
    assert cache.put(cache.begin(), "orders", ["maybe before"], 10, [ORDERS])
    assert cache.get("orders") == ["maybe before"]
    now[0] += 0.4  # `settle` after the change
    assert cache.get("orders") is None
    assert cache.put(cache.begin(), "orders", ["after"], 10, [ORDERS])
    now[0] += 60.0
    assert cache.get("orders") == ["after"]  # read once the change had settled: kept
    assert cache.put(cache.begin(), "other", ["x"], 10, [OTHER])
    assert not cache._recent  # changes are forgotten once settled
