"""The read cache: what it saves DynamoDB and the gateway under a read-heavy mix, whether
a read is ever stale, and how soon a change reaches the cache of every replica.

Starts DynamoDB Local and a Redis server (`make redis` installs one), creates the table
(its stream on) and seeds `--hot` customers with 3 orders each through the gateway, then,
side by side in one run:

- the mix: `dynagate serve` with `DYNAGATE_CACHE=off` and `on`, in turns (after a round
  that warms DynamoDB Local up and does not count; the two take turns at going first; a
  process of its own each turn, warmed up until a repeated read is answered from memory), loaded for
  `--seconds` by `--clients` loops. Each step reads a random hot customer's name and newest
  orders (90 %), places an order for one through the gateway (5 %), or changes one's name
  straight in the table, as another writer would (5 %). Per configuration, medians over the
  rounds: gateway req/s, p50 and p99 of the reads, DynamoDB calls per gateway request (the
  sum of `extensions.cost.requests` over the requests) and the share of reads answered
  wholly from memory; and the ratios of on to off;
- stale reads, in the same mix: a read is stale if its name is older than one written
  straight to the table more than `--window` s before the read was sent, or if the newest
  order it lists was placed (answered) before an order whose placeOrder was sent after it
  and answered before the read was sent; an order placed while the read ran may show or not;
- invalidation on every replica: two replicas sharing Redis, the cache on in both.
  `--writes` times, a customer's read is made hot on both, then changed (in turns: an
  order placed through the first, a name changed straight in the table) and read on both
  every 5 ms until it shows the change: the delay from the write's end to the answer that
  shows it (one read's round trip included), p50 and p99 per replica and writer.

Writes cache.json and cache.md. Exits 0 whatever the figures (it is a report), 1 if a
request of the mix failed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from bench import report
from bench.arguments import Option, arguments, positive_float, positive_int, turns
from bench.cache_requests import (
    CREATE,
    History,
    Request,
    ask,
    hot,
    place,
    read,
    rename,
    until_shown,
)
from bench.harness import Benchmark, Context, Progress, Table, dynamodb_local
from bench.raw_http import RawClient
from bench.scaleout import _spread, dynagate, redis_server

if TYPE_CHECKING:
    pass

TABLE = "bench-cache"
CONFIGS = ("off", "on")
REPLICAS = ("A", "B")
WRITERS = ("placeOrder through A", "another writer")


async def _seed(env: dict[str, str], history: History) -> None:
    with dynagate(env) as url:
        async with RawClient() as http:
            for customer in history.customers:
                await ask(http, f"{url}/graphql", CREATE, id=customer)
                history.names[customer] = [(0, time.perf_counter())]
                history.orders[customer] = {}
                for _ in range(3):
                    history.placed(await place(http, url, customer))


@dataclass
class Round:
    requests: list[Request] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0


async def _mix(
    url: str, table: Table, history: History, args: argparse.Namespace, seed: int, cached: bool
) -> Round:
    done = Round()
    locks = {customer: asyncio.Lock() for customer in history.customers}
    # A lean client: httpx's own CPU would take a good part of the server's two cores.
    async with RawClient() as http, table.settings.open_client() as client:
        if cached:
            await hot(http, url, history.customers[0])
        for customer in history.customers:  # connections open, every customer read once
            await read(http, url, customer)
        started = time.perf_counter()
        end = started + args.seconds

        async def steps(n: int) -> None:
            draw = random.Random(seed * 1000 + n)
            while time.perf_counter() < end:
                customer, roll = draw.choice(history.customers), draw.random()
                try:
                    if roll < 0.9:
                        done.requests.append(await read(http, url, customer))
                    elif roll < 0.95:
                        placed = await place(http, url, customer)
                        done.requests.append(placed)
                        history.placed(placed)
                    else:
                        await rename(client, table.name, customer, history, locks[customer])
                except (
                    RuntimeError,
                    OSError,
                    asyncio.IncompleteReadError,
                    BotoCoreError,
                    ClientError,
                ) as error:
                    done.failures.append(f"{type(error).__name__}: {error}"[:500])

        await asyncio.gather(*(steps(n) for n in range(args.clients)))
        done.seconds = time.perf_counter() - started
    return done


def _figures(done: Round, history: History, window: float) -> dict[str, Any]:
    reads = [r for r in done.requests if r.kind == "read"]
    latencies = [(r.answered - r.sent) * 1000 for r in reads]
    count = max(len(done.requests), 1)
    return {
        "requests": len(done.requests),
        "rps": len(done.requests) / done.seconds,
        "read_p50_ms": report.percentile(latencies, 50) or 0.0,
        "read_p99_ms": report.percentile(latencies, 99) or 0.0,
        "calls_per_request": sum(r.calls for r in done.requests) / count,
        "from_memory": sum(r.from_memory for r in reads) / max(len(reads), 1),
        "reads": len(reads),
        "stale": sum(history.stale(r, window) for r in reads),
        "failures": len(done.failures),
    }


def mix(table: Table, history: History, args: argparse.Namespace, say: Progress) -> dict[str, Any]:
    rounds: dict[str, list[dict[str, Any]]] = {config: [] for config in CONFIGS}
    failures: list[str] = []
    # DynamoDB Local gets faster as it warms up: a round of neither counts first, and the
    # two configurations take turns at going first.
    with dynagate({**table.env, "DYNAGATE_CACHE": "off"}) as url:
        asyncio.run(_mix(url, table, history, args, -1, False))
    for turn in range(args.rounds):
        for config in CONFIGS if turn % 2 == 0 else CONFIGS[::-1]:
            with dynagate({**table.env, "DYNAGATE_CACHE": config}) as url:
                done = asyncio.run(_mix(url, table, history, args, turn, config == "on"))
            figures = _figures(done, history, args.window)
            rounds[config].append(figures)
            failures += done.failures
            say(
                f"round {turn + 1}: cache {config}: {figures['rps']:,.0f} req/s, reads p50"
                f" {figures['read_p50_ms']:.1f} ms, p99 {figures['read_p99_ms']:.1f} ms,"
                f" {figures['calls_per_request']:.2f} DynamoDB calls a request,"
                f" {figures['from_memory']:.0%} of reads from memory,"
                f" {figures['stale']} stale of {figures['reads']}, {figures['failures']} failed"
            )
    medians = {
        config: {
            name: statistics.median(r[name] for r in done)
            for name in ("rps", "read_p50_ms", "read_p99_ms", "calls_per_request", "from_memory")
        }
        for config, done in rounds.items()
    }
    off, on = medians["off"], medians["on"]
    return {
        "rounds": rounds,
        "medians": medians,
        "calls_ratio": _ratio(off["calls_per_request"], on["calls_per_request"]),
        "rps_ratio": _ratio(on["rps"], off["rps"]),
        "stale": {
            config: {
                "stale": sum(r["stale"] for r in done),
                "checked": sum(r["reads"] for r in done),
            }
            for config, done in rounds.items()
        },
        "failures": failures[:20],
        "failed": sum(r["failures"] for done in rounds.values() for r in done),
    }


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("inf")


async def _invalidations(
    urls: list[str], table: Table, history: History, writes: int
) -> dict[str, dict[str, list[float]]]:
    """Each replica's delays (ms) from each write's end to a read that shows it."""
    delays: dict[str, dict[str, list[float]]] = {r: {w: [] for w in WRITERS} for r in REPLICAS}
    async with RawClient() as http, table.settings.open_client() as client:
        for n in range(writes):
            customer = history.customers[n % len(history.customers)]
            for url in urls:
                await hot(http, url, customer)
            writer = WRITERS[n % 2]
            shows: Callable[[Request], bool]
            if writer == "placeOrder through A":
                placed = await place(http, urls[0], customer)
                history.placed(placed)
                ended, shows = placed.answered, _lists_first(placed.orders[0])
            else:
                version, ended = await rename(client, table.name, customer, history, asyncio.Lock())
                shows = _named(f"v{version}")
            shown = await asyncio.gather(*(until_shown(http, u, customer, shows) for u in urls))
            for replica, at in zip(REPLICAS, shown, strict=True):
                delays[replica][writer].append((at - ended) * 1000)
    return delays


def _lists_first(order: str) -> Callable[[Request], bool]:
    return lambda read: read.orders[:1] == (order,)


def _named(name: str) -> Callable[[Request], bool]:
    return lambda read: read.name == name


def invalidation(
    table: Table, redis_url: str, history: History, writes: int, say: Progress
) -> dict[str, dict[str, dict[str, float]]]:
    shared = {**table.env, "DYNAGATE_CACHE": "on", "DYNAGATE_REDIS_URL": redis_url}
    with dynagate(shared) as first, dynagate(shared) as second:
        delays = asyncio.run(_invalidations([first, second], table, history, writes))
    results: dict[str, dict[str, dict[str, float]]] = {}
    for replica, by_writer in delays.items():
        results[replica] = {}
        for writer, times in by_writer.items():
            results[replica][writer] = figures = {**_spread(times), "writes": len(times)}
            say(
                f"invalidation, replica {replica}, {writer}: p50 {figures['p50_ms']:.0f} ms,"
                f" p99 {figures['p99_ms']:.0f} ms ({len(times)} writes)"
            )
    return results


def _mark(met: bool) -> str:
    return "✓" if met else "✗"


def markdown(results: dict[str, Any]) -> str:
    mixed = results["mix"]
    off, on = mixed["medians"]["off"], mixed["medians"]["on"]
    calls, rps = mixed["calls_ratio"], mixed["rps_ratio"]
    rows = [
        [
            "gateway req/s",
            f"{off['rps']:,.0f}",
            f"{on['rps']:,.0f}",
            f"{rps:.2f} times (≥ 2) {_mark(rps >= 2)}",
        ],
        ["reads, p50", f"{off['read_p50_ms']:.1f} ms", f"{on['read_p50_ms']:.1f} ms", ""],
        ["reads, p99", f"{off['read_p99_ms']:.1f} ms", f"{on['read_p99_ms']:.1f} ms", ""],
        [
            "DynamoDB calls per request",
            f"{off['calls_per_request']:.2f}",
            f"{on['calls_per_request']:.2f}",
            f"{calls:.1f} times fewer (≥ 5) {_mark(calls >= 5)}",
        ],
        [
            "reads answered wholly from memory",
            f"{off['from_memory']:.0%}",
            f"{on['from_memory']:.0%}",
            "",
        ],
    ]
    stale = mixed["stale"]
    none_stale = all(s["stale"] == 0 for s in stale.values())
    stale_line = (
        f"Stale reads in the mix: {stale['off']['stale']} of {stale['off']['checked']:,} with"
        f" the cache off, {stale['on']['stale']} of {stale['on']['checked']:,} with it on"
        f" (target 0) {_mark(none_stale)}"
    )
    if mixed["failed"]:
        stale_line += f"; {mixed['failed']} requests failed"
    delay_rows = [
        [
            replica,
            writer,
            f"{m['p50_ms']:.0f} ms",
            f"{m['p99_ms']:.0f} ms {_mark(m['p99_ms'] < 1000)}",
        ]
        for replica, by_writer in results["invalidation"].items()
        for writer, m in by_writer.items()
    ]
    return "\n\n".join(
        [
            report.markdown_table(
                ["read-heavy mix (medians)", "cache off", "cache on", "on vs off (target)"],
                rows,
                [1, 2, 3],
            ),
            stale_line,
            report.markdown_table(
                ["a write shows in the reads of", "writer", "p50", "p99 (target < 1 s)"],
                delay_rows,
                [2, 3],
            ),
        ]
    )


add_arguments = arguments(
    *turns(3, 10.0),
    Option("--clients", positive_int, 8, "loops sending the mix"),
    Option("--hot", positive_int, 20, "customers the mix reads"),
    Option("--window", positive_float, 1.0, "seconds another writer's change may take to show"),
    Option("--writes", positive_int, 30, "changes timed on replicas"),
)


def run(args: argparse.Namespace, context: Context) -> int:
    history = History([f"hot{n}" for n in range(args.hot)])
    with dynamodb_local(context.say) as local, redis_server(context.say) as redis_url:
        table = Table(local.endpoint, TABLE)
        context.say(asyncio.run(table.create()))
        asyncio.run(_seed(table.env, history))
        results: dict[str, Any] = {
            "mix": mix(table, history, args, context.say),
            "invalidation": invalidation(table, redis_url, history, args.writes, context.say),
        }
    config = {
        k: getattr(args, k) for k in ("rounds", "seconds", "clients", "hot", "window", "writes")
    }
    context.publish("cache", results, config, markdown)
    for failure in results["mix"]["failures"]:
        context.say(f"failed: {failure}")
    return 1 if results["mix"]["failed"] else 0


BENCHMARK = Benchmark(
    "cache",
    "the read cache: DynamoDB calls and req/s of a read-heavy mix off and on, stale reads,"
    " invalidation on every replica (about 2 minutes)",
    __doc__ or "",
    add_arguments,
    run,
    quick={"rounds": 1, "seconds": 2.0, "writes": 3, "hot": 5},
)
