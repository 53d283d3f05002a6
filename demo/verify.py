"""`dynagate verify [--repair]`: every comment's 32 copies checked against the comment, and
the heatmap's counts of cells of lengths 2 and 1 against their children's.

The check and the repair are the access patterns' (`data/copies/verify.py`, which says
what each kind of difference means and how it is repaired); this is the command: progress
bars, the report and its exit code.

Exit codes: 0 when nothing differs, or `--repair` fixed every difference; 1 when
differences remain (found without `--repair`, skipped, failed or invalid).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, get_args

from tqdm import tqdm

from demo.model.comments import COMMENT
from demo.model.markers import MARKER_PLACES
from dynagate import Store, copies_verify, rebuild_short_counts, short_count_differences

if TYPE_CHECKING:
    from dynagate import DynamoDBClient

SEGMENTS = 4
REPAIR_CONCURRENCY = 8


@dataclass
class Report:
    scanned: int
    comments: int
    differences: list[copies_verify.Difference]
    repair: bool = False
    outcomes: dict[str, copies_verify.Outcome] = field(default_factory=dict)  # partition -> outcome
    # Heatmap cells whose count differs from their children's; rebuilt by a repair.
    counts: list[str] = field(default_factory=list)
    counts_rebuilt: int | None = None

    @property
    def exit_code(self) -> int:
        """0 when nothing differs or every difference was repaired, else 1."""
        copies = any(self.outcomes.get(d.partition) != "repaired" for d in self.differences)
        return int(copies or (bool(self.counts) and self.counts_rebuilt is None))


def render(report: Report, limit: int = 50) -> list[str]:
    """Totals, counts per kind, then one line per damaged partition (the first `limit`)."""
    differences = report.differences
    totals = [f"{sum(len(d.by_kind()[k]) for d in differences)} {k}" for k in copies_verify.KINDS]
    invalid = sum(d.invalid is not None for d in differences)
    lines = [
        f"scanned {report.scanned} items: {report.comments} comments",
        f"copies: {', '.join(totals)}; invalid comment items: {invalid}",
        *(_line(d, report.outcomes.get(d.partition)) for d in differences[:limit]),
    ]
    if len(differences) > limit:
        lines.append(f"… and {len(differences) - limit} more")
    done = list(report.outcomes.values())
    if report.repair:
        lines.append(
            "repair: " + ", ".join(f"{done.count(o)} {o}" for o in get_args(copies_verify.Outcome))
        )
    repaired = f", {done.count('repaired')} repaired" if report.repair else ""
    verdict = "clean" if report.exit_code == 0 else "differences remain"
    counts = [f"heatmap counts of lengths 1 and 2: {len(report.counts)} differ"] * bool(
        report.counts
    )
    counts += [f"  {cell}" for cell in report.counts[:limit]]
    if report.counts_rebuilt is not None:
        counts.append(f"  rebuilt {report.counts_rebuilt} cells from their children")
    return [
        *lines,
        *counts,
        f"{len(differences)} damaged comment partitions{repaired}; {verdict}",
    ]


def _line(
    difference: copies_verify.Difference, outcome: copies_verify.Outcome | None, shown: int = 5
) -> str:
    parts = [
        f"{kind} {len(keys)} ({' '.join(keys[:shown])}{' …' if len(keys) > shown else ''})"
        for kind, keys in difference.by_kind().items()
        if keys
    ]
    if difference.invalid is not None:
        parts.append(f"invalid: {difference.invalid}")
    suffix = "" if outcome is None else f" [{outcome}]"
    return f"  {difference.partition}: " + "; ".join(parts) + suffix


async def verify(
    client: DynamoDBClient,
    table: str,
    *,
    repair: bool = False,
    segments: int = SEGMENTS,
    progress: bool = True,
) -> Report:
    """Scan, compare and (with `repair`) fix; the progress bars go to stderr."""
    store = Store(client, table)
    with tqdm(desc="scanning", unit="item", disable=not progress) as bar:
        items, scanned = await copies_verify.scan_partitions(store, COMMENT, segments, bar.update)
    partitions = copies_verify.group(COMMENT, items)
    differences = [copies_verify.diff(COMMENT, p.primary, p.copies) for p in partitions.values()]
    report = Report(
        scanned=scanned,
        comments=sum(p.primary is not None for p in partitions.values()),
        differences=sorted((d for d in differences if not d.clean), key=lambda d: d.partition),
        repair=repair,
    )
    if repair and report.differences:
        limit = asyncio.Semaphore(REPAIR_CONCURRENCY)
        with tqdm(
            total=len(report.differences), desc="repairing", unit="comment", disable=not progress
        ) as bar:

            async def fix(difference: copies_verify.Difference) -> None:
                async with limit:
                    report.outcomes[difference.partition] = await copies_verify.repair_one(
                        store, difference
                    )
                bar.update()

            await asyncio.gather(*(fix(d) for d in report.differences))
    report.counts = await short_count_differences(store, MARKER_PLACES)
    if repair and report.counts:
        report.counts_rebuilt = await rebuild_short_counts(store, MARKER_PLACES)
    return report
