"""Summaries of the speed rounds: the printed tables and the markdown ones of
docs/performance.md, one per floor (gateway against the aioboto3 floor, then against the
lean floor)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench.report import console_table, markdown_table
from bench.wrk import Round

GATEWAY = "gateway"
TAIL = 2.0  # p99 ÷ p50, at most


@dataclass(frozen=True)
class Floor:
    name: str  # its key among a result's servers
    label: str
    target: float  # gateway req/s ÷ this floor's req/s, at least


FLOORS = (
    # As hand-written aioboto3 code does it: the gateway must be at least as fast.
    Floor("aioboto3", "aioboto3 floor", 1.0),
    # The store's own client and decoder: what remains is the gateway's own work.
    Floor("lean", "lean floor", 0.85),
)


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


def figures(measured: Mapping[str, Any], floor: str) -> dict[str, float]:
    """The gateway against `floor` on one operation."""
    gateway, other = measured["servers"][GATEWAY], measured["servers"][floor]
    return {
        "ratio": gateway["rps"] / other["rps"],
        **{f"gateway_{k}": v for k, v in _server(gateway).items()},
        **{f"floor_{k}": v for k, v in _server(other).items()},
    }


def _server(summary: Mapping[str, Any]) -> dict[str, float]:
    return {
        "rps": summary["rps"],
        "p50": summary["p50_ms"],
        "p99": summary["p99_ms"],
        "tail": summary["p99_ms"] / summary["p50_ms"],
        "cpu": summary["cpu_ms_per_request"] or 0.0,
    }


def ratios(measured: Mapping[str, Any]) -> dict[str, float]:
    """Gateway req/s ÷ each floor's req/s on one operation."""
    return {f.name: figures(measured, f.name)["ratio"] for f in FLOORS}


def _rows(report: Mapping[str, Any], floor: str) -> list[tuple[str, int, dict[str, float]]]:
    return [(m["label"], len(m["calls"]), figures(m, floor)) for m in report["operations"].values()]


def _verdict(floor: Floor, rows: Sequence[tuple[str, int, dict[str, float]]]) -> str:
    ratios = [f["ratio"] for _, _, f in rows]
    return (
        f"ratio: gateway req/s ÷ {floor.label} req/s (target ≥ {floor.target});"
        f" median {statistics.median(ratios):.2f}, worst {min(ratios):.2f}."
    )


def cpu_split(measured: Mapping[str, Any]) -> dict[str, float] | None:
    """The gateway's CPU per request split in two: the data path — what the lean floor
    spends on the same calls through the same client, decoder, encoder and HTTP server —
    and the gateway's own work, the rest (GraphQL, bounds, identity, records, cursors,
    shaping). None when either CPU time is unknown."""
    gateway = measured["servers"][GATEWAY]["cpu_ms_per_request"]
    data_path = measured["servers"]["lean"]["cpu_ms_per_request"]
    if gateway is None or data_path is None:
        return None
    own = gateway - data_path
    return {"gateway": gateway, "data_path": data_path, "own": own, "share": own / gateway}


_SPLIT_HEADER = ["operation", "calls", "gateway CPU", "data path", "gateway's own", "own share"]


def _split_rows(report: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    for measured in report["operations"].values():
        split = cpu_split(measured)
        if split is None:
            continue
        rows.append(
            [
                measured["label"],
                str(len(measured["calls"])),
                *(f"{split[k]:.2f} ms" for k in ("gateway", "data_path", "own")),
                f"{split['share']:.0%}",
            ]
        )
    return rows


def render(report: Mapping[str, Any]) -> str:
    """The console's tables: gw is the gateway, fl the floor named above each table."""
    lines: list[str] = []
    for floor in FLOORS:
        rows = _rows(report, floor.name)
        header = ["operation", "calls", "ratio", "gw req/s", "fl req/s", "gw p50", "fl p50"]
        header += ["gw p99", "fl p99", "gw p99/p50", "fl p99/p50", "gw CPU", "fl CPU"]
        cells = [
            [
                label,
                str(calls),
                f"{f['ratio']:.2f}",
                *(f"{f[f'{s}_rps']:.1f}" for s in ("gateway", "floor")),
                *(f"{f[f'{s}_p50']:.1f}" for s in ("gateway", "floor")),
                *(f"{f[f'{s}_p99']:.1f}" for s in ("gateway", "floor")),
                *(f"{f[f'{s}_tail']:.2f}" for s in ("gateway", "floor")),
                *(f"{f[f'{s}_cpu']:.2f}" for s in ("gateway", "floor")),
            ]
            for label, calls, f in rows
        ]
        lines += ["", f"gateway (gw) against the {floor.label} (fl)", console_table(header, cells)]
        lines += [_verdict(floor, rows)]
    split = _split_rows(report)
    if split:
        lines += ["", "the gateway's CPU per request: the data path (the lean floor's) and its own"]
        lines += [console_table(_SPLIT_HEADER, split)]
    lines += [
        "",
        f"p50/p99 in ms (target p99/p50 ≤ {TAIL}), CPU in server ms per request;"
        " medians of the rounds.",
    ]
    return "\n".join(lines)


def markdown_for(report: Mapping[str, Any], floor: Floor) -> str:
    """The table of the gateway against one floor."""
    short = floor.label.removesuffix(" floor")
    header = ["operation", "calls", "ratio"]
    for measure in ("p50", "p99", "p99 / p50", "CPU"):
        header += [f"gateway {measure}", f"{short} {measure}"]
    rows = [
        [
            label,
            str(calls),
            f"{f['ratio']:.2f}",
            *(f"{f[f'{s}_p50']:.0f} ms" for s in ("gateway", "floor")),
            *(f"{f[f'{s}_p99']:.0f} ms" for s in ("gateway", "floor")),
            *(f"{f[f'{s}_tail']:.2f}" for s in ("gateway", "floor")),
            *(f"{f[f'{s}_cpu']:.2f} ms" for s in ("gateway", "floor")),
        ]
        for label, calls, f in _rows(report, floor.name)
    ]
    return markdown_table(header, rows, right=range(1, len(header)))


def markdown(report: Mapping[str, Any]) -> str:
    """Both tables, each under the line that names its floor and target, then the split
    of the gateway's CPU per request."""
    tables = [
        f"Gateway against the {floor.label} (ratio target ≥ {floor.target}):\n\n"
        + markdown_for(report, floor)
        for floor in FLOORS
    ]
    split = _split_rows(report)
    if split:
        tables.append(
            "The gateway's CPU per request: the data path (the lean floor's: the same calls"
            " through the same client, decoder, encoder and HTTP server) and the gateway's"
            " own work (the rest):\n\n"
            + markdown_table(_SPLIT_HEADER, split, right=range(1, len(_SPLIT_HEADER)))
        )
    return "\n\n".join(tables)
