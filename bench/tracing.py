"""What traces cost: req/s of one gateway process with tracing off, on with every request
sampled, and on with 10 % sampled (docs/tracing.md).

Starts DynamoDB Local, creates the table and a customer with 20 orders, and an OTLP/HTTP
receiver in this process that takes every export and keeps only its size (`bench/otlp.py`).
Then, side by side in one run, `dynagate serve` (the shipped defaults, a process of its own
each turn) in the three configurations, in turns (the order rotates each round), each loaded
by wrk for `--seconds` with one customer's orders page (a request of two DynamoDB calls:
seven spans when it is sampled). Per configuration: the median req/s, p50 and p99, the
spans received a second, and how far below tracing off it is (target: under 5 % with every
request sampled, under 1 % with 10 %).

Writes tracing.json and tracing.md. Exits 0 whatever the figures (it is a report).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from typing import Any

from bench import report, wrk
from bench.harness import (
    Benchmark,
    Context,
    Progress,
    Table,
    dynamodb_local,
    positive_float,
    positive_int,
)
from bench.otlp import Receiver, receiving
from bench.scaleout import _seed, dynagate, load

TABLE = "bench-tracing"
# Each configuration's OpenTelemetry settings, beside the receiver's address.
CONFIGS: dict[str, dict[str, str]] = {
    "off": {},
    "every request sampled": {"OTEL_TRACES_SAMPLER": "parentbased_always_on"},
    "10 % sampled": {
        "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
        "OTEL_TRACES_SAMPLER_ARG": "0.1",
    },
}
TARGETS = {"every request sampled": 0.05, "10 % sampled": 0.01}


def _env(base: dict[str, str], config: str, receiver: Receiver) -> dict[str, str]:
    if config == "off":
        return base
    return {**base, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, **CONFIGS[config]}


def measure(
    env: dict[str, str], receiver: Receiver, args: argparse.Namespace, say: Progress
) -> dict[str, Any]:
    names = list(CONFIGS)
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for turn in range(args.rounds):
        order = names[turn % len(names) :] + names[: turn % len(names)]
        for name in order:
            with dynagate(_env(env, name, receiver)) as url:
                before = receiver.requests, receiver.sent_bytes
                done: wrk.Round = load(name, url, args.seconds, args.connections)
            exports, size = receiver.requests - before[0], receiver.sent_bytes - before[1]
            figures = {
                "rps": done.rps,
                "p50_ms": done.p50_ms,
                "p99_ms": done.p99_ms,
                "failures": float(done.failures),
                "exports": float(exports),
                "export_kb_per_s": size / 1024 / args.seconds,
            }
            rounds[name].append(figures)
            say(
                f"round {turn + 1}: tracing {name}: {done.rps:,.0f} req/s, p50"
                f" {done.p50_ms:.1f} ms, {exports} exports ({figures['export_kb_per_s']:.0f}"
                " KB/s)"
            )
    medians = {
        name: {key: statistics.median(r[key] for r in done) for key in done[0]}
        for name, done in rounds.items()
    }
    off = medians["off"]["rps"]
    below = {name: 1 - m["rps"] / off for name, m in medians.items() if name != "off"}
    return {"rounds": rounds, "medians": medians, "below_off": below}


def markdown(results: dict[str, Any]) -> str:
    medians, below = results["medians"], results["below_off"]
    rows = []
    for name, m in medians.items():
        target = TARGETS.get(name)
        versus = ""
        if target is not None:
            met = "✓" if below[name] < target else "✗"
            versus = f"{below[name]:.1%} below (target < {target:.0%}) {met}"
        rows.append(
            [
                name,
                f"{m['rps']:,.0f}",
                f"{m['p50_ms']:.1f} ms",
                f"{m['p99_ms']:.1f} ms",
                f"{m['export_kb_per_s']:.0f} KB/s",
                versus,
            ]
        )
    return report.markdown_table(
        ["tracing (medians)", "req/s", "p50", "p99", "exported", "vs off"], rows, [1, 2, 3, 4]
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=positive_int, default=5, help="turns of each (default 5)")
    parser.add_argument(
        "--seconds", type=positive_float, default=10.0, help="seconds of load a turn (default 10)"
    )
    parser.add_argument(
        "--connections", type=positive_int, default=8, help="wrk's connections (default 8)"
    )


def run(args: argparse.Namespace, context: Context) -> int:
    with dynamodb_local(context.say) as local, receiving(discard=True) as receiver:
        table = Table(local.endpoint, TABLE)
        context.say(asyncio.run(table.create()))
        env = table.env
        asyncio.run(_seed(env))
        results = measure(env, receiver, args, context.say)
    config = {k: getattr(args, k) for k in ("rounds", "seconds", "connections")}
    context.publish("tracing", results, config, markdown)
    return 0


BENCHMARK = Benchmark(
    "tracing",
    "what traces cost: req/s with tracing off, every request sampled, 10 % sampled (about"
    " 3 minutes)",
    __doc__ or "",
    add_arguments,
    run,
    quick={"rounds": 1, "seconds": 2.0},
)
