"""The six access patterns, served by the gateway and by two hand-written floors, one load.

Starts DynamoDB Local and creates the table; serves the gateway (uvicorn, settings from
the environment as `dynagate serve` reads them) and seeds what the operations read
through its mutations; records the DynamoDB calls each operation makes (`bench/capture`).
Two floors replay exactly those calls at once and answer their items as JSON: the
aioboto3 floor (`bench/floor`: plain aioboto3, boto3's TypeDeserializer, json, as users
write it) and the lean floor (`bench/floor_lean`: the store's client, the store's decoder,
orjson); each must return as many items as the gateway reports reading. Then, operation by
operation, wrk loads each server in turn — a discarded warm-up each, then rounds whose
order turns around every round (gateway, aioboto3, lean, then lean, aioboto3, gateway, …)
so machine noise hits all alike.

Prints two tables (gateway req/s ÷ each floor's req/s, medians of the rounds) and writes
speed.json and speed.md (the tables of docs/performance.md). Exits 0 whatever the ratios
(it is a report), 1 when a server fails or they disagree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench import cpu, wrk
from bench.arguments import (
    Option,
    arguments,
    names,
    not_negative,
    positive_float,
    positive_int,
    switch,
)
from bench.capture import Captured, capture
from bench.harness import Benchmark, Context, Progress, Table, dynamodb_local, http_client
from bench.operations import OPERATIONS, Operation, seed
from bench.report import machine
from bench.servers import GATEWAY, PLAIN, Server, serving
from bench.speed_report import FLOORS, TAIL, markdown, ratios, render, summary

TABLE = "bench"
# Each floor's application factory, by its name among the servers.
FLOOR_APPS = {"aioboto3": "bench.floor:create_app", "lean": "bench.floor_lean:create_app"}
NAMES = [o.name for o in OPERATIONS]


@dataclass(frozen=True)
class Options:
    rounds: int
    seconds: float
    warmup: float
    connections: int
    only: tuple[str, ...]
    uvicorn: tuple[str, ...]


add_arguments = arguments(
    Option("--rounds", positive_int, 3, "rounds per server"),
    Option("--seconds", positive_float, 10.0, "per round"),
    Option("--warmup", not_negative, 3.0, "per server"),
    Option("--connections", positive_int, 8, "wrk's"),
    Option("--only", names(NAMES), tuple(NAMES), f"of {', '.join(NAMES)}", shown="all"),
    switch(
        "--asyncio-h11",
        "serve both with uvicorn's pure-Python loop and parser (no uvloop, httptools)",
    ),
)


def options(args: argparse.Namespace) -> Options:
    plain = PLAIN if args.asyncio_h11 else ()
    return Options(args.rounds, args.seconds, args.warmup, args.connections, args.only, plain)


async def prepare(
    gateway: Server, table: Table, operations: Sequence[Operation], say: Progress
) -> dict[str, Captured]:
    """Create the table, seed, then each operation's calls and the gateway's cost of it."""
    say(f"table: {await table.create()}")
    async with http_client() as http:
        seeded = await seed(http, f"{gateway.url}/graphql", random.Random(42))
        say(f"seeded through the gateway's mutations: {seeded}")
    return await capture(table.settings, operations)


async def _check_floor(
    name: str, floor: Server, operations: Sequence[Operation], captured: dict[str, Captured]
) -> None:
    """A floor must read what the gateway read: as many items, without errors."""
    async with http_client() as http:
        for operation in operations:
            response = await http.post(f"{floor.url}/graphql", content=operation.body)
            if response.status_code != 200:
                raise RuntimeError(f"the {name} floor answered {operation.name}: {response.text}")
            items = sum(len(found) for found in response.json()["data"])
            expected = captured[operation.name].cost["itemsReturned"]
            if items != expected:
                raise RuntimeError(
                    f"{operation.name}: the {name} floor read {items} items, the gateway {expected}"
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
        # In order in odd rounds, the other way round in even ones: none always follows.
        for name in list(servers)[:: 1 if index % 2 else -1]:
            done = one(name, options.seconds)
            rounds[name].append(done)
            say(
                f"{operation.name:13} round {index}/{options.rounds} {name:8}"
                f" {done.rps:7.1f} req/s  p50 {done.p50_ms:6.1f} ms  p99 {done.p99_ms:6.1f} ms"
            )
    return {name: summary(rounds[name], usage[name]) for name in servers}


def run(args: argparse.Namespace, context: Context) -> int:
    chosen = options(args)
    say = context.say
    operations = [o for o in OPERATIONS if o.name in chosen.only]
    wrk.command()  # before anything starts
    results: dict[str, Any] = {}
    with ExitStack() as stack:
        local = stack.enter_context(dynamodb_local(say))
        table = Table(local.endpoint, TABLE)
        gateway = stack.enter_context(serving(GATEWAY, table.env, options=chosen.uvicorn))
        try:
            captured = asyncio.run(prepare(gateway, table, operations, say))
            calls_file = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "calls.json"
            calls = {o.body.decode(): captured[o.name].calls for o in operations}
            calls_file.write_text(json.dumps(calls))
            floor_env = {**table.env, "DYNAGATE_FLOOR_CALLS": str(calls_file)}
            servers = {"gateway": gateway}
            for floor in FLOORS:
                app = FLOOR_APPS[floor.name]
                served = stack.enter_context(serving(app, floor_env, options=chosen.uvicorn))
                asyncio.run(_check_floor(floor.name, served, operations, captured))
                say(f"{floor.label} at {served.url} reads the same items as the gateway")
                servers[floor.name] = served
            dynamodb_pid = cpu.child_matching(f"-port {local.port}")
            for operation in operations:
                recorded = captured[operation.name].calls
                measured = {
                    "label": operation.label,
                    "query": operation.query,
                    "calls": [name for name, _ in recorded],
                    "requests": [request for _, request in recorded],
                    "cost": captured[operation.name].cost,
                    "servers": _measure(operation, servers, dynamodb_pid, chosen, say),
                }
                results[operation.name] = {**measured, "ratios": ratios(measured)}
        except RuntimeError as error:
            print(f"FAILED: {error}", file=sys.stderr)
            return 1
    report = {
        "config": {
            **asdict(chosen),
            "only": list(chosen.only),
            "uvicorn": list(chosen.uvicorn) or ["uvloop", "httptools"],
            "load": "wrk, 1 thread",
        },
        "machine": machine(),
        "targets": {"ratio": {f.name: f.target for f in FLOORS}, "p99/p50": TAIL},
        "operations": results,
    }
    print(render(report))
    context.write("speed", report, markdown(report))
    return 0


BENCHMARK = Benchmark(
    "speed",
    "the six access patterns against two hand-written floors, under wrk (about 11 minutes)",
    __doc__ or "",
    add_arguments,
    run,
    quick={"rounds": 1, "seconds": 1.0, "warmup": 0.0},
)
