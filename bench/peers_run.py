"""The gateway against the servers a team would otherwise write, side by side.

The same six documents over the same table, served by three servers at once:

    gateway     the gateway under uvicorn, one process, its shipped defaults
    apollo      Apollo Server 4 (standalone), AWS SDK v3 DocumentClient, dataloader:
                bench/peers/node, `node server.mjs` with NODE_ENV=production
    strawberry  Strawberry, aioboto3, aiodataloader: bench/peers/strawberry under uvicorn,
                one worker, the gateway's versions of them in a venv of its own

Both hand-written servers resolve by hand what the gateway derives: the key-condition
Queries the table was laid out for, per-request DataLoaders (BatchGetItem) for items read
by key, the map's geohash planning ported to each language.

Starts DynamoDB Local, creates the table and seeds it through the gateway's mutations
(`bench/peers_documents`); installs the hand-written servers' packages as their lock files
pin them when missing or stale (`npm ci`, pip); checks that each one's `data` equals the
gateway's on the six documents and more (cursors aside), and stops if not. Then wrk (one
thread) loads each server with each document, a warm-up first, in rounds whose servers'
order turns every round; the CPU of each server's process per request comes from /proc.

Prints the table (req/s, gateway ÷ each, p50/p99, CPU ms per request, each one's CPU ÷ the
gateway's; the medians and the worst) and writes peers.json and peers.md. Exits 0 whatever
the ratios, 1 when a server fails or answers differently, 2 when Node.js or wrk is missing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from typing import Any

from bench import cpu, wrk
from bench.arguments import Option, arguments, names, not_negative, positive_float, positive_int
from bench.harness import Benchmark, Context, Progress, Table, dynamodb_local, http_client
from bench.peers_documents import DOCUMENTS, NAMES, Document, check, seed
from bench.peers_report import SERVERS, markdown, ratios, render, summary
from bench.peers_servers import Missing, apollo, install_node, strawberry, strawberry_python
from bench.peers_servers import versions as peer_versions
from bench.report import machine
from bench.servers import GATEWAY, Server, serving
from bench.speed_report import summary as round_summary

TABLE = "peers"


@dataclass(frozen=True)
class Options:
    rounds: int
    seconds: float
    warmup: float
    connections: int
    only: tuple[str, ...]


add_arguments = arguments(
    Option("--rounds", positive_int, 3, "rounds of every server on every document"),
    Option("--seconds", positive_float, 5.0, "of load per round"),
    Option("--warmup", not_negative, 1.0, "seconds per server and document, discarded"),
    Option("--connections", positive_int, 8, "wrk's"),
    Option("--only", names(NAMES), tuple(NAMES), f"of {', '.join(NAMES)}", shown="all"),
)


def options(args: argparse.Namespace) -> Options:
    return Options(args.rounds, args.seconds, args.warmup, args.connections, args.only)


async def _prepare(gateway: Server, table: Table, say: Progress) -> dict[str, int]:
    say(f"table: {await table.create()}")
    async with http_client(8) as http:
        seeded = await seed(http, f"{gateway.url}/graphql")
    say(f"seeded through the gateway's mutations: {seeded}")
    return seeded


async def _same(servers: dict[str, Server], documents: list[Document], more: bool) -> None:
    """RuntimeError, saying where, when a hand-written server's `data` differs."""
    urls = {name: f"{server.url}/graphql" for name, server in servers.items()}
    async with http_client() as http:
        problems = await check(http, urls, documents, more)
    if problems:
        raise RuntimeError("the answers differ:\n  " + "\n  ".join(problems))


def _load(
    documents: list[Document],
    servers: dict[str, Server],
    dynamodb_pid: int | None,
    options: Options,
    say: Progress,
) -> dict[str, dict[str, Any]]:
    names = list(servers)
    rounds: dict[tuple[str, str], list[wrk.Round]] = {}
    used: dict[tuple[str, str], list[dict[str, float | None]]] = {}

    def one(document: Document, name: str, seconds: float) -> tuple[wrk.Round, Any]:
        pids = {"server": servers[name].pid, "dynamodb": dynamodb_pid}
        before = cpu.snapshot(pids)
        url = f"{servers[name].url}/graphql"
        done = wrk.run(name, url, document.body, options.connections, seconds)
        if done.failures:
            raise RuntimeError(f"{document.label}: {done.failures} failed requests to {name}")
        return done, cpu.per_request_ms(before, cpu.snapshot(pids), done.requests)

    if options.warmup:
        say(f"warm-up: {options.warmup:g} s per server and document")
        for document in documents:
            for name in names:
                one(document, name, options.warmup)
    for index in range(options.rounds):
        for position, document in enumerate(documents):
            turn = (index + position) % len(names)  # each server first in its turn
            for name in names[turn:] + names[:turn]:
                done, usage = one(document, name, options.seconds)
                rounds.setdefault((document.name, name), []).append(done)
                used.setdefault((document.name, name), []).append(usage)
                say(
                    f"{document.label:24} round {index + 1}/{options.rounds} {name:10}"
                    f" {done.rps:7.1f} req/s  p50 {done.p50_ms:6.1f} ms  p99 {done.p99_ms:6.1f} ms"
                )
    results: dict[str, dict[str, Any]] = {}
    for document in documents:
        measured: dict[str, Any] = {}
        for name in names:
            usage = used[document.name, name]
            server = [u["server"] for u in usage]
            measured[name] = round_summary(rounds[document.name, name], server)
            database = [u["dynamodb"] for u in usage if u["dynamodb"] is not None]
            measured[name]["dynamodb_cpu_ms_per_request"] = (
                statistics.median(database) if database else None
            )
        results[document.name] = {
            "label": document.label,
            "query": document.query,
            "servers": measured,
            "ratios": ratios(measured),
        }
    return results


def run(args: argparse.Namespace, context: Context) -> int:
    chosen = options(args)
    say = context.say
    documents = [d for d in DOCUMENTS if d.name in chosen.only]
    wrk.command()  # before anything starts
    try:
        install_node(say)
        python = strawberry_python(say)
    except Missing as error:
        print(error, file=sys.stderr)
        return 2
    except RuntimeError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
    with ExitStack() as stack:
        local = stack.enter_context(dynamodb_local(say))
        table = Table(local.endpoint, TABLE)
        try:
            gateway = stack.enter_context(serving(GATEWAY, table.env))
            seeded = asyncio.run(_prepare(gateway, table, say))
            servers = {
                "gateway": gateway,
                "apollo": stack.enter_context(apollo(table)),
                "strawberry": stack.enter_context(strawberry(table, python)),
            }
            say("apollo at {}, strawberry at {}".format(*(servers[s].url for s in SERVERS[1:])))
            asyncio.run(_same(servers, documents, more=True))
            say("each hand-written server answers every document with the gateway's data")
            dynamodb_pid = cpu.child_matching(f"-port {local.port}")
            operations = _load(documents, servers, dynamodb_pid, chosen, say)
            asyncio.run(_same(servers, documents, more=False))
            say("and still does after the load")
        except RuntimeError as error:
            print(f"FAILED: {error}", file=sys.stderr)
            return 1
    report = {
        "config": {**asdict(chosen), "only": list(chosen.only), "load": "wrk, 1 thread"},
        "machine": machine(),
        "versions": peer_versions(python),
        "seeded": seeded,
        "operations": operations,
        "summary": summary(operations),
    }
    print(render(report))
    context.write("peers", report, markdown(report))
    return 0


BENCHMARK = Benchmark(
    "peers",
    "the gateway against Apollo Server and Strawberry written by hand, under wrk (about 5 minutes)",
    __doc__ or "",
    add_arguments,
    run,
    quick={"rounds": 1, "seconds": 1.0, "warmup": 0.0},
)
