"""The rate limit: each caller draws the capacity its requests consume from its own bucket.

The gateway reaches DynamoDB Local through a proxy that counts the calls, so a refused
request is seen to make none. Callers are told apart by their address.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest
from starlette.requests import HTTPConnection

from gateway.demand.ratelimit import RateLimiter, address
from gateway.http.app import create_app
from gateway.settings import Settings
from store.cost import Cost
from tests.client import COST_KEYS, Api, Result
from tests.faults import FaultProxy

# One new customer: 1 write capacity unit. Looking one up: 0.5 read capacity units.
CREATE = """mutation ($id: ID!) {
  createCustomer(input: {id: $id, name: "Alice", email: "alice@x.io"}) { id } }"""
LOOKUP = "query ($id: ID!) { customer(id: $id) { id } }"
Callers = Callable[[str], Api]


@asynccontextmanager
async def gateway(proxy: FaultProxy, table: str, rate_limit: float) -> AsyncIterator[Callers]:
    """One gateway process; the function it yields gives a client at a given address."""
    settings = Settings(
        table=table, endpoint=proxy.url, cursor_secret=b"test-secret", rate_limit=rate_limit
    )
    app = create_app(settings)
    clients: list[httpx.AsyncClient] = []

    def caller(address: str) -> Api:
        transport = httpx.ASGITransport(app=app, client=(address, 40_000))
        clients.append(httpx.AsyncClient(transport=transport, base_url="http://test"))
        return Api(clients[-1], settings)

    async with app.router.lifespan_context(app):
        try:
            yield caller
        finally:
            await asyncio.gather(*(c.aclose() for c in clients))


def units(result: Result) -> float:
    cost = result.cost
    return float(cost["readCapacityUnits"] + cost["writeCapacityUnits"])


async def refused(api: Api, document: str, **variables: str) -> httpx.Response:
    response = await api.http.post("/graphql", json={"query": document, "variables": variables})
    assert response.status_code == 429, response.text
    return response


async def test_the_budget_reports_the_callers_bucket(proxy: FaultProxy, table: str) -> None:
    async with gateway(proxy, table, rate_limit=60) as callers:
        alice = callers("10.0.0.1")
        first = await alice(CREATE, id="alice")
        first.ok()
        spent = units(first)
        assert spent > 0
        # Refilled at 60 a minute: one unit a second.
        assert first.cost["budget"] == {
            "limit": 60.0,
            "remaining": pytest.approx(60 - spent),
            "resetSeconds": pytest.approx(spent),
        }
        assert set(first.cost) == {*COST_KEYS, "estimated", "budget"}

        second = await alice(LOOKUP, id="alice")
        budget = second.cost["budget"]
        assert all(isinstance(value, float) for value in budget.values())
        # Both requests drawn, but for what flowed back in between.
        assert 60 - spent - units(second) <= budget["remaining"] <= 60 - units(second)
        assert budget["resetSeconds"] == pytest.approx(60 - budget["remaining"], abs=0.01)


async def test_an_empty_bucket_is_429_with_retry_after_and_no_dynamodb_call(
    proxy: FaultProxy, table: str
) -> None:
    # A tenth of a unit a minute: the first write leaves the bucket 0.9 short, for 9 minutes.
    async with gateway(proxy, table, rate_limit=0.1) as callers:
        alice = callers("10.0.0.1")
        (await alice(CREATE, id="alice")).ok()
        calls = proxy.calls.total()

        response = await refused(alice, LOOKUP, id="alice")
        retry_after = int(response.headers["Retry-After"])
        assert 500 <= retry_after <= 541
        body = response.json()
        assert [e["extensions"]["code"] for e in body["errors"]] == ["RATE_LIMITED"]
        assert "0.1 capacity units a minute" in body["errors"][0]["message"]
        cost = body["extensions"]["cost"]
        assert cost["requests"] == 0
        assert cost["budget"]["limit"] == 0.1
        assert cost["budget"]["remaining"] == 0.0
        assert cost["budget"]["resetSeconds"] >= retry_after - 1

        await refused(alice, CREATE, id="bob")
        await refused(alice, "{ __schema { queryType { name } } }")
        assert proxy.calls.total() == calls


async def test_a_refused_mutation_writes_nothing(proxy: FaultProxy, table: str) -> None:
    async with gateway(proxy, table, rate_limit=0.1) as callers:
        alice, carol = callers("10.0.0.1"), callers("10.0.0.3")
        (await alice(CREATE, id="alice")).ok()
        await refused(alice, CREATE, id="bob")
        assert (await carol(LOOKUP, id="bob")).ok() == {"customer": None}


async def test_other_callers_are_not_affected(proxy: FaultProxy, table: str) -> None:
    async with gateway(proxy, table, rate_limit=0.1) as callers:
        alice, bob = callers("10.0.0.1"), callers("10.0.0.2")
        (await alice(CREATE, id="alice")).ok()
        await refused(alice, LOOKUP, id="alice")

        served = await bob(LOOKUP, id="alice")
        assert served.ok() == {"customer": {"id": "alice"}}
        assert served.cost["budget"]["limit"] == 0.1
        await refused(alice, LOOKUP, id="alice")


async def test_each_process_keeps_its_own_buckets(proxy: FaultProxy, table: str) -> None:
    async with (
        gateway(proxy, table, rate_limit=0.1) as first,
        gateway(proxy, table, rate_limit=0.1) as second,
    ):
        (await first("10.0.0.1")(CREATE, id="alice")).ok()
        await refused(first("10.0.0.1"), LOOKUP, id="alice")
        served = await second("10.0.0.1")(LOOKUP, id="alice")
        assert served.ok() == {"customer": {"id": "alice"}}


async def test_the_bucket_refills_continuously(proxy: FaultProxy, table: str) -> None:
    # 0.98 units a minute: a write of 1 unit leaves the bucket 0.02 short, about 1.2 s.
    async with gateway(proxy, table, rate_limit=0.98) as callers:
        alice = callers("10.0.0.1")
        (await alice(CREATE, id="alice")).ok()
        response = await refused(alice, LOOKUP, id="alice")
        retry_after = int(response.headers["Retry-After"])
        assert 1 <= retry_after <= 2
        await asyncio.sleep(retry_after)
        assert (await alice(LOOKUP, id="alice")).ok() == {"customer": {"id": "alice"}}


# ---- the buckets themselves, on a clock of the test's own


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def spent(units: float) -> Cost:
    return Cost(read_capacity_units=units / 2, write_capacity_units=units / 2)


def test_a_new_caller_has_a_full_bucket() -> None:
    limiter = RateLimiter(60, clock=Clock())
    assert limiter.retry_after("a") is None
    assert limiter.budget("a", Cost()) == {"limit": 60.0, "remaining": 60.0, "resetSeconds": 0.0}
    assert limiter.budget("a", spent(6)) == {"limit": 60.0, "remaining": 54.0, "resetSeconds": 6.0}


def test_a_request_may_overdraw_and_the_debt_is_waited_out() -> None:
    clock = Clock()
    limiter = RateLimiter(60, clock=clock)
    limiter.draw("a", 90)  # 30 units short, refilled at one a second
    assert limiter.retry_after("a") == 31
    assert limiter.budget("a", Cost()) == {"limit": 60.0, "remaining": 0.0, "resetSeconds": 90.0}
    clock.now = 29.5
    assert limiter.retry_after("a") == 1
    clock.now = 30.5
    assert limiter.retry_after("a") is None
    assert limiter.budget("a", Cost())["remaining"] == pytest.approx(0.5)


def test_a_bucket_at_exactly_zero_is_empty() -> None:
    clock = Clock()
    limiter = RateLimiter(60, clock=clock)
    limiter.draw("a", 60)
    assert limiter.retry_after("a") == 1


def test_refill_stops_at_the_limit() -> None:
    clock = Clock()
    limiter = RateLimiter(60, clock=clock)
    limiter.draw("a", 30)
    clock.now = 3_600
    assert limiter.budget("a", Cost())["remaining"] == 60.0


def test_idle_callers_are_forgotten() -> None:
    clock = Clock()
    limiter = RateLimiter(60, clock=clock)
    limiter.draw("a", 10)
    limiter.draw("b", 0)  # a full bucket is not kept
    assert len(limiter) == 1
    clock.now = 10  # `a` is full again
    limiter.draw("c", 5)
    assert len(limiter) == 1
    assert limiter.budget("c", Cost())["remaining"] == 55.0


def test_memory_is_bounded_whatever_the_callers() -> None:
    clock = Clock()
    limiter = RateLimiter(60, clock=clock, max_callers=100)
    for n in range(1_000):
        limiter.draw(f"10.0.{n // 256}.{n % 256}", 60)
    assert len(limiter) == 100
    # The most recent callers are the ones kept.
    assert limiter.retry_after("10.0.3.231") is not None
    assert limiter.retry_after("10.0.0.0") is None


def test_a_caller_has_at_most_eight_requests_running() -> None:
    limiter = RateLimiter(600.0, clock=lambda: 0.0)
    assert [limiter.admit("a") for _ in range(8)] == [None] * 8
    assert limiter.admit("a") == 1  # the ninth waits, though the bucket is full
    assert limiter.admit("b") is None  # other callers are not affected
    limiter.draw("a", 0.5)
    assert limiter.admit("a") is None  # one finished: one more may start


@pytest.mark.parametrize(
    ("host", "bucket"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::9", "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.7", "::ffff:203.0.113.7"),
        ("testclient", "testclient"),
    ],
)
def test_ipv6_callers_share_a_bucket_per_64_network(host: str, bucket: str) -> None:
    scope = {"type": "http", "client": (host, 1234), "headers": []}
    assert address(HTTPConnection(scope)) == bucket
