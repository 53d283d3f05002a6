"""Summaries of the speed rounds: the printed table and the markdown one of
docs/performance.md."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from bench.report import console_table, markdown_table
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
    header = ["operation", "calls", "ratio", "p99/p50", "gw req/s", "fl req/s"]
    header += ["gw p50", "fl p50", "gw CPU", "fl CPU"]
    rows = [
        [
            label,
            str(calls),
            f"{f['ratio']:.2f}",
            f"{f['tail']:.2f}",
            f"{f['gateway_rps']:.1f}",
            f"{f['floor_rps']:.1f}",
            f"{f['gateway_p50']:.1f}",
            f"{f['floor_p50']:.1f}",
            f"{f['gateway_cpu']:.2f}",
            f"{f['floor_cpu']:.2f}",
        ]
        for label, calls, f in _rows(report)
    ]
    ratios = [f["ratio"] for _, _, f in _rows(report)]
    return "\n".join(
        [
            "",
            console_table(header, rows),
            "",
            f"ratio: gateway req/s ÷ floor req/s (target ≥ {TARGET});"
            f" median {statistics.median(ratios):.2f}, worst {min(ratios):.2f}."
            " p50/p99 in ms, CPU in server ms per request; medians of the rounds.",
        ]
    )


def markdown(report: Mapping[str, Any]) -> str:
    header = ["operation", "calls", "ratio", "gateway p50", "floor p50", "gateway p99 / p50"]
    header += ["gateway CPU", "floor CPU"]
    rows = [
        [
            label,
            str(calls),
            f"{f['ratio']:.2f}",
            f"{f['gateway_p50']:.0f} ms",
            f"{f['floor_p50']:.0f} ms",
            f"{f['tail']:.2f}",
            f"{f['gateway_cpu']:.2f} ms",
            f"{f['floor_cpu']:.2f} ms",
        ]
        for label, calls, f in _rows(report)
    ]
    return markdown_table(header, rows)
