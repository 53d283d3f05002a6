"""The resolvers' context: immutable, an operation of its own made by replacing its reads,
a subscription's next event answered afresh within the same request budget. (Each test runs
in an event loop: the loaders are made in one.)"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any, cast

import pytest

from data.callers import Caller
from gateway.operation_context import OperationContext
from gateway.request_scope import RequestScope
from resolvers.context import Context, Reads
from store.client import Store
from store.cost import Cost
from store.cursors import CursorCodec


def _context(charged: list[int] | None = None) -> Context:
    store = Store(cast(Any, object()), "t")  # no call is made: no client is needed
    reads = Reads.on(store, CursorCodec(b"k"))

    def charge(cost: Cost) -> None:
        assert charged is not None
        charged.append(cost.requests)

    return Context(reads, Caller("ada"), charge=None if charged is None else charge)


async def test_the_context_is_immutable() -> None:
    context = _context()
    with pytest.raises(FrozenInstanceError):
        context.caller = Caller("eve")  # type: ignore[misc]


async def test_an_operation_of_its_own_has_fresh_reads_and_the_same_caller() -> None:
    context = _context()
    context.store.cost.requests = 3
    own = context.for_operation()
    assert own.caller is context.caller
    assert own.store is not context.store and own.cost.requests == 0
    assert own.store.table == context.store.table and own.pages.cursors is context.pages.cursors
    assert own.items is not context.items


async def test_a_subscription_event_is_charged_and_starts_afresh_within_its_budget() -> None:
    charged: list[int] = []
    context = _context(charged)
    context.store.budget = 7
    context.store.cost.requests = 2
    before = context.store
    context.next_event()
    assert charged == [2]
    assert context.store is not before and context.cost.requests == 0
    assert context.store.budget == 7
    context.next_event()  # nothing read: nothing charged
    assert charged == [2]


async def test_each_operation_of_a_request_learns_its_own_bound_and_shares_the_request() -> None:
    base = _context()
    request = RequestScope("r-1", who="ada")
    context = OperationContext(base.reads, base.caller, request=request)
    context.operation.estimated = {"requests": 4}
    bounding = context.for_operation(bounding_only=True)
    assert bounding.request is request and bounding.operation.bounding_only
    assert bounding.operation.estimated is None
    socket_operation = context.for_operation(request=RequestScope("r-2"))
    assert socket_operation.request.request_id == "r-2"
    assert not socket_operation.operation.bounding_only
