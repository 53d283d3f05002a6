"""The tables of `python -m bench peers`: per document, each server's requests per second,
the gateway's over each hand-written server's, latency, and CPU per request; then the
medians and the worst of the ratios."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from bench.report import console_table, markdown_table

GATEWAY = "gateway"
PEERS = ("apollo", "strawberry")
SERVERS = (GATEWAY, *PEERS)


def ratios(servers: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, float | None]]:
    """Gateway req/s ÷ each peer's (> 1: the gateway serves more), and each peer's CPU per
    request ÷ the gateway's (> 1: the gateway spends less)."""
    gateway = servers[GATEWAY]
    rps = {p: gateway["rps"] / servers[p]["rps"] if servers[p]["rps"] else None for p in PEERS}
    cpu: dict[str, float | None] = {}
    for peer in PEERS:
        mine, theirs = gateway["cpu_ms_per_request"], servers[peer]["cpu_ms_per_request"]
        cpu[peer] = theirs / mine if mine and theirs is not None else None
    return {"rps": rps, "cpu": cpu}


def summary(operations: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The median and the worst (lowest) of each ratio over the documents."""
    found: dict[str, dict[str, Any]] = {}
    for kind in ("rps", "cpu"):
        for peer in PEERS:
            values = [o["ratios"][kind][peer] for o in operations.values()]
            known = [v for v in values if v is not None]
            found[f"{kind} {peer}"] = {
                "median": statistics.median(known) if known else None,
                "worst": min(known) if known else None,
            }
    return found


def _n(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


HEADER = [
    "document",
    "gateway req/s",
    "apollo req/s",
    "strawberry req/s",
    "gateway ÷ apollo",
    "gateway ÷ strawberry",
    "gateway p50/p99 ms",
    "apollo p50/p99 ms",
    "strawberry p50/p99 ms",
    "gateway CPU ms/req",
    "apollo CPU ms/req",
    "strawberry CPU ms/req",
    "apollo CPU ÷ gateway",
    "strawberry CPU ÷ gateway",
]


def rows(report: Mapping[str, Any]) -> list[list[str]]:
    table = []
    for measured in report["operations"].values():
        servers, found = measured["servers"], measured["ratios"]
        table.append(
            [
                measured["label"],
                *(f"{servers[s]['rps']:.0f}" for s in SERVERS),
                *(_n(found["rps"][p]) for p in PEERS),
                *(f"{servers[s]['p50_ms']:.1f}/{servers[s]['p99_ms']:.1f}" for s in SERVERS),
                *(_n(servers[s]["cpu_ms_per_request"]) for s in SERVERS),
                *(_n(found["cpu"][p]) for p in PEERS),
            ]
        )
    total = report["summary"]
    for which in ("median", "worst"):
        rps = [_n(total[f"rps {p}"][which]) for p in PEERS]
        cpu = [_n(total[f"cpu {p}"][which]) for p in PEERS]
        table.append([which, "", "", "", *rps, "", "", "", "", "", "", *cpu])
    return table


def verdict(report: Mapping[str, Any]) -> str:
    total = report["summary"]
    config = report["config"]
    return (
        f"The gateway's req/s ÷ Apollo's: median {_n(total['rps apollo']['median'])},"
        f" worst {_n(total['rps apollo']['worst'])}; ÷ Strawberry's: median"
        f" {_n(total['rps strawberry']['median'])}, worst"
        f" {_n(total['rps strawberry']['worst'])}. Apollo's CPU per request ÷ the gateway's:"
        f" median {_n(total['cpu apollo']['median'])}, worst {_n(total['cpu apollo']['worst'])}"
        f" (> 1: the gateway spends less). Medians of {config['rounds']} round(s) of"
        f" {config['seconds']:g} s, wrk -t1 -c{config['connections']}, the servers' order"
        " rotated every round; CPU is each server process's own, from /proc."
    )


def render(report: Mapping[str, Any]) -> str:
    """The console's table."""
    return "\n".join(["", console_table(HEADER, rows(report)), "", verdict(report), ""])


def _versions(found: Mapping[str, str]) -> str:
    return ", ".join(f"{name} {version}" for name, version in found.items())


def markdown(report: Mapping[str, Any]) -> str:
    """peers.md: the table, what it means and what ran."""
    right = range(1, len(HEADER))
    lines: Sequence[str] = [
        "## Against the servers a team would write (`python -m bench peers`)",
        "",
        "The same six documents over the same table, served by the gateway (one uvicorn"
        " process, its defaults), Apollo Server 4 with the AWS SDK v3 DocumentClient and"
        " dataloader (`bench/peers/node`, NODE_ENV=production) and Strawberry with aioboto3"
        " and aiodataloader (`bench/peers/strawberry`, uvicorn, one worker), their resolvers"
        " written by hand. Each hand-written server's `data` equals the gateway's on every"
        " document before and after the load.",
        "",
        markdown_table(HEADER, rows(report), right=right),
        "",
        verdict(report),
        "",
        f"Ran on: {_versions(report['versions'])}.",
    ]
    return "\n".join(lines)
