"""More than one process: throughput of 1 and 2 workers, what sharing the rate limit
through Redis costs a request, and how soon a change reaches subscribers on another replica.

Starts DynamoDB Local and a Redis server (`make redis` installs one), creates the table
(its stream on) and a customer with 20 orders, then, side by side in one run:

- throughput: `dynagate serve --workers 1` and `--workers 2`, in turns, loaded by wrk with
  one customer's orders page; the median req/s of each and their ratio;
- the shared rate limit: one process with a rate limit (high enough never to refuse) kept
  in the process, then in Redis, in turns, over 8 connections (one caller's most requests
  at once): median req/s and p50 of each, the cost per request (`1/req/s` apart), and the
  round trip of the script alone (median of 1,000);
- delivery across replicas: two `dynagate serve` processes sharing Redis, a subscriber on
  each, issues opened through the first one after another; the delay from each write's
  answer to its event on each replica, p50 and p99, beside one process without Redis.

Writes scaleout.json and scaleout.md. Exits 0 whatever the figures (it is a report).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench import report, wrk
from bench.arguments import Option, arguments, positive_int, turns
from bench.harness import Benchmark, Context, Progress, Table, dynamodb_local, graphql, http_client
from bench.live import NAME, OPEN, OWNER, Subscriber
from bench.servers import healthy, wait_until_answering
from gateway.cli.dynamodb_local import free_port

TABLE = "bench-scaleout"
DYNAGATE = str(Path(sys.executable).with_name("dynagate"))
ORDERS = '{ customer(id: "bench") { orders(first: 20) { edges { node { id status } } } } }'
LINE = '{sku: "A", quantity: 1, unitPriceCents: 5}'


@contextmanager
def redis_server(say: Progress) -> Iterator[str]:
    binary = os.environ.get("REDIS_SERVER") or shutil.which("redis-server")
    binary = binary or shutil.which("valkey-server")
    if binary is None:
        raise RuntimeError("no Redis server: `make redis` installs one")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        say(f"Redis at 127.0.0.1:{port}")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.kill()
        process.wait()


@contextmanager
def dynagate(env: Mapping[str, str], *args: str) -> Iterator[str]:
    """`dynagate serve` with `env` and `args`, until it answers; its URL."""
    port = free_port()
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("DYNAGATE_")}
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [DYNAGATE, "serve", "--port", str(port), *args],
            env={**inherited, **env},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_answering("dynagate serve", url, process, log, healthy, 60.0)
            yield url
        finally:
            os.killpg(process.pid, 15)
            process.wait(timeout=30)


def load(name: str, url: str, seconds: float, connections: int) -> wrk.Round:
    body = json.dumps({"query": ORDERS}).encode()
    wrk.run(name, f"{url}/graphql", body, connections, 1.0)  # warm-up
    return wrk.run(name, f"{url}/graphql", body, connections, seconds)


def throughput(env: dict[str, str], args: argparse.Namespace, say: Progress) -> dict[str, Any]:
    rounds: dict[str, list[wrk.Round]] = {"1 worker": [], "2 workers": []}
    for turn in range(args.rounds):
        for workers, name in ((1, "1 worker"), (2, "2 workers")):
            with dynagate(env, "--workers", str(workers)) as url:
                done = load(name, url, args.seconds, args.connections)
            rounds[name].append(done)
            say(f"round {turn + 1}: {name}: {done.rps:,.0f} req/s, p50 {done.p50_ms:.1f} ms")
    medians = {name: _median(done) for name, done in rounds.items()}
    ratio = medians["2 workers"]["rps"] / medians["1 worker"]["rps"]
    return {"medians": medians, "ratio": ratio}


def rate_limit_cost(
    env: dict[str, str], redis_url: str, args: argparse.Namespace, say: Progress
) -> dict[str, Any]:
    limited = {**env, "DYNAGATE_RATE_LIMIT": "100000000"}
    modes = {"in the process": limited, "in Redis": {**limited, "DYNAGATE_REDIS_URL": redis_url}}
    rounds: dict[str, list[wrk.Round]] = {name: [] for name in modes}
    # One caller (wrk's address) has at most 8 requests running: more would be refused.
    connections = min(args.connections, 8)
    for turn in range(args.rounds):
        for name, settings in modes.items():
            with dynagate(settings) as url:
                done = load(name, url, args.seconds, connections)
            rounds[name].append(done)
            say(f"round {turn + 1}: buckets {name}: {done.rps:,.0f} req/s")
    medians = {name: _median(done) for name, done in rounds.items()}
    local, shared = medians["in the process"]["rps"], medians["in Redis"]["rps"]
    return {
        "medians": medians,
        "cost_ms": (1 / shared - 1 / local) * 1000,
        "script_us": asyncio.run(_script_round_trip(redis_url)),
    }


async def _script_round_trip(redis_url: str, calls: int = 1000) -> float:
    from redis.asyncio import Redis

    from gateway.replicas.shared_limits import SharedRateLimiter

    redis = Redis.from_url(redis_url)
    try:
        limiter = SharedRateLimiter(1e9, redis)
        times = []
        for n in range(calls):
            started = time.perf_counter()
            await limiter.check(f"bench-{n % 10}")
            times.append((time.perf_counter() - started) * 1e6)
            limiter.draw(f"bench-{n % 10}", 0.5)
        return statistics.median(times)
    finally:
        await redis.aclose()


async def _deliveries(urls: list[str], writes: int) -> list[list[float]]:
    """Opens issues through the first URL; each subscriber's delay for each (ms)."""
    subscribers = [
        await Subscriber.open(url.replace("http://", "ws://") + "/graphql") for url in urls
    ]
    listening = [asyncio.create_task(s.listen()) for s in subscribers]
    await asyncio.sleep(1.5)  # every subscription in place, every lease taken
    answered: dict[int, float] = {}
    async with http_client() as http:
        for _ in range(writes):
            body = await graphql(http, f"{urls[0]}/graphql", OPEN)
            answered[body["data"]["openIssue"]["number"]] = time.perf_counter()
            await asyncio.sleep(0.2)
        deadline = time.monotonic() + 30
        while any(len(s.arrived) < writes for s in subscribers):
            if time.monotonic() > deadline:
                raise RuntimeError("not every change reached every subscriber in 30 s")
            await asyncio.sleep(0.1)
    for task in listening:
        task.cancel()
    for subscriber in subscribers:
        await subscriber.socket.close()
    return [[(s.arrived[n] - at) * 1000 for n, at in answered.items()] for s in subscribers]


def delivery(env: dict[str, str], redis_url: str, writes: int, say: Progress) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with dynagate(env) as alone:
        (delays,) = asyncio.run(_deliveries([alone], writes))
        results["one process, no Redis"] = _spread(delays)
    shared = {**env, "DYNAGATE_REDIS_URL": redis_url}
    with dynagate(shared) as first, dynagate(shared) as second:
        here, there = asyncio.run(_deliveries([first, second], writes))
    results["Redis: replica written to"] = _spread(here)
    results["Redis: the other replica"] = _spread(there)
    for name, figures in results.items():
        say(f"delivery, {name}: p50 {figures['p50_ms']:.0f} ms, p99 {figures['p99_ms']:.0f} ms")
    return results


def _spread(delays: list[float]) -> dict[str, float]:
    return {
        "p50_ms": report.percentile(delays, 50) or 0.0,
        "p99_ms": report.percentile(delays, 99) or 0.0,
    }


def _median(rounds: list[wrk.Round]) -> dict[str, float]:
    return {
        "rps": statistics.median(r.rps for r in rounds),
        "p50_ms": statistics.median(r.p50_ms for r in rounds),
        "p99_ms": statistics.median(r.p99_ms for r in rounds),
        "failures": sum(r.failures for r in rounds),
    }


CUSTOMER = 'mutation { createCustomer(input: {id: "bench", name: "B", email: "b@x.io"}) { id } }'
PLACE = f'mutation {{ placeOrder(input: {{customerId: "bench", items: [{LINE}]}}) {{ id }} }}'
REPO = f'mutation {{ createRepo(input: {{owner: "{OWNER}", name: "{NAME}"}}) {{ name }} }}'


async def _seed(env: dict[str, str]) -> None:
    with dynagate(env) as url:
        async with http_client() as http:
            for query in (CUSTOMER, *([PLACE] * 20), REPO):
                await graphql(http, f"{url}/graphql", query)


def markdown(results: dict[str, Any]) -> str:
    speed = results["throughput"]["medians"]
    rows = [
        [name, f"{m['rps']:,.0f}", f"{m['p50_ms']:.1f} ms", f"{m['p99_ms']:.1f} ms"]
        for name, m in speed.items()
    ]
    limit = results["rate_limit"]
    limit_rows = [
        [f"buckets {name}", f"{m['rps']:,.0f}", f"{m['p50_ms']:.1f} ms", f"{m['p99_ms']:.1f} ms"]
        for name, m in limit["medians"].items()
    ]
    delivery_rows = [
        [name, f"{m['p50_ms']:.0f} ms", f"{m['p99_ms']:.0f} ms"]
        for name, m in results["delivery"].items()
    ]
    return "\n\n".join(
        [
            report.markdown_table(
                ["orders page", "req/s", "p50", "p99"], rows + limit_rows, [1, 2, 3]
            ),
            f"2 workers ÷ 1 worker: {results['throughput']['ratio']:.2f}; the shared rate limit"
            f" costs {limit['cost_ms']:.3f} ms a request (the script's round trip alone:"
            f" {limit['script_us']:.0f} µs, median of 1,000)",
            report.markdown_table(["a write's event reaches", "p50", "p99"], delivery_rows, [1, 2]),
        ]
    )


add_arguments = arguments(
    *turns(3, 10.0),
    Option("--connections", positive_int, 16, "wrk's connections"),
    Option("--writes", positive_int, 30, "changes timed across replicas"),
)


def run(args: argparse.Namespace, context: Context) -> int:
    with dynamodb_local(context.say) as local, redis_server(context.say) as redis_url:
        table = Table(local.endpoint, TABLE)
        context.say(asyncio.run(table.create()))
        env = table.env
        asyncio.run(_seed(env))
        results: dict[str, Any] = {
            "throughput": throughput(env, args, context.say),
            "rate_limit": rate_limit_cost(env, redis_url, args, context.say),
            "delivery": delivery(env, redis_url, args.writes, context.say),
        }
    config = {k: getattr(args, k) for k in ("rounds", "seconds", "connections", "writes")}
    context.publish("scaleout", results, config, markdown)
    return 0


BENCHMARK = Benchmark(
    "scaleout",
    "more than one process: 1 and 2 workers, the shared rate limit's cost, delivery across"
    " replicas (about 3 minutes)",
    __doc__ or "",
    add_arguments,
    run,
    quick={"rounds": 1, "seconds": 2.0, "writes": 3},
)
