"""Results and their tables: every benchmark writes `<name>.json` (all it measured) and
`<name>.md` (the tables docs/performance.md shows) into one directory, `bench/results/`
unless asked otherwise; the same rows print as a console table."""

from __future__ import annotations

import json
import math
import os
import platform
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def write(directory: Path, name: str, results: Mapping[str, Any], markdown: str) -> list[Path]:
    """`directory/<name>.json` and `directory/<name>.md`; the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    data, tables = directory / f"{name}.json", directory / f"{name}.md"
    data.write_text(json.dumps(results, indent=2) + "\n")
    tables.write_text(markdown.rstrip("\n") + "\n")
    return [data, tables]


def machine() -> dict[str, Any]:
    """Where the figures were taken: they mean little without it."""
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "note": "the benchmark, its servers and DynamoDB Local share these CPUs",
    }


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()
) -> str:
    """A markdown table; the columns numbered in `right` are aligned right."""
    rule = ["---:" if i in right else "---" for i in range(len(header))]
    return "\n".join("| " + " | ".join(row) + " |" for row in [header, rule, *rows])


def console_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """Columns padded to their widest cell: the first `left` to the left, the rest right."""
    table = [list(header), *map(list, rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) if i < left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in table
    )


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (`q` in 0..100) of `values`; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]
