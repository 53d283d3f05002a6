"""Summaries of the speed rounds: the printed table and the markdown one of docs/performance.md."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from bench.wrk import Round

TARGET = 0.9  # gateway req/s ÷ floor req/s
TAIL = 2.0  # p99 ÷ p50, at most


def summary(rounds: Sequence[Round], cpu_ms: Sequence[float | None]) -> dict[str, Any]:
    """Medians over the rounds (each round's own percentiles)."""
    known = [c for c in cpu_ms if c is not None]
    return {
        "rps": statistics.median(r.rps for r in rounds),
        "p50_ms": statistics.median(r.p50_ms for r in rounds),
        "p99_ms": statistics.median(r.p99_ms for r in rounds),
        "cpu_ms_per_request": statistics.median(known) if known else None,
        "rounds": [
            {"rps": r.rps, "p50_ms": r.p50_ms, "p99_ms": r.p99_ms, "requests": r.requests}
            for r in rounds
        ],
    }


def figures(measured: Mapping[str, Any]) -> dict[str, float]:
    gateway, floor = measured["servers"]["gateway"], measured["servers"]["floor"]
    return {
        "ratio": gateway["rps"] / floor["rps"],
        "tail": gateway["p99_ms"] / gateway["p50_ms"],
        "gateway_p50": gateway["p50_ms"],
        "gateway_p99": gateway["p99_ms"],
        "floor_p50": floor["p50_ms"],
        "gateway_rps": gateway["rps"],
        "floor_rps": floor["rps"],
        "gateway_cpu": gateway["cpu_ms_per_request"] or 0.0,
        "floor_cpu": floor["cpu_ms_per_request"] or 0.0,
    }


def _rows(report: Mapping[str, Any]) -> list[tuple[str, int, dict[str, float]]]:
    return [(m["label"], len(m["calls"]), figures(m)) for m in report["operations"].values()]


def render(report: Mapping[str, Any]) -> str:
    lines = [
        "",
        f"{'operation':24} {'calls':>5} {'ratio':>6} {'p99/p50':>7} {'gw req/s':>8}"
        f" {'fl req/s':>8} {'gw p50':>7} {'fl p50':>7} {'gw CPU':>7} {'fl CPU':>7}",
    ]
    for label, calls, f in _rows(report):
        lines.append(
            f"{label:24} {calls:5d} {f['ratio']:6.2f} {f['tail']:7.2f} {f['gateway_rps']:8.1f}"
            f" {f['floor_rps']:8.1f} {f['gateway_p50']:7.1f} {f['floor_p50']:7.1f}"
            f" {f['gateway_cpu']:7.2f} {f['floor_cpu']:7.2f}"
        )
    ratios = [f["ratio"] for _, _, f in _rows(report)]
    lines += [
        "",
        f"ratio: gateway req/s ÷ floor req/s (target ≥ {TARGET});"
        f" median {statistics.median(ratios):.2f},"
        f" worst {min(ratios):.2f}. p50/p99 in ms, CPU in server ms per request; medians of"
        " the rounds.",
    ]
    return "\n".join(lines)


def markdown(report: Mapping[str, Any]) -> str:
    lines = [
        "| operation | calls | ratio | gateway p50 | floor p50 | gateway p99 / p50"
        " | gateway CPU | floor CPU |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, calls, f in _rows(report):
        lines.append(
            f"| {label} | {calls} | {f['ratio']:.2f} | {f['gateway_p50']:.0f} ms"
            f" | {f['floor_p50']:.0f} ms | {f['tail']:.2f} | {f['gateway_cpu']:.2f} ms"
            f" | {f['floor_cpu']:.2f} ms |"
        )
    return "\n".join(lines)
