"""Rate limits shared through Redis (docs/demand-control.md#rate-limit): a caller's limit
holds across replicas; with Redis down, requests are still served on per-process buckets,
logged, counted and said by /readyz, and the buckets are shared again once it returns."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import pytest
from redis.asyncio import Redis

from gateway.cli.dynamodb_local import free_port
from gateway.replicas import shared_limits
from gateway.replicas.shared_limits import PREFIX, SharedRateLimiter
from gateway.runtime import REDIS_DOWN
from gateway.settings import Settings, SettingsError
from store.cost import Cost
from tests.client import Api, settings_for
from tests.redis_server import RedisServer

# With its stream, as `dynagate create-table` makes a table: `/readyz` then names Redis alone.
pytestmark = pytest.mark.streamed
READ = '{ customer(id: "nobody") { id } }'
# One write unit: over a limit of half a unit a minute, a caller then waits about a minute.
CREATE = 'mutation { createCustomer(input: {id: "c", name: "C", email: "c@x.io"}) { id } }'


async def post(api: Api, query: str) -> tuple[int, dict[str, Any]]:
    """As one anonymous caller: the test client's address is the same on every replica."""
    response = await api.http.post("/graphql", json={"query": query})
    return response.status_code, response.json()


@pytest.fixture
async def replicas(
    endpoint: str, table: str, redis_server: RedisServer
) -> AsyncIterator[tuple[Api, Api]]:
    settings = settings_for(endpoint, table, rate_limit=0.5, redis_url=redis_server.url)
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(Api.serving(settings))
        second = await stack.enter_async_context(Api.serving(settings))
        yield first, second


def test_the_url_is_redis_or_rediss() -> None:
    for url in ("redis://127.0.0.1:6379/0", "rediss://cache.example:6380"):
        assert Settings.from_env({"DYNAGATE_REDIS_URL": url}, serving=False).redis_url == url
    assert Settings.from_env({}, serving=False).redis_url is None
    with pytest.raises(SettingsError, match=r"DYNAGATE_REDIS_URL='http://cache\.example'"):
        Settings.from_env({"DYNAGATE_REDIS_URL": "http://u:secret@cache.example"}, serving=False)


async def test_a_callers_limit_holds_across_replicas(replicas: tuple[Api, Api]) -> None:
    first, second = replicas
    status, created = await post(first, CREATE)
    assert status == 200 and "errors" not in created, created
    # What the write consumed is sent to Redis within a second, without another request.
    await asyncio.sleep(shared_limits.FLUSH_SECONDS + 0.5)
    status, refused = await post(second, READ)
    assert status == 429, refused
    assert refused["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
    status, _ = await post(first, READ)
    assert status == 429


async def test_the_bucket_lives_in_redis_by_redis_time(redis_server: RedisServer) -> None:
    redis = Redis.from_url(redis_server.url)
    try:
        limiter = SharedRateLimiter(60, redis)  # a unit a second
        assert await limiter.check("ada") is None
        limiter.draw("ada", 90.0)
        assert limiter.budget("ada", Cost())["remaining"] == 0
        wait = await limiter.check("ada")  # sends the debt: 30 units below zero
        assert wait is not None and 30 <= wait <= 32
        stored = await redis.hgetall(PREFIX + "ada")
        assert -30.1 < float(stored[b"tokens"]) < -29
        # Forgotten once it would be full again: 90 s on, not before.
        assert 85 <= await redis.ttl(PREFIX + "ada") <= 92
        assert await limiter.check("grace") is None
        assert not await redis.exists(PREFIX + "grace")  # a full bucket is not kept
    finally:
        await redis.aclose()


async def test_redis_down_serves_on_per_process_buckets_then_shares_again(
    endpoint: str, table: str, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shared_limits, "RETRY_SECONDS", 0.3)
    settings = settings_for(endpoint, table, rate_limit=600.0, redis_url=redis_server.url)
    async with Api.serving(settings) as api:
        assert (await post(api, READ))[0] == 200
        redis_server.stop()
        for n in range(3):
            status, body = await post(api, CREATE.replace('"c"', f'"down-{n}"'))
            assert status == 200 and "errors" not in body, body
        ready = (await api.http.get("/readyz")).json()
        assert ready["status"] == "ready" and "Redis is unreachable" in ready["degraded"][0]
        metrics = (await api.http.get("/metrics")).text
        failures = next(
            line
            for line in metrics.splitlines()
            if line.startswith("dynagate_redis_failures_total")
        )
        assert float(failures.split()[-1]) >= 1
        redis_server.start()
        await asyncio.sleep(0.4)
        assert (await post(api, READ))[0] == 200
        assert (await api.http.get("/readyz")).json() == {"status": "ready"}
        # What the writes consumed meanwhile was limited by the process's own bucket, and
        # is not owed to Redis again on its return (a long outage would lock callers out).
        redis = Redis.from_url(redis_server.url)
        try:
            keys = [key async for key in redis.scan_iter(PREFIX + "*")]
            assert keys == []  # a full bucket is not kept
            assert api.http is not None
        finally:
            await redis.aclose()


async def test_a_redis_that_does_not_answer_is_said_at_start_and_by_readyz_before_any_request(
    endpoint: str, table: str, caplog: pytest.LogCaptureFixture
) -> None:
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    settings = settings_for(endpoint, table, rate_limit=600.0, redis_url=nowhere)
    with caplog.at_level(logging.WARNING, logger="dynagate"):
        async with Api.serving(settings) as api:
            ready = (await api.http.get("/readyz")).json()
    assert ready["status"] == "ready"
    assert ready["degraded"] == [REDIS_DOWN]
    assert any(REDIS_DOWN in record.getMessage() for record in caplog.records)
