"""The read cache (docs/cache.md): a hot read answered from memory until a change could
alter it; this gateway's writes applied before they are answered, another writer's within
the stream's delay; a read in flight while its range changes never kept; nothing answered
while the stream is not followed; the rules above it; the rate limit and the metrics."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from store.cache import reads as cached_reads
from tests.caching import (
    CUSTOMER,
    OPEN_ORDERS,
    ask,
    cache_of,
    caching,
    customer_with_order,
    hot,
    rename_in_table,
)
from tests.client import settings_for
from tests.faults import FaultProxy
from tests.identity import SECURED
from tests.live import Served
from tests.subscribing import until

pytestmark = pytest.mark.streamed


@pytest.fixture
async def gateway(endpoint: str, table: str) -> AsyncIterator[Served]:
    async with caching(settings_for(endpoint, table)) as running:
        yield running


async def test_a_hot_read_is_answered_from_memory_until_a_write_through_the_gateway_changes_it(
    gateway: Served,
) -> None:
    order = await customer_with_order(gateway)
    first = await ask(gateway, CUSTOMER, id="c1")
    assert first.cost["requests"] >= 2 and first.cost["cachedRequests"] == 0
    again = await hot(gateway, CUSTOMER, id="c1")
    assert again.data == first.data
    assert again.cost["cachedRequests"] == first.cost["requests"]  # the whole answer, kept
    # What eventually consistent reads would cost: at most what the first read did (made
    # consistent, moments after the writes).
    assert 0 < again.cost["savedReadCapacityUnits"] <= first.cost["readCapacityUnits"]
    listed = [await ask(gateway, OPEN_ORDERS), await hot(gateway, OPEN_ORDERS)]
    assert listed[1].data == listed[0].data
    assert [e["node"]["id"] for e in listed[1].data["openOrders"]["edges"]] == [order]

    # The order leaves the customer's PLACED orders and the sparse list of open orders: the
    # very next reads, right after the write's answer, no longer hold it.
    moved = await ask(
        gateway, f'mutation {{ setOrderStatus(id: "{order}", status: SHIPPED) {{ status }} }}'
    )
    assert not moved.errors, moved.errors
    after = await ask(gateway, CUSTOMER, id="c1")
    assert after.data["customer"]["orders"]["edges"] == [] and after.cost["requests"] > 0
    assert (await ask(gateway, OPEN_ORDERS)).data["openOrders"]["edges"] == []
    renamed = await ask(
        gateway,
        'mutation { createCustomer(input: {id: "c2", name: "Bo", email: "b@x.io"}) { id } }',
    )
    assert not renamed.errors
    assert (await ask(gateway, CUSTOMER, id="c2")).data["customer"]["name"] == "Bo"


async def test_a_writes_reads_never_use_the_cache(gateway: Served) -> None:
    order = await customer_with_order(gateway)
    await hot(gateway, CUSTOMER, id="c1")
    moved = await ask(
        gateway,
        f'mutation {{ setOrderStatus(id: "{order}", status: SHIPPED) {{ customer {{ name }} }} }}',
    )
    assert moved.data["setOrderStatus"]["customer"]["name"] == "Ada"
    assert moved.cost["cachedRequests"] == 0, moved.cost


OPEN_ISSUES = (
    '{ repo(owner: "ada", name: "gw") { issues(state: OPEN, first: 4)'
    " { edges { node { number } } pageInfo { hasNextPage endCursor } } } }"
)


async def test_a_filtered_list_from_the_cache_is_the_one_dynamodb_gave(gateway: Served) -> None:
    """A filtered list reads on until its page is full: pages answered from memory count
    the items DynamoDB evaluated, as its own answers did, so the read goes on alike."""
    repo = 'mutation { createRepo(input: {owner: "ada", name: "gw"}) { name } }'
    assert not (await ask(gateway, repo)).errors
    for n in range(24):
        opened = await ask(
            gateway,
            'mutation { openIssue(input: {owner: "ada", name: "gw", title: "t"}) { number } }',
        )
        if n % 4:
            number = opened.data["openIssue"]["number"]
            await ask(
                gateway,
                'mutation { closeIssue(owner: "ada", name: "gw",'
                f" number: {number}) {{ state }} }}",
            )
    fresh = await ask(gateway, OPEN_ISSUES)
    assert len(fresh.data["repo"]["issues"]["edges"]) == 4 and fresh.cost["requests"] >= 2
    again = await hot(gateway, OPEN_ISSUES)
    assert again.data == fresh.data
    assert again.cost["cachedRequests"] == fresh.cost["requests"]  # the same calls, from memory


async def test_another_writer_is_seen_within_the_streams_delay(
    gateway: Served, client: Any, table: str
) -> None:
    await customer_with_order(gateway)
    await hot(gateway, CUSTOMER, id="c1")
    await rename_in_table(client, table, "Grace")
    written = time.monotonic()
    seen: list[str] = []

    async def renamed() -> bool:
        seen.append((await ask(gateway, CUSTOMER, id="c1")).data["customer"]["name"])
        return seen[-1] == "Grace"

    while not await renamed():
        assert time.monotonic() - written < 10, seen
        await asyncio.sleep(0.02)
    # Once seen, never stale again.
    for _ in range(5):
        assert await renamed()
    await client.delete_item(
        TableName=table, Key={"PK": {"S": "CUSTOMER#c1"}, "SK": {"S": "CUSTOMER#c1"}}
    )
    written = time.monotonic()
    while (await ask(gateway, CUSTOMER, id="c1")).data["customer"] is not None:
        assert time.monotonic() - written < 10
        await asyncio.sleep(0.02)


async def test_a_read_in_flight_while_its_range_changes_is_never_kept(
    endpoint: str, table: str, client: Any
) -> None:
    async with FaultProxy(endpoint) as proxy, caching(settings_for(proxy.url, table)) as gateway:
        await customer_with_order(gateway)
        held = proxy.inject("BatchGetItem", "hold", count=1)
        reading = asyncio.create_task(ask(gateway, CUSTOMER, id="c1"))
        await asyncio.wait_for(held.answered.wait(), 10)  # DynamoDB answered: "Ada"
        cache = cache_of(gateway)
        changes = cache.cache.stats.invalidations + cache.cache._last
        await rename_in_table(client, table, "Grace")
        # The change arrives from the stream while the answer from before it is in flight.
        await until(
            lambda: cache.cache.stats.invalidations + cache.cache._last > changes, within=10
        )
        held.release.set()
        assert (await reading).data["customer"]["name"] == "Ada"
        assert cache.cache.stats.raced >= 1
        fresh = await ask(gateway, CUSTOMER, id="c1")
        assert fresh.data["customer"]["name"] == "Grace" and not fresh.cached


async def test_while_the_stream_is_not_followed_the_cache_answers_nothing(
    gateway: Served, client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cached_reads, "FRESH_SECONDS", 0.5)
    await customer_with_order(gateway)
    await hot(gateway, CUSTOMER, id="c1")
    runtime = gateway.runtime
    await runtime.stop_following()  # the reader stops: changes are no longer heard
    await asyncio.sleep(0.6)
    await rename_in_table(client, table, "Grace")
    unfollowed = await ask(gateway, CUSTOMER, id="c1")
    assert unfollowed.data["customer"]["name"] == "Grace" and unfollowed.cost["cachedRequests"] == 0
    assert not (await ask(gateway, CUSTOMER, id="c1")).cached  # nor kept meanwhile
    async with httpx.AsyncClient() as http:
        ready = await http.get(f"{gateway.url}/readyz")
    assert "read cache answers nothing" in ready.text
    await runtime.follow()  # reading again: the cache answers again
    await until(cache_of(gateway).followed, within=10)
    await hot(gateway, CUSTOMER, id="c1")


async def test_the_cache_sits_under_the_rules(endpoint: str, table: str) -> None:
    async with caching(settings_for(endpoint, table, **SECURED)) as gateway:
        created = await ask(
            gateway,
            'mutation { createCustomer(input: {id: "ada", name: "Ada", email: "a@x.io"}) { id } }',
            "ada",
        )
        assert not created.errors, created.errors
        await hot(gateway, CUSTOMER, "ada", id="ada")
        stranger = await ask(gateway, CUSTOMER, "bob", id="ada")
        assert stranger.errors and stranger.errors[0]["extensions"]["code"] == "FORBIDDEN"
        assert not stranger.data or stranger.data.get("customer") is None
        anonymous = await ask(gateway, CUSTOMER, id="ada")
        assert anonymous.errors and anonymous.errors[0]["extensions"]["code"] == "UNAUTHENTICATED"


async def test_cached_reads_are_not_charged_to_the_rate_limit_and_are_counted_in_metrics(
    endpoint: str, table: str
) -> None:
    async with caching(settings_for(endpoint, table, rate_limit=600.0)) as gateway:
        await customer_with_order(gateway)
        before = await hot(gateway, CUSTOMER, id="c1")
        after = await ask(gateway, CUSTOMER, id="c1")
        assert after.cached
        spent = before.cost["budget"]["remaining"] - after.cost["budget"]["remaining"]
        assert spent <= 0.01, (before.cost, after.cost)  # refilled a little, never drawn
        async with httpx.AsyncClient() as http:
            metrics = (await http.get(f"{gateway.url}/metrics")).text
    values = {
        line.split(" ")[0]: float(line.split(" ")[1])
        for line in metrics.splitlines()
        if line.startswith("dynagate_cache_")
    }
    assert values['dynagate_cache_reads_total{outcome="hit"}'] >= 2
    assert values['dynagate_cache_reads_total{outcome="miss"}'] >= 1
    assert values["dynagate_cache_bytes"] > 0
    assert "dynagate_cache_invalidations_total" in values
    assert 0 <= values["dynagate_cache_unapplied_change_age_seconds"] < 5


async def test_a_write_answered_by_one_replica_is_never_read_from_before_it_by_another(
    endpoint: str, table: str, redis_server: Any
) -> None:
    settings = settings_for(endpoint, table, redis_url=redis_server.url)
    async with caching(settings) as writer, caching(settings) as reader:
        await until(cache_of(writer).followed, within=20)
        await customer_with_order(writer)
        await hot(reader, CUSTOMER, id="c1")
        # The reader hears Redis late (as under load): its cache must still not answer
        # from before a write the other replica has answered.
        fanout = reader.runtime.fanout
        assert fanout is not None
        heard = fanout.redis.xread

        async def late(*args: Any, **kwargs: Any) -> Any:
            await asyncio.sleep(0.3)
            return await heard(*args, **kwargs)

        fanout.redis.xread = late  # type: ignore[method-assign]
        for n in range(3):
            order = await ask(
                writer,
                'mutation { placeOrder(input: {customerId: "c1",'
                ' items: [{sku: "t", quantity: 1, unitPriceCents: 5}]}) { id } }',
            )
            read = await ask(reader, CUSTOMER, id="c1")
            ids = [e["node"]["id"] for e in read.data["customer"]["orders"]["edges"]]
            assert order.data["placeOrder"]["id"] in ids, (n, read.cost)
        # Redis gone: nothing the replicas write could be heard, so nothing is answered.
        redis_server.stop()
        alone = await ask(reader, CUSTOMER, id="c1")
        assert alone.cost["cachedRequests"] == 0 and alone.cost["requests"] > 0
