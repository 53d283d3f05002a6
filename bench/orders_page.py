"""The orders page, served by the gateway and by a hand-written baseline, under one load.

    python -m bench.orders_page [--rounds 3] [--seconds 10] [--concurrency 16]

Starts DynamoDB Local, creates the table, starts both servers as uvicorn processes, seeds
customer `bench` through the gateway's mutations, checks both answer the page with the same
`data`, then alternates load rounds (gateway, baseline, gateway, …) so that machine noise
hits both alike. Prints a table and writes bench/results/orders_page.json. Exits 0 whatever
the ratio (it is a report), 1 when the two servers disagree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import cpu, load, report
from bench.servers import BASELINE, GATEWAY, REPOSITORY, Server, serving
from bench.verify import Mismatch, verify
from bench.workload import PAGE_BODY, PAGE_QUERY, seed
from gateway.dynamodb_local import DynamoDBLocal
from gateway.settings import Settings
from store.tables import create_table

TABLE = "bench"
OUTPUT = REPOSITORY / "bench" / "results" / "orders_page.json"


@dataclass(frozen=True)
class Options:
    rounds: int
    seconds: float
    warmup: float
    concurrency: int
    orders: int
    output: Path


def parse(argv: Sequence[str] | None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m bench.orders_page",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds per server (default 3)")
    parser.add_argument("--seconds", type=float, default=10.0, help="per round (default 10)")
    parser.add_argument("--warmup", type=float, default=5.0, help="per server (default 5)")
    parser.add_argument("--concurrency", type=int, default=16, help="workers (default 16)")
    parser.add_argument("--orders", type=int, default=60, help="orders to seed (default 60)")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="JSON results file")
    a = parser.parse_args(argv)
    if a.rounds < 1 or a.seconds <= 0 or a.concurrency < 1 or a.orders < 1:
        parser.error("--rounds, --seconds, --concurrency and --orders must be positive")
    return Options(a.rounds, a.seconds, a.warmup, a.concurrency, a.orders, a.output)


class Progress:
    def __init__(self) -> None:
        self.start = time.monotonic()

    def __call__(self, message: str) -> None:
        print(f"[{time.monotonic() - self.start:6.1f} s] {message}", flush=True)


async def measure(
    servers: Mapping[str, Server], dynamodb_pid: int | None, options: Options, say: Progress
) -> dict[str, Any]:
    gateway, baseline = servers["gateway"].url, servers["baseline"].url
    async with load.client(1) as http:
        await seed(http, f"{gateway}/graphql", options.orders)
    say(f"seeded customer 'bench' with {options.orders} orders through the gateway's mutations")
    cost = await verify(gateway, baseline, options.orders)
    say(f"both servers return identical data; gateway extensions.cost: {cost}")
    rounds: dict[str, list[load.Round]] = {name: [] for name in servers}
    usage: dict[str, list[dict[str, float | None]]] = {name: [] for name in servers}
    clients = {name: load.client(options.concurrency) for name in servers}
    async with clients["gateway"], clients["baseline"]:

        async def run(name: str, seconds: float) -> load.Round:
            url = f"{servers[name].url}/graphql"
            pids = {report.SERVER_CPU: servers[name].pid, report.DYNAMODB_CPU: dynamodb_pid}
            before = cpu.snapshot(pids)
            done = await load.run_round(
                clients[name], name, url, PAGE_BODY, options.concurrency, seconds
            )
            usage[name].append(cpu.per_request_ms(before, cpu.snapshot(pids), done.requests))
            return done

        for name in servers:
            warm = await run(name, options.warmup)
            usage[name].clear()
            say(f"warm-up   {name:8}  {warm.rps:7.1f} req/s (discarded)")
        for index in range(1, options.rounds + 1):
            for name in servers:
                done = await run(name, options.seconds)
                rounds[name].append(done)
                say(
                    f"round {index}/{options.rounds} {name:8}  {done.rps:7.1f} req/s"
                    f"  p50 {report.fmt(load.percentile(done.latencies_ms, 50), '7.1f')} ms"
                    f"  p99 {report.fmt(load.percentile(done.latencies_ms, 99), '7.1f')} ms"
                    + (f"  FAILURES: {done.failures}" if done.failures else "")
                )
    summaries = {name: report.summary(rounds[name], usage[name]) for name in servers}
    ratios = report.ratios(summaries["gateway"], summaries["baseline"])
    return {
        "query": PAGE_QUERY,
        "config": {
            "rounds_per_server": options.rounds,
            "seconds_per_round": options.seconds,
            "warmup_seconds": options.warmup,
            "concurrency": options.concurrency,
            "orders_seeded": options.orders,
            "uvicorn": "1 process each, asyncio loop, h11, no access log",
        },
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "note": "the load generator, both servers and DynamoDB Local share these CPUs",
        },
        "servers": summaries,
        "ratios": ratios,
        "target": {
            "throughput_ratio": report.TARGET,
            "met": ratios["throughput"] is not None and ratios["throughput"] >= report.TARGET,
        },
        "gateway_cost_per_request": cost,
    }


async def _create_table(settings: Settings) -> str:
    async with settings.open_client() as client:
        return await create_table(client, settings.table)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    say = Progress()
    env = {"DYNAGATE_TABLE": TABLE, "DYNAGATE_CURSOR_SECRET": "bench-cursor-secret"}
    with ExitStack() as stack:
        local = stack.enter_context(DynamoDBLocal())
        env["DYNAGATE_DYNAMODB_ENDPOINT"] = local.endpoint
        created = asyncio.run(_create_table(Settings(table=TABLE, endpoint=local.endpoint)))
        say(f"DynamoDB Local at {local.endpoint}: {created}")
        servers = {
            "gateway": stack.enter_context(serving(GATEWAY, env)),
            "baseline": stack.enter_context(serving(BASELINE, env)),
        }
        say(f"uvicorn: gateway at {servers['gateway'].url}, baseline at {servers['baseline'].url}")
        dynamodb_pid = cpu.child_matching(f"-port {local.port}")
        try:
            results = asyncio.run(measure(servers, dynamodb_pid, options, say))
        except Mismatch as error:
            print(f"VERIFICATION FAILED: {error}", file=sys.stderr)
            return 1
    print(report.render(results))
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results: {options.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
