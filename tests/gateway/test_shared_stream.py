"""The table's stream shared by replicas through Redis (docs/subscriptions.md#several-replicas):
one reader per shard, holding a lease in the table (taken over when its holder dies, from
its checkpoint), and every change heard by every replica's subscribers exactly once, Redis
outage or not."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import httpx
import pytest

from gateway.cli.dynamodb_local import free_port
from store.client import Store
from store.stream.leases import ShardLeases
from tests.client import settings_for
from tests.gateway.test_cli import DYNAGATE
from tests.live import LiveClient, Served, connected, replicas_served
from tests.redis_server import RedisServer
from tests.subscribing import ISSUES, until
from tests.table import scan_all

pytestmark = pytest.mark.streamed
OPEN_ISSUE = (
    'mutation { openIssue(input: {owner: "Ada", name: "gateway", title: "%s"}) { number } }'
)
CREATE_REPO = 'mutation { createRepo(input: {owner: "Ada", name: "gateway"}) { name } }'


async def test_a_lease_is_held_by_one_and_taken_only_as_seen(client: Any, table: str) -> None:
    """No clock is compared across processes: a lease is taken where nobody took it, where
    it was given back, or on the condition that its counter is still the one seen."""
    ada = ShardLeases(Store(client, table), "ada")
    bob = ShardLeases(Store(client, table), "bob")
    stream = "arn:aws:dynamodb:ddblocal:000:table/t/stream/2026-01-01T00:00:00.000"
    assert await bob.look(stream, "shard-1") is None
    first = await ada.take(stream, "shard-1", None, "LATEST")
    assert first is not None and first.first and first.checkpoint is None
    assert await bob.take(stream, "shard-1", None, "LATEST") is None  # it is there now
    seen = await bob.look(stream, "shard-1")
    assert seen is not None and seen.owner == "ada"
    assert await ada.renew(first)  # the holder is alive: what bob saw is past
    assert await bob.take(stream, "shard-1", seen, "LATEST") is None
    assert await ada.checkpoint(first, "100", ended=False)
    still = await bob.look(stream, "shard-1")  # ada died here: nothing moves any more
    taken = await bob.take(stream, "shard-1", still, "TRIM_HORIZON")
    assert taken is not None and not taken.first and taken.checkpoint == "100"
    assert (taken.since, taken.start) == (first.since, "LATEST")  # the first holder's
    assert not await ada.renew(first) and not await ada.checkpoint(first, "101", ended=False)
    await bob.release(taken)  # given back: no owner, taken at once
    free = await ada.look(stream, "shard-1")
    assert free is not None and free.owner is None
    again = await ada.take(stream, "shard-1", free, "LATEST")
    assert again is not None and again.checkpoint == "100"
    (item,) = [i for i in await scan_all(client, table) if i["SK"] == "SHARD#shard-1"]
    assert int(item["expiresAt"]) > time.time() + 23 * 3600  # deleted once unused


@pytest.fixture
async def replicas(
    endpoint: str, table: str, redis_server: RedisServer
) -> AsyncIterator[list[Served]]:
    settings = settings_for(endpoint, table, redis_url=redis_server.url)
    async with replicas_served(settings) as running:
        async with httpx.AsyncClient() as http:
            await http.post(f"{running[0].url}/graphql", json={"query": CREATE_REPO})
        yield running


@asynccontextmanager
async def subscribed(
    replicas: list[Served],
) -> AsyncIterator[tuple[list[LiveClient], list[str]]]:
    """A socket to each replica, subscribed to the repository's issues, in place."""
    async with AsyncExitStack() as stack:
        sockets = [await stack.enter_async_context(connected(r)) for r in replicas]
        idents = [await s.subscribe(ISSUES) for s in sockets]
        for replica in replicas:
            await until(lambda r=replica: r.runtime.feed.active == 1)
        yield sockets, idents


async def events(client: LiveClient, ident: str, within: float) -> list[dict[str, Any]]:
    """Every event of `ident` until none comes for `within` seconds."""
    heard = []
    while True:
        try:
            message = await client.next_for(ident, within=within)
        except TimeoutError:
            return heard
        heard.append(message["payload"]["data"]["issueChanges"])


async def write(replica: Served | str, title: str) -> int:
    """Opens an issue through `replica` (or the gateway at a URL); its number."""
    url = replica if isinstance(replica, str) else replica.url
    async with httpx.AsyncClient() as http:
        body = (await http.post(f"{url}/graphql", json={"query": OPEN_ISSUE % title})).json()
    number: int = body["data"]["openIssue"]["number"]
    return number


async def leases(client: Any, table: str) -> list[dict[str, Any]]:
    items = await scan_all(client, table)
    return [i for i in items if str(i["PK"]).startswith("STREAMLEASE#")]


async def test_every_replica_hears_each_change_once(
    replicas: list[Served], client: Any, table: str
) -> None:
    async with subscribed(replicas) as (sockets, idents):
        numbers = [await write(replicas[n % 2], f"t{n}") for n in range(4)]
        for sock, ident in zip(sockets, idents, strict=True):
            heard = await events(sock, ident, within=2.5)
            assert [e["number"] for e in heard] == numbers, heard
    # One reader for the shard: the lease names one process.
    held = await leases(client, table)
    assert held and len({lease["owner"] for lease in held}) == 1
    assert all(lease.get("checkpoint") for lease in held)
    # Idle, the holder only renews (every 2 s) and the other only looks at the lease: the
    # lease's own changes, read back from the stream, are not checkpointed, which would
    # write on and on.
    before = [await updates(r) for r in replicas]
    await asyncio.sleep(6.5)
    made = [await updates(r) - b for r, b in zip(replicas, before, strict=True)]
    assert sorted(made)[0] == 0 and sorted(made)[1] <= 4, made
    # Nor is an idle stream a failing Redis: reading blocks less than the socket's timeout.
    async with httpx.AsyncClient() as http:
        for replica in replicas:
            assert (await http.get(f"{replica.url}/readyz")).json() == {"status": "ready"}


async def updates(replica: Served) -> float:
    """UpdateItem calls `replica` made so far (its /metrics)."""
    async with httpx.AsyncClient() as http:
        text = (await http.get(f"{replica.url}/metrics")).text
    return sum(
        float(line.split()[-1])
        for line in text.splitlines()
        if line.startswith('dynagate_dynamodb_requests_total{operation="UpdateItem"')
    )


async def test_a_dead_holders_shard_is_taken_over_within_15_s(
    replicas: list[Served], client: Any, table: str
) -> None:
    async with subscribed(replicas) as (sockets, idents):
        first = await write(replicas[0], "before")
        await until(lambda: any(_holds_a_lease(r) for r in replicas))
        holder = next(r for r in replicas if _holds_a_lease(r))
        survivor = next(r for r in replicas if r is not holder)
        index = replicas.index(survivor)
        assert [e["number"] for e in await events(sockets[index], idents[index], 3)] == [first]
        # The holder dies: its reading stops, its lease is not given back.
        died = time.monotonic()
        for task in (holder.runtime.reading, holder.runtime.hearing):
            assert task is not None
            task.cancel()
        second = await write(survivor, "after")
        message = await sockets[index].next_for(idents[index], within=20)
        assert message["payload"]["data"]["issueChanges"]["number"] == second
        assert time.monotonic() - died < 15
        assert await events(sockets[index], idents[index], 3) == []  # once, not twice
    owners = {lease["owner"] for lease in await leases(client, table)}
    assert survivor.runtime.reader is not None and survivor.runtime.reader.leased is not None
    assert owners == {survivor.runtime.reader.leased.leases.owner}


def _holds_a_lease(replica: Served) -> bool:
    reader = replica.runtime.reader
    return reader is not None and reader.leased is not None and bool(reader.leased.held)


async def test_redis_stopped_and_restarted_loses_no_change(
    replicas: list[Served], redis_server: RedisServer
) -> None:
    async with subscribed(replicas) as (sockets, idents):
        before = await write(replicas[0], "before")
        redis_server.stop()
        during = await write(replicas[1], "during")
        async with httpx.AsyncClient() as http:
            for replica in replicas:  # each says what waits for Redis
                await until(lambda r=replica: r.runtime.fanout.degraded)  # type: ignore[union-attr]
                ready = (await http.get(f"{replica.url}/readyz")).json()
                assert any("hear of changes once it returns" in d for d in ready["degraded"])
        redis_server.start()
        after = await write(replicas[0], "after")
        for sock, ident in zip(sockets, idents, strict=True):
            heard = await events(sock, ident, within=5)
            assert [e["number"] for e in heard] == [before, during, after], heard


def _serve(endpoint: str, table: str, redis_url: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
    env.update(
        DYNAGATE_DYNAMODB_ENDPOINT=endpoint,
        DYNAGATE_TABLE=table,
        DYNAGATE_REDIS_URL=redis_url,
        DYNAGATE_CURSOR_SECRET="shared-by-both-processes",
    )
    process = subprocess.Popen(
        [DYNAGATE, "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return process, f"http://127.0.0.1:{port}"


async def _up(url: str) -> None:
    async with httpx.AsyncClient() as http:
        for _ in range(300):
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get(f"{url}/healthz")).status_code == 200:
                    return
            await asyncio.sleep(0.1)
    raise AssertionError(f"{url} did not start")


async def test_killing_the_holders_process_hands_the_stream_over(
    endpoint: str, table: str, client: Any, redis_server: RedisServer
) -> None:
    """Two `dynagate serve` processes; the one holding the shard's lease is killed (no
    chance to give it back); the other reads on from its checkpoint within 15 s."""
    processes = [_serve(endpoint, table, redis_server.url) for _ in range(2)]
    try:
        for _, url in processes:
            await _up(url)
        async with httpx.AsyncClient() as http:
            await http.post(f"{processes[0][1]}/graphql", json={"query": CREATE_REPO})
        ws = [url.replace("http://", "ws://") + "/graphql" for _, url in processes]
        async with connected(ws[0]) as first, connected(ws[1]) as second:
            idents = [await first.subscribe(ISSUES), await second.subscribe(ISSUES)]
            await asyncio.sleep(1.0)  # both subscriptions in place
            before = await write(processes[0][1], "before")
            for sock, ident in ((first, idents[0]), (second, idents[1])):
                assert [e["number"] for e in await events(sock, ident, within=2.5)] == [before]
            (lease,) = await leases(client, table)
            pid = int(str(lease["owner"]).split(":")[1])
            holder = next(n for n, (p, _) in enumerate(processes) if p.pid == pid)
            survivor = 1 - holder
            processes[holder][0].kill()
            died = time.monotonic()
            after = await write(processes[survivor][1], "after")
            sock = (first, second)[survivor]
            message = await sock.next_for(idents[survivor], within=20)
            assert message["payload"]["data"]["issueChanges"]["number"] == after
            assert time.monotonic() - died < 15
            assert await events(sock, idents[survivor], within=2.5) == []
    finally:
        for process, _ in processes:
            process.kill()
            process.wait(timeout=10)
