"""bench.scale's results: the curve per question, the console table, the docs table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bench.report import console_table, markdown_table, percentile
from bench.scale_questions import Answer, ScanRun
from bench.scale_write import Loaded, projected_seconds

# The claim: the gateway's p50 at the largest size is within this factor of the smallest.
FLAT_TARGET = 1.2
MILLION = 1_000_000


def load_record(loaded: Loaded) -> dict[str, Any]:
    """One step of the load."""
    return {
        "items_written": loaded.items,
        "calls": loaded.calls,
        "seconds": round(loaded.seconds, 2),
        "items_per_second": round(loaded.rate),
        "projected_minutes_for_10^6": round(projected_seconds(loaded, MILLION) / 60, 1),
    }


def question_record(
    latencies_ms: list[float], cost: Mapping[str, Any], answer: Answer, runs: Sequence[ScanRun]
) -> dict[str, Any]:
    """One question at one size: the gateway's requests (with the `extensions.cost` of
    one) and the Scans."""
    return {
        "gateway": {
            "p50_ms": _2(percentile(latencies_ms, 50)),
            "p99_ms": _2(percentile(latencies_ms, 99)),
            "samples": len(latencies_ms),
            "requests": cost["requests"],
            "items_scanned": cost["itemsScanned"],
            "read_capacity_units": cost["readCapacityUnits"],
        },
        "scan": {
            "p50_ms": _2(percentile([r.ms for r in runs], 50)),
            "samples": len(runs),
            "ms": [_2(r.ms) for r in runs],
            "segments": runs[0].segments,
            "calls": runs[0].calls,
            "items_scanned": runs[0].scanned,
            "read_capacity_units": round(runs[0].rcu, 1),
        },
        "answer": {"nodes": len(answer.nodes), "more": answer.more},
    }


def _2(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def summarise(
    by_size: Sequence[Mapping[str, Any]],
    questions: Mapping[str, Mapping[str, str]],
    config: Mapping[str, Any],
) -> dict[str, Any]:
    """The measurements with, per question, its curve across sizes and the two ratios."""
    curve: dict[str, Any] = {}
    for name in questions:
        at = [size["questions"][name] for size in by_size]
        gateway = [a["gateway"]["p50_ms"] for a in at]
        scans = [a["scan"]["p50_ms"] for a in at]
        flatness = _ratio(gateway[-1], gateway[0])
        curve[name] = {
            "gateway_p50_ms": gateway,
            "gateway_p99_ms": [a["gateway"]["p99_ms"] for a in at],
            "gateway_items_scanned": [a["gateway"]["items_scanned"] for a in at],
            "scan_p50_ms": scans,
            "scan_items_scanned": [a["scan"]["items_scanned"] for a in at],
            "flatness": flatness,
            "flat": flatness is not None and flatness <= FLAT_TARGET,
            "scan_growth": _ratio(scans[-1], scans[0]),
        }
    first = by_size[0]["load"]
    some = next(iter(questions))
    return {
        "questions": questions,
        "sizes": [size["items"] for size in by_size],
        "curve": curve,
        "target": {
            "flatness": FLAT_TARGET,
            "met": len(by_size) > 1 and all(c["flat"] for c in curve.values()),
        },
        "load": {
            "items_per_second_at_first_size": first["items_per_second"],
            "projected_minutes_for_10^6": first["projected_minutes_for_10^6"],
            # The first step also warms DynamoDB Local's JVM up: later steps run faster.
            "items_per_second_by_size": [size["load"]["items_per_second"] for size in by_size],
        },
        "scan_segments": [size["questions"][some]["scan"]["segments"] for size in by_size],
        "by_size": list(by_size),
        "config": dict(config),
    }


def _ratio(last: float | None, first: float | None) -> float | None:
    return None if last is None or not first else round(last / first, 2)


def size_label(items: int) -> str:
    """`10^5` for a power of ten, else the count with separators."""
    text = str(items)
    if items >= 10 and text == "1" + "0" * (len(text) - 1):
        return f"10^{len(text) - 1}"
    return f"{items:,}"


def _times(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def _ms(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f} ms" if value >= 100 else f"{value:.1f} ms"


def _rows(results: Mapping[str, Any]) -> list[list[str]]:
    """question, reader, one cell per size, largest/smallest."""
    rows = []
    for name, c in results["curve"].items():
        title = results["questions"][name]["title"]
        p99 = c["gateway_p99_ms"]
        rows += [
            [title, "dynagate p50 (p99)"]
            + [f"{_ms(p50)} ({_ms(p99[i])})" for i, p50 in enumerate(c["gateway_p50_ms"])]
            + [_times(c["flatness"])],
            ["", "Scan + FilterExpression p50"]
            + [_ms(v) for v in c["scan_p50_ms"]]
            + [_times(c["scan_growth"])],
            ["", "items read: dynagate / Scan"]
            + [
                f"{ours:,} / {theirs:,}"
                for ours, theirs in zip(
                    c["gateway_items_scanned"], c["scan_items_scanned"], strict=True
                )
            ]
            + [""],
        ]
    return rows


def markdown(results: Mapping[str, Any]) -> str:
    """The curve as a markdown table for docs/performance.md, with the claim's verdict under it."""
    sizes = [size_label(s) for s in results["sizes"]]
    header = ["question", "", *sizes, "largest / smallest"]
    right = range(2, len(header))
    target = results["target"]
    verdict = "holds" if target["met"] else "does not hold"
    flatness = ", ".join(
        f"{results['questions'][n]['title'].lower()} {_times(c['flatness'])}"
        for n, c in results["curve"].items()
    )
    return "\n".join(
        [
            markdown_table(header, _rows(results), right),
            "",
            f"Flatness (dynagate p50 at {sizes[-1]} items over {sizes[0]}): target at most"
            f" {target['flatness']}x, {verdict}: {flatness}.",
            "",
            _scan_note(results),
        ]
    )


def _scan_note(results: Mapping[str, Any]) -> str:
    segments = ", ".join(str(n) for n in results["scan_segments"])
    return (
        f"Scan: a parallel Scan with the FilterExpression, every segment read to its end"
        f" ({segments} segments by size); dynagate: the gateway over HTTP, sequential requests."
    )


def render(results: Mapping[str, Any]) -> str:
    """The console table."""
    sizes = [size_label(s) for s in results["sizes"]]
    load = results["load"]
    by_step = ", ".join(f"{r:,}" for r in load["items_per_second_by_size"])
    return "\n".join(
        [
            "",
            console_table(["question", "", *sizes, "largest/smallest"], _rows(results), left=2),
            "",
            f"load: {load['items_per_second_at_first_size']:,} items/s at the first size;"
            f" 10^6 items would take about {load['projected_minutes_for_10^6']} min at that rate"
            f" (items/s by step: {by_step})",
            f"flatness target <= {results['target']['flatness']}x:"
            f" {'MET' if results['target']['met'] else 'NOT MET'}",
            _scan_note(results),
        ]
    )
