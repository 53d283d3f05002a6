"""What a cached read depends on and what a change touches (`store/cache/dependencies.py`),
and when the process's cache may answer (`store/cache/reads.py`): pure, no I/O."""

from __future__ import annotations

from keys.conditions import KeyCondition
from keys.table import GSI1, GSI2, TABLE
from store.cache import dependencies as deps
from store.cache.reads import CachedReads
from store.requests import put_request, to_attributes, transaction_update, update_request

ORDER = {
    "PK": "ORDER#1",
    "SK": "ORDER#1",
    "GSI1PK": "CUSTOMER#c1",
    "GSI1SK": "2026",
    "status": "PLACED",
}
INDEXES = {GSI1, GSI2}


def test_a_query_depends_on_its_partition_and_the_items_it_returned() -> None:
    condition = KeyCondition(GSI1, "CUSTOMER#c1", "2025", None)
    found = deps.of_query(condition, [ORDER], TABLE, filtered=False)
    assert found == {("GSI1", "CUSTOMER#c1"), deps.item("ORDER#1", "ORDER#1"), ("*", "GSI1")}
    assert ("?", "GSI1") in deps.of_query(condition, [], TABLE, filtered=True)
    on_table = deps.of_query(KeyCondition(TABLE, "ORDER#1"), [], TABLE, filtered=True)
    assert on_table == {("", "ORDER#1")}


def test_a_put_touches_the_partitions_of_its_new_image() -> None:
    touched = deps.of_write("PutItem", put_request("t", ORDER), TABLE, INDEXES)
    assert touched == {("", "ORDER#1"), deps.item("ORDER#1", "ORDER#1"), ("GSI1", "CUSTOMER#c1")}
    # Without an index's sort key the item is not in that sparse index.
    sparse = {**ORDER, "GSI2PK": "STATUS#PLACED"}
    assert ("GSI2", "STATUS#PLACED") not in deps.of_write(
        "Put", put_request("t", sparse), TABLE, INDEXES
    )


def test_an_update_touches_its_answer_or_else_the_indexes_it_may_have_moved_it_in() -> None:
    key = {"PK": "ORDER#1", "SK": "ORDER#1"}
    moving = update_request("t", key, set_values={"GSI2SK": "SHIPPED#2026", "status": "SHIPPED"})
    answered = deps.of_write("UpdateItem", moving, TABLE, INDEXES, {**ORDER, "status": "SHIPPED"})
    assert answered == {("", "ORDER#1"), deps.item("ORDER#1", "ORDER#1"), ("GSI1", "CUSTOMER#c1")}
    # In a transaction there is no answer: reads of GSI2 as a whole are touched (its sort key
    # moved), and filtered reads of every index (anything changed may now match a filter).
    blind = deps.of_transaction([transaction_update(moving)], TABLE, INDEXES)
    assert {("*", "GSI2"), ("?", "GSI2"), ("?", "GSI1")} <= blind
    assert ("*", "GSI1") not in blind
    counter = update_request("t", key, add={"count": 1})
    assert deps.updated_attributes(counter) >= {"count"}
    bare = {"Key": to_attributes(key), "UpdateExpression": "SET GSI1SK = :v"}
    assert ("*", "GSI1") in deps.of_write("Update", bare, TABLE, INDEXES)


def test_a_delete_touches_its_item_and_a_change_read_from_the_stream_both_images() -> None:
    delete = {"Key": to_attributes({"PK": "ORDER#1", "SK": "ORDER#1"})}
    assert deps.of_write("Delete", delete, TABLE, INDEXES) == {
        ("", "ORDER#1"),
        deps.item("ORDER#1", "ORDER#1"),
    }
    moved = {**ORDER, "GSI1PK": "CUSTOMER#c2"}
    touched = deps.of_record(ORDER, moved, TABLE, INDEXES)
    assert {("GSI1", "CUSTOMER#c1"), ("GSI1", "CUSTOMER#c2")} <= touched
    assert deps.of_write("ConditionCheck", delete, TABLE, INDEXES) == set()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_cache_answers_only_while_every_readable_shard_was_read_to_its_end_lately() -> None:
    clock = Clock()
    cache = CachedReads(1 << 20, set(INDEXES), clock=clock)
    assert not cache.answering()  # nothing read yet
    cache.beat("a", {"s1"}, {"s1", "s2"}, 0.1)
    assert not cache.answering()  # s2 is read by nobody yet
    cache.beat("b", {"s2"}, {"s1", "s2"}, 0.1)
    assert cache.answering()
    ticket = cache.begin()
    assert ticket is not None
    cache.keep(ticket, "k", {"Items": []}, [("", "P")])
    assert cache.lookup("k") == {"Items": []}
    clock.now += 2.0
    cache.beat("a", {"s1"}, {"s1", "s2"}, 0.1)
    clock.now += 1.5  # b has not beaten for 3.5 s: its shard may hold unread changes
    assert not cache.answering() and cache.lookup("k") is None
    assert cache.begin() is None
    cache.beat("b", {"s2"}, {"s1", "s2"}, 0.1)
    assert cache.answering() and cache.lookup("k") is None  # emptied when suspended
    # s1 was last read to its end 1.6 s ago (a's round): a change of it may be that old.
    unapplied = cache.unapplied_seconds()
    assert unapplied is not None and abs(unapplied - 1.6) < 1e-6
