"""What traces cost: req/s of one gateway process with tracing off, on with every request
sampled, and on with 10 % sampled (docs/tracing.md).

Starts DynamoDB Local, creates the table and a customer with 20 orders, and for each
configuration that traces an OTLP/HTTP receiver in this process that counts the spans it
receives (`bench/otlp.py`). Then, side by side in one run, four `dynagate serve` processes
(the shipped defaults, one hash seed): one per configuration, and a second with tracing off
whose distance from the first is the measurement's noise; all running at once, they take
turns under load (the order rotates each round; short turns, many rounds, so that the
machine's drift falls on all alike), each loaded by wrk over 8 connections for `--seconds` with one
customer's orders page (a request of two DynamoDB calls: seven spans when it is sampled),
after a turn each that warms them and DynamoDB Local up and does not count.

Per configuration: the median req/s, p50 and p99, the gateway process's CPU time per
request (from /proc), the spans received per request (all of them, once the processes have
stopped: 7 and about 0.7, a little more as the requests cut off when a turn ends are traced
but not counted), and how far below tracing off each is (target: under 5 % with every
request sampled, under 1 % with 10 %). Then tracing's own CPU per request, measured without
I/O (`bench/tracing_cost.py`), as a share of a request's CPU with tracing off: where the
side-by-side figures move with the noise the second process shows, this one does not.

Writes tracing.json and tracing.md. Exits 0 whatever the figures (it is a report).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from bench import report, wrk
from bench.arguments import arguments, turns
from bench.cpu import child_matching, cpu_seconds
from bench.harness import Benchmark, Context, Progress, Table, dynamodb_local
from bench.otlp import Receiver, receiving
from bench.scaleout import ORDERS, _seed, dynagate
from bench.tracing_cost import own_cost

TABLE = "bench-tracing"
CONNECTIONS = 8
# Each configuration's OpenTelemetry settings, beside the receiver's address.
ALIKE = "off (a second process)"
CONFIGS: dict[str, dict[str, str]] = {
    "off": {},
    # Off again, in a process of its own: how far two alike processes differ (the noise).
    ALIKE: {},
    "every request sampled": {"OTEL_TRACES_SAMPLER": "parentbased_always_on"},
    "10 % sampled": {
        "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
        "OTEL_TRACES_SAMPLER_ARG": "0.1",
    },
}
TARGETS = {"every request sampled": 0.05, "10 % sampled": 0.01}


def _env(base: dict[str, str], config: str, receiver: Receiver | None) -> dict[str, str]:
    # One hash seed for all: dictionaries laid out alike, the processes differ by what is
    # measured (with random seeds, two processes alike differed by up to 10 %).
    alike = {**base, "PYTHONHASHSEED": "0"}
    if receiver is None:
        return alike
    return {**alike, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, **CONFIGS[config]}


@dataclass
class Served:
    url: str
    pid: int | None
    # Where its spans go (None: tracing off), and the requests it answered.
    receiver: Receiver | None
    requests: int = 0


def _slice(served: Served, name: str, seconds: float) -> dict[str, float]:
    """One configuration's turn under load."""
    body = json.dumps({"query": ORDERS}).encode()
    cpu = cpu_seconds(served.pid) if served.pid else None
    done = wrk.run(name, f"{served.url}/graphql", body, CONNECTIONS, seconds)
    used = cpu_seconds(served.pid) if served.pid else None
    served.requests += done.requests
    return {
        "rps": done.rps,
        "p50_ms": done.p50_ms,
        "p99_ms": done.p99_ms,
        "failures": float(done.failures),
        "cpu_ms": (used - cpu) * 1000 / max(done.requests, 1) if used and cpu else 0.0,
    }


def measure(env: dict[str, str], args: argparse.Namespace, say: Progress) -> dict[str, Any]:
    names = list(CONFIGS)
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    with ExitStack() as running:
        served = {}
        for name in names:
            # A receiver per configuration: the spans each exports, counted apart.
            traced = bool(CONFIGS[name])
            receiver = running.enter_context(receiving(counting=True)) if traced else None
            url = running.enter_context(dynagate(_env(env, name, receiver)))
            pid = child_matching(f"serve --port {url.rsplit(':', 1)[1]}")
            served[name] = Served(url, pid, receiver)
        # DynamoDB Local, and each process, warmed up by a turn that does not count.
        for name in names:
            _slice(served[name], name, 2.0)
        for turn in range(args.rounds):
            for name in names[turn % len(names) :] + names[: turn % len(names)]:
                figures = _slice(served[name], name, args.seconds)
                rounds[name].append(figures)
                say(
                    f"round {turn + 1}: tracing {name}: {figures['rps']:,.0f} req/s, p50"
                    f" {figures['p50_ms']:.1f} ms, {figures['cpu_ms']:.2f} ms of the gateway's"
                    " CPU a request"
                )
    # Counted once every process has stopped: what was left in their queues, exported.
    spans = {
        name: (p.receiver.counted / p.requests if p.receiver and p.requests else 0.0)
        for name, p in served.items()
    }
    medians = {
        name: {key: statistics.median(r[key] for r in done) for key in done[0]}
        for name, done in rounds.items()
    }
    off = medians["off"]
    below = {name: 1 - m["rps"] / off["rps"] for name, m in medians.items() if name != "off"}
    cpu = {name: m["cpu_ms"] / off["cpu_ms"] - 1 for name, m in medians.items() if name != "off"}
    own = {
        name: own_cost(
            CONFIGS[name]["OTEL_TRACES_SAMPLER"], CONFIGS[name].get("OTEL_TRACES_SAMPLER_ARG", "1")
        )
        for name in TARGETS
    }
    for name, micros in own.items():
        say(f"tracing {name}: {micros:.0f} µs of CPU a request, measured without I/O")
    return {
        "rounds": rounds,
        "medians": medians,
        "below_off": below,
        "cpu_above_off": cpu,
        "spans_per_request": spans,
        "own_us": own,
    }


def markdown(results: dict[str, Any]) -> str:
    medians, below, cpu = results["medians"], results["below_off"], results["cpu_above_off"]
    spans = results["spans_per_request"]
    noise = abs(below[ALIKE])
    rows = []
    for name, m in medians.items():
        target = TARGETS.get(name)
        versus = more = ""
        if name != "off":
            versus = f"{below[name]:.1%} below"
            more = f" ({cpu[name]:+.1%})"
        if target is not None:
            versus += f" (target < {target:.0%}) {_judged(below[name], target, noise)}"
        rows.append(
            [
                name,
                f"{m['rps']:,.0f}",
                versus,
                f"{m['p50_ms']:.1f} ms / {m['p99_ms']:.1f} ms",
                f"{m['cpu_ms']:.2f} ms{more}",
                f"{spans[name]:.2f}",
            ]
        )
    table = report.markdown_table(
        [
            "tracing (medians)",
            "req/s",
            "vs off",
            "p50 / p99",
            "gateway CPU a request",
            "spans exported a request",
        ],
        rows,
        [1, 3, 4, 5],
    )
    off_ms = medians["off"]["cpu_ms"]
    own_rows = [
        [
            name,
            f"{micros:.0f} µs",
            f"{micros / 1000 / off_ms:.1%} (target < {TARGETS[name]:.0%})"
            f" {'✓' if micros / 1000 / off_ms < TARGETS[name] else '✗'}",
        ]
        for name, micros in results["own_us"].items()
    ]
    own = report.markdown_table(
        ["tracing's own CPU a request (without I/O)", "CPU", "of a request's with tracing off"],
        own_rows,
        [1, 2],
    )
    return f"{table}\n\n{own}"


def _judged(below: float, target: float, noise: float) -> str:
    """✓ under the target; within noise where only the distance two processes alike show
    (the second process with tracing off) keeps it from being under; else ✗."""
    if below < target:
        return "✓"
    return "within noise" if below < target + noise else "✗"


add_arguments = arguments(*turns(12, 4.0))


def run(args: argparse.Namespace, context: Context) -> int:
    with dynamodb_local(context.say) as local:
        table = Table(local.endpoint, TABLE)
        context.say(asyncio.run(table.create()))
        env = table.env
        asyncio.run(_seed(env))
        results = measure(env, args, context.say)
    config = {k: getattr(args, k) for k in ("rounds", "seconds")}
    context.publish("tracing", results, config, markdown)
    return 0


BENCHMARK = Benchmark(
    "tracing",
    "what traces cost: req/s with tracing off, every request sampled, 10 % sampled (about"
    " 4 minutes)",
    __doc__ or "",
    add_arguments,
    run,
    quick={"rounds": 1, "seconds": 1.0},
)
