"""The six access patterns, served by the gateway and by a hand-written floor, one load.

    python -m bench.speed [--rounds 3] [--seconds 10] [--connections 8] [--only a,b]

Starts DynamoDB Local and creates the table; serves the gateway (uvicorn, settings from
the environment as `dynagate serve` reads them) and seeds what the operations read
through its mutations; records the DynamoDB calls each operation makes (`bench/capture`);
serves the floor (`bench/floor`), which replays exactly those calls at once and answers
their items as JSON, and checks it returns as many items as the gateway reports reading.
Then, operation by operation, wrk loads each server in turn — a discarded warm-up each,
then alternating rounds (gateway, floor, floor, gateway, …) so machine noise hits both alike.

Prints a table (gateway req/s ÷ floor req/s, medians of the rounds), writes
bench/results/speed.json and the markdown table of docs/performance.md to bench/results/speed.md.
Exits 0 whatever the ratios (it is a report), 1 when a server fails or they disagree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import sys
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

from bench import cpu, wrk
from bench.capture import Captured, capture
from bench.operations import OPERATIONS, Operation, seed
from bench.progress import Progress
from bench.servers import GATEWAY, REPOSITORY, Server, serving
from bench.speed_report import markdown, render, summary
from gateway.dynamodb_local import DynamoDBLocal
from gateway.settings import Settings
from store.tables import create_table

TABLE = "bench"
FLOOR = "bench.floor:create_app"
RESULTS = REPOSITORY / "bench" / "results"
SECRET = "bench-cursor-secret"


@dataclass(frozen=True)
class Options:
    rounds: int
    seconds: float
    warmup: float
    connections: int
    only: tuple[str, ...]
    uvicorn: tuple[str, ...]


def parse(argv: Sequence[str] | None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m bench.speed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    names = [o.name for o in OPERATIONS]
    parser.add_argument("--rounds", type=int, default=3, help="rounds per server (default 3)")
    parser.add_argument("--seconds", type=float, default=10.0, help="per round (default 10)")
    parser.add_argument("--warmup", type=float, default=3.0, help="per server (default 3)")
    parser.add_argument("--connections", type=int, default=8, help="wrk's (default 8)")
    parser.add_argument("--only", default=",".join(names), help=f"of {', '.join(names)}")
    parser.add_argument(
        "--asyncio-h11",
        action="store_true",
        help="serve both with uvicorn's pure-Python loop and parser (no uvloop, httptools)",
    )
    a = parser.parse_args(argv)
    only = tuple(n for n in a.only.split(",") if n)
    if unknown := set(only) - set(names):
        parser.error(f"unknown operations: {', '.join(sorted(unknown))}")
    if a.rounds < 1 or a.seconds <= 0 or a.warmup < 0 or a.connections < 1:
        parser.error("--rounds, --seconds and --connections must be positive")
    plain = ("--loop", "asyncio", "--http", "h11") if a.asyncio_h11 else ()
    return Options(a.rounds, a.seconds, a.warmup, a.connections, only, plain)


async def prepare(
    gateway: Server, settings: Settings, operations: Sequence[Operation], say: Progress
) -> dict[str, Captured]:
    """Seed, then each operation's calls and the gateway's cost report of it."""
    async with settings.open_client() as client:
        say(f"table: {await create_table(client, settings.table)}")
    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        seeded = await seed(http, f"{gateway.url}/graphql", random.Random(42))
        say(f"seeded through the gateway's mutations: {seeded}")
    return await capture(settings, operations)


async def _check_floor(
    floor: Server, operations: Sequence[Operation], captured: dict[str, Captured]
) -> None:
    """The floor must read what the gateway read: as many items, without errors."""
    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        for operation in operations:
            response = await http.post(f"{floor.url}/graphql", content=operation.body)
            if response.status_code != 200:
                raise RuntimeError(f"the floor answered {operation.name} with {response.text}")
            items = sum(len(found) for found in response.json()["data"])
            expected = captured[operation.name].cost["itemsReturned"]
            if items != expected:
                raise RuntimeError(
                    f"{operation.name}: the floor read {items} items, the gateway {expected}"
                )


def _measure(
    operation: Operation,
    servers: dict[str, Server],
    dynamodb_pid: int | None,
    options: Options,
    say: Progress,
) -> dict[str, Any]:
    rounds: dict[str, list[wrk.Round]] = {name: [] for name in servers}
    usage: dict[str, list[float | None]] = {name: [] for name in servers}

    def one(name: str, seconds: float) -> wrk.Round:
        pids = {"server": servers[name].pid, "dynamodb": dynamodb_pid}
        before = cpu.snapshot(pids)
        done = wrk.run(
            name, f"{servers[name].url}/graphql", operation.body, options.connections, seconds
        )
        if done.failures:
            raise RuntimeError(f"{operation.name}: {done.failures} failed requests to {name}")
        usage[name].append(cpu.per_request_ms(before, cpu.snapshot(pids), done.requests)["server"])
        return done

    for name in servers:
        if options.warmup:
            one(name, options.warmup)
            usage[name].clear()
    for index in range(1, options.rounds + 1):
        # Gateway first in odd rounds, floor first in even ones: neither always follows.
        for name in list(servers)[:: 1 if index % 2 else -1]:
            done = one(name, options.seconds)
            rounds[name].append(done)
            say(
                f"{operation.name:13} round {index}/{options.rounds} {name:8}"
                f" {done.rps:7.1f} req/s  p50 {done.p50_ms:6.1f} ms  p99 {done.p99_ms:6.1f} ms"
            )
    return {name: summary(rounds[name], usage[name]) for name in servers}


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    say = Progress()
    operations = [o for o in OPERATIONS if o.name in options.only]
    wrk.command()
    env = {"DYNAGATE_TABLE": TABLE, "DYNAGATE_CURSOR_SECRET": SECRET}
    with ExitStack() as stack:
        local = stack.enter_context(DynamoDBLocal())
        env["DYNAGATE_DYNAMODB_ENDPOINT"] = local.endpoint
        settings = Settings(table=TABLE, endpoint=local.endpoint, cursor_secret=SECRET.encode())
        gateway = stack.enter_context(serving(GATEWAY, env, options=options.uvicorn))
        try:
            captured = asyncio.run(prepare(gateway, settings, operations, say))
            calls_file = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "calls.json"
            calls = {o.body.decode(): captured[o.name].calls for o in operations}
            calls_file.write_text(json.dumps(calls))
            floor = stack.enter_context(
                serving(
                    FLOOR, {**env, "DYNAGATE_FLOOR_CALLS": str(calls_file)}, options=options.uvicorn
                )
            )
            asyncio.run(_check_floor(floor, operations, captured))
        except RuntimeError as error:
            print(f"FAILED: {error}", file=sys.stderr)
            return 1
        say(
            f"gateway at {gateway.url}, floor at {floor.url}:"
            " the floor reads what the gateway reads"
        )
        servers = {"gateway": gateway, "floor": floor}
        dynamodb_pid = cpu.child_matching(f"-port {local.port}")
        results: dict[str, Any] = {}
        try:
            for operation in operations:
                measured = _measure(operation, servers, dynamodb_pid, options, say)
                results[operation.name] = {
                    "label": operation.label,
                    "query": operation.query,
                    "calls": [name for name, _ in captured[operation.name].calls],
                    "cost": captured[operation.name].cost,
                    "servers": measured,
                }
        except RuntimeError as error:
            print(f"FAILED: {error}", file=sys.stderr)
            return 1
    report = {
        "config": {
            **asdict(options),
            "only": list(options.only),
            "uvicorn": list(options.uvicorn) or ["uvloop", "httptools"],
            "load": "wrk, 1 thread",
        },
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "operations": results,
    }
    print(render(report))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "speed.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / "speed.md").write_text(markdown(report) + "\n")
    print(f"results: {RESULTS / 'speed.json'}, {RESULTS / 'speed.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
