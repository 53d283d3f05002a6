"""The bound of an operation, computed from its document alone (no DynamoDB)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from graphql import get_introspection_query, graphql_sync, parse

from gateway.demand.bound import Bound, bound_operation
from gateway.demand.control import BoundCache, Limits
from gateway.schema.build import build_schema

SCHEMA = build_schema()._schema


def bound(document: str, variables: dict[str, Any] | None = None, name: str | None = None) -> Bound:
    return bound_operation(SCHEMA, parse(document), name, variables)


def nested_orders(first: int, levels: int) -> str:
    """`customer { orders { edges { node { customer { orders … } } } } }`, `levels` deep."""
    inner = "id"
    for _ in range(levels):
        inner = f"customer {{ orders(first: {first}) {{ edges {{ node {{ {inner} }} }} }} }}"
    return (
        f'{{ customer(id: "x") {{ orders(first: {first}) {{ edges {{ node {{ {inner} }} }} }} }} }}'
    )


def doubling(levels: int, leaf: str = 'customer(id: "x") { name }') -> str:
    """A document whose fragment L<n> spreads L<n-1> twice: 2^levels copies of `leaf`."""
    fragments = [f"fragment L0 on Query {{ {leaf} }}"]
    fragments += [
        f"fragment L{n} on Query {{ ...L{n - 1} ...L{n - 1} }}" for n in range(1, levels + 1)
    ]
    return "\n".join([f"{{ ...L{levels} }}", *fragments])


# ---- reads ------------------------------------------------------------------------------


def test_one_item_by_key() -> None:
    assert bound('{ customer(id: "x") { id name } }').as_dict() == {
        "requests": 1,
        "itemsScanned": 1,
        "fields": 3,
    }


def test_a_page_counts_its_size_the_next_item_and_the_parent() -> None:
    page = bound('{ customer(id: "x") { orders(first: 10) { edges { node { id } } } } }')
    # The customer, then one Query of at most 10 + 2 items.
    assert (page.total_requests, page.total_items) == (2, 1 + 12)
    # customer, orders, edges, and node and id for each of 10 edges.
    assert page.fields == 3 + 10 * 2
    default = bound('{ customer(id: "x") { orders { edges { node { id } } } } }')
    assert default.fields == 3 + 20 * 2  # `first` defaults to 20


def test_variables_size_the_lists() -> None:
    document = "query ($n: Int) { openOrders(first: $n) { edges { node { id } } } }"
    assert bound(document, {"n": 3}).fields == 2 + 3 * 2
    assert bound(document, {"n": 100}).fields == 2 + 100 * 2
    # Out of range, the field refuses it before reading: the bound takes the most allowed.
    assert bound(document, {"n": 10**9}).fields == 2 + 100 * 2


def test_a_flag_past_the_page_is_one_more_read() -> None:
    flags = bound("{ openOrders { pageInfo { hasNextPage hasPreviousPage endCursor } } }")
    assert flags.total_requests == 1 + 2
    filtered = bound(
        '{ repo(owner: "a", name: "b") { issues(state: OPEN) { pageInfo { hasNextPage } } } }'
    )
    # A filtered page and its flag read at most their budget each.
    assert filtered.total_requests == 1 + 10 + 10
    assert filtered.total_items == 1 + 1_000 + 1_000


def test_the_same_read_under_many_parents_counts_once() -> None:
    # Every order of customer x names customer x, whose orders are the same page again.
    small = bound(nested_orders(5, 2))
    assert small.total_requests == 2
    assert small.total_items == 1 + 7
    assert small.fields > 5**3  # fields are not shared: the response holds every copy
    # A page of 102 orders of up to 20 KiB each may take two Query calls (1 MiB pages).
    assert bound(nested_orders(100, 2)).total_requests == 1 + 2


def test_reads_under_unknown_parents_count_per_parent() -> None:
    # An order found by id names a customer the bound cannot know: one read per order.
    orders = "orders(first: 5) { edges { node { customer { id } } } }"
    document = f'{{ order(id: "o") {{ customer {{ {orders} }} }} }}'
    # The order, its customer, her orders, and their customer once per order: the loader
    # will read her once, but the bound cannot know the five are one.
    assert bound(document).total_requests == 1 + 1 + 1 + 5


def test_aliases_of_one_read_are_one_read() -> None:
    aliased = bound('{ a: customer(id: "x") { id } b: customer(id: "x") { name } }')
    assert (aliased.total_requests, aliased.fields) == (1, 4)
    two = bound('{ a: customer(id: "x") { id } b: customer(id: "y") { id } }')
    assert two.total_requests == 2


def test_a_mutation_counts_its_own_retries_and_checks() -> None:
    """With the reads that learn what a write did (`store.witness.CHECK_READS`)."""
    result = bound('mutation { setOrderStatus(id: "o", status: SHIPPED) { id } }')
    assert (result.total_requests, result.total_items) == (2 + 2, 1 + 2)
    issue = bound('mutation { openIssue(input: {owner: "a", name: "b", title: "t"}) { number } }')
    assert issue.total_requests == 41 + 2  # one read, then one call per attempt


def test_markers_and_heatmap_count_their_reads() -> None:
    view = "{north: 1.0, south: 0.9, east: 1.0, west: 0.9}"
    markers = bound(f"{{ markers(viewport: {view}, limit: 10) {{ markers {{ id }} }} }}")
    assert markers.total_requests == 16
    assert markers.total_items == 16 * 11
    assert markers.fields == 2 + 10
    heatmap = bound(f"{{ heatmap(viewport: {view}) {{ cells {{ geohash }} }} }}")
    assert heatmap.total_items > 0 and heatmap.fields > 1
    refused = bound("{ heatmap(viewport: {north: 1, south: 2, east: 1, west: 0}) { precision } }")
    assert refused.total_requests == 0  # the field refuses the view before any read


def test_selections_execution_skips_are_not_counted() -> None:
    kept = '{ customer(id: "x") { id } }'
    for directive, variables in [
        ("@skip(if: true)", {}),
        ("@include(if: false)", {}),
        ("@skip(if: $flag)", {"flag": True}),
        ("@include(if: $flag)", {"flag": False}),
    ]:
        for skipped in (
            f'order(id: "o") {directive} {{ id }}',
            f'... on Query {directive} {{ order(id: "o") {{ id }} }}',
            f"...Order {directive}",
        ):
            document = f'query ($flag: Boolean) {{ customer(id: "x") {{ id }} {skipped} }}'
            if "...Order" in skipped:
                document += ' fragment Order on Query { order(id: "o") { id } }'
            assert bound(document, variables) == bound(kept), (skipped, variables)
    counted = (
        'query ($flag: Boolean) { customer(id: "x") { id } order(id: "o") @skip(if: $flag) { id } }'
    )
    assert bound(counted, {"flag": False}).total_requests == 2


# ---- bombs --------------------------------------------------------------------------------


@pytest.mark.parametrize("levels", [18, 40])
def test_a_doubling_document_is_bounded_in_linear_time(levels: int) -> None:
    started = time.perf_counter()
    result = bound(doubling(levels))
    elapsed = time.perf_counter() - started
    assert result.fields == 2**levels * 2
    assert result.total_requests == 1  # one customer, however often it is asked for
    assert elapsed < 1.0  # milliseconds in fact; exponential work would never finish


def test_doubling_with_aliases_counts_every_copy() -> None:
    leaf = 'a: customer(id: "x") { name } b: customer(id: "y") { name }'
    result = bound(doubling(30, leaf))
    assert result.fields == 2**30 * 4
    assert result.total_requests == 2


def test_a_doubling_document_under_mutation_multiplies_reads() -> None:
    document = doubling(20, 'order(id: "o") { customer { id } }')
    # Each order's customer is unknown to the bound, but the order read is shared.
    assert bound(document).total_requests == 1 + 2**20


# ---- introspection ------------------------------------------------------------------------


def count_fields(value: Any) -> int:
    if isinstance(value, dict):
        return sum(1 + count_fields(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_fields(v) for v in value)
    return 0


def test_introspection_is_counted_exactly() -> None:
    query = get_introspection_query(descriptions=True)
    answer = graphql_sync(SCHEMA, query)
    assert answer.errors is None
    assert bound(query).as_dict() == {
        "requests": 0,
        "itemsScanned": 0,
        "fields": count_fields(answer.data),
    }


def test_an_introspection_bomb_is_bounded() -> None:
    leaf = "__schema { types { name fields { name type { name ofType { name } } } } }"
    result = bound(doubling(30, leaf))
    assert result.fields > 2**30


# ---- what execution refuses anyway ---------------------------------------------------------


def test_operations_execution_refuses_cost_nothing() -> None:
    two = 'query A { customer(id: "x") { id } } query B { order(id: "y") { id } }'
    assert bound(two) == Bound()  # several operations and no name: refused
    assert bound(two, name="B").total_requests == 1
    bad_variable = "query ($n: Int!) { openOrders(first: $n) { edges { cursor } } }"
    assert bound(bad_variable, {"n": "many"}) == Bound()


# ---- limits and the cache -------------------------------------------------------------------


def test_limits_name_what_is_over() -> None:
    limits = Limits(requests=5, items=100, fields=10)
    assert limits.exceeded(Bound(5, 100, 10)) == {}
    assert limits.exceeded(Bound(6, 101, 11)) == {"requests": 5, "itemsScanned": 100, "fields": 10}
    shared = Bound(fields=1, shared={"a": (4, 50), "b": (2, 60)})
    assert limits.exceeded(shared) == {"requests": 5, "itemsScanned": 100}


def test_the_cache_keeps_the_most_recent_documents() -> None:
    cache = BoundCache(size=2)
    keys = [cache.key(f"{{ q{n} }}", None, {"n": n}) for n in range(3)]
    assert all(key is not None for key in keys)
    for n, key in enumerate(keys):
        assert key is not None
        cache.put(key, Bound(fields=n))
    assert keys[0] is not None and cache.get(keys[0]) is None  # the least recent went
    assert keys[2] is not None and cache.get(keys[2]) == Bound(fields=2)
    assert cache.key("{ q }", None, {"f": object()}) is None  # not JSON: never cached
