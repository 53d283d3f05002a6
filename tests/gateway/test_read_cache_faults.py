"""The read cache when writes fail or race reads (docs/cache.md): a write whose outcome is
unknown, or whose resend was refused, is never read from before it; reads racing writes
leave no stale answer behind. The stream is held up, so that only the writes themselves
keep the cache exact."""

from __future__ import annotations

import asyncio

import pytest

from store.cache import reads as cached_reads
from store.cache.memory import ReadCache
from tests.caching import (
    CUSTOMER_C9,
    NEW_CUSTOMER,
    NEW_ORDER,
    ORDERS_OF_C1,
    ask,
    caching,
    customer_with_order,
    hot,
    order_ids,
)
from tests.client import settings_for
from tests.faults import FaultProxy, without_backoff

pytestmark = pytest.mark.streamed


@pytest.mark.parametrize(
    ("operation", "write", "read"),
    [("PutItem", NEW_CUSTOMER, CUSTOMER_C9), ("TransactWriteItems", NEW_ORDER, ORDERS_OF_C1)],
)
async def test_a_write_whose_outcome_is_unknown_is_not_read_from_before_it(
    endpoint: str,
    table: str,
    operation: str,
    write: str,
    read: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_backoff(monkeypatch)
    async with FaultProxy(endpoint) as proxy, caching(settings_for(proxy.url, table)) as gateway:
        await customer_with_order(gateway)
        before = await hot(gateway, read)
        # The stream is held up, so that only the write itself can drop what it changed.
        stream = proxy.inject("GetRecords", "hold", count=1)
        # Every answer to the write is lost (DynamoDB applied it, the gateway never hears
        # so), and so is the read that would tell: the outcome is unknown to the gateway.
        proxy.inject(operation, "lose")
        proxy.inject("GetItem", "error")
        written = await ask(gateway, write)
        proxy.clear()
        assert written.errors[0]["extensions"]["code"] == "UNAVAILABLE", written.errors
        after = await ask(gateway, read)
        stream.release.set()
        assert after.data != before.data, after.cost  # applied all the same, and read so


async def test_a_write_answered_as_done_after_its_resend_was_refused_is_read_so(
    endpoint: str, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first answer is lost, botocore sends the write again and DynamoDB refuses the
    resend (the item is there): the gateway knows by its token that the write was its own."""
    without_backoff(monkeypatch)
    async with FaultProxy(endpoint) as proxy, caching(settings_for(proxy.url, table)) as gateway:
        await customer_with_order(gateway)
        assert (await hot(gateway, CUSTOMER_C9)).data["customer"] is None
        stream = proxy.inject("GetRecords", "hold", count=1)
        proxy.inject("PutItem", "lose", count=1)
        created = await ask(gateway, NEW_CUSTOMER)
        assert not created.errors, created.errors
        after = await ask(gateway, CUSTOMER_C9)
        stream.release.set()
        assert after.data["customer"] == {"name": "Cy"}, after.cost


async def test_concurrent_reads_and_writes_leave_no_stale_answer_behind(
    endpoint: str, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FaultProxy(endpoint) as proxy, caching(settings_for(proxy.url, table)) as gateway:
        await customer_with_order(gateway)
        await hot(gateway, ORDERS_OF_C1)
        # The stream is held up: only the writes themselves keep the cache exact.
        monkeypatch.setattr(cached_reads, "FRESH_SECONDS", 60.0)
        stream = proxy.inject("GetRecords", "hold", count=1)
        answered: list[str] = []
        stale: list[str] = []

        async def place() -> None:
            answer = await ask(gateway, NEW_ORDER)
            answered.append(answer.data["placeOrder"]["id"])

        async def read() -> None:
            for _ in range(5):
                known = set(answered)  # answered before this read was sent
                seen = order_ids(read_answer := await ask(gateway, ORDERS_OF_C1))
                stale.extend(known - seen)
                hits.append(read_answer.cached)

        hits: list[bool] = []
        await asyncio.gather(*(place() for _ in range(10)), *(read() for _ in range(10)))
        # A read moments after a change is kept only for moments (`settle`), which a busy
        # machine can let pass between the two reads below: read once the writes settled.
        await asyncio.sleep(ReadCache.settle)
        final = await ask(gateway, ORDERS_OF_C1)
        again = await ask(gateway, ORDERS_OF_C1)
        stream.release.set()
        assert not stale
        assert set(answered) <= order_ids(final) <= order_ids(again)
        # The cache answered during the race (a busy machine may let it stop answering for
        # moments after the writes: whether the last read is a hit is left to timing).
        assert any(hits)
