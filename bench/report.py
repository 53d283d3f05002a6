"""Per-server summaries of the rounds, and the table printed at the end."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from bench.cpu import LOAD_GENERATOR
from bench.load import Round, percentile

TARGET = 0.8
SERVER_CPU = "server"
DYNAMODB_CPU = "DynamoDB Local"


def _median(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def summary(rounds: Sequence[Round], cpu: Sequence[Mapping[str, float | None]]) -> dict[str, Any]:
    """Median throughput of the rounds; latency percentiles over every request of them."""
    latencies = [ms for r in rounds for ms in r.latencies_ms]
    return {
        "rps_median": statistics.median(r.rps for r in rounds),
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
        "requests": sum(r.requests for r in rounds),
        "failures": sum(r.failures for r in rounds),
        "cpu_ms_per_request_median": {label: _median([c[label] for c in cpu]) for label in cpu[0]},
        "rounds": [
            {
                "rps": r.rps,
                "p50_ms": percentile(r.latencies_ms, 50),
                "p99_ms": percentile(r.latencies_ms, 99),
                "requests": r.requests,
                "failures": r.failures,
                "seconds": r.seconds,
                "cpu_ms_per_request": c,
            }
            for r, c in zip(rounds, cpu, strict=True)
        ],
    }


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def ratios(gateway: Mapping[str, Any], baseline: Mapping[str, Any]) -> dict[str, float | None]:
    """Gateway over baseline: throughput (higher is better), latency and CPU (lower is)."""
    return {
        "throughput": _ratio(gateway["rps_median"], baseline["rps_median"]),
        "p50": _ratio(gateway["p50_ms"], baseline["p50_ms"]),
        "p99": _ratio(gateway["p99_ms"], baseline["p99_ms"]),
        "server_cpu_per_request": _ratio(
            gateway["cpu_ms_per_request_median"].get(SERVER_CPU),
            baseline["cpu_ms_per_request_median"].get(SERVER_CPU),
        ),
    }


def fmt(value: float | None, spec: str) -> str:
    """`value` formatted by `spec`, or n/a in the same width."""
    return "n/a".rjust(int(spec.split(".")[0] or 0)) if value is None else format(value, spec)


def render(results: Mapping[str, Any]) -> str:
    servers, ratio = results["servers"], results["ratios"]
    cost = results["gateway_cost_per_request"]
    lines = [
        "",
        f"{'':9} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'fail':>5}   CPU ms per request:"
        f" {'server':>6} {'DDB Local':>9} {'loadgen':>7}   req/s by round",
    ]
    for name, s in servers.items():
        cpu = s["cpu_ms_per_request_median"]
        by_round = " ".join(f"{r['rps']:.0f}" for r in s["rounds"])
        lines.append(
            f"{name:9} {s['rps_median']:7.1f} {fmt(s['p50_ms'], '7.1f')}"
            f" {fmt(s['p99_ms'], '7.1f')} {s['failures']:5d}   {'':19}"
            f" {fmt(cpu.get(SERVER_CPU), '6.2f')} {fmt(cpu.get(DYNAMODB_CPU), '9.2f')}"
            f" {fmt(cpu.get(LOAD_GENERATOR), '7.2f')}   {by_round}"
        )
    met = "MEETS" if results["target"]["met"] else "MISSES"
    lines += [
        "",
        f"gateway/baseline  throughput {fmt(ratio['throughput'], '.2f')}"
        f" ({met} the target of {TARGET})   p50 {fmt(ratio['p50'], '.2f')}"
        f"   p99 {fmt(ratio['p99'], '.2f')}"
        f"   server CPU per request {fmt(ratio['server_cpu_per_request'], '.2f')}",
        f"DynamoDB per gateway request (extensions.cost): {cost['requests']} calls,"
        f" {cost['readCapacityUnits']} RCU, {cost['writeCapacityUnits']} WCU,"
        f" {cost['itemsScanned']} items scanned, {cost['itemsReturned']} returned",
        f"req/s: median of rounds; p50/p99: over all requests of the rounds. The load generator,"
        f" the server under load and DynamoDB Local share {results['machine']['cpus']} CPUs.",
    ]
    return "\n".join(lines)
