"""The scale curve: three questions at growing table sizes, the gateway against a Scan.

    python -m bench.scale [--sizes 10000,100000,1000000] [--samples 100] [--scan-samples N]

Starts DynamoDB Local (in memory unless --db-path), creates the table, checks that the
items this bench builds are the ones the gateway writes (one real add_marker and one real
order status move, in a scratch table), and serves the real gateway with uvicorn. Then, for
each size in turn, it grows the table to exactly that many items with BatchWriteItem (the
fixed customer, product and map view first, then filler: other customers' orders, other
products' comments, markers elsewhere) and measures:

- the gateway: `--warmup` then `--samples` sequential requests of each question over HTTP,
  the three questions taking turns so that machine noise hits them alike; p50 and p99
  (the warm-up lasts at least 20 s at the first size: DynamoDB Local's JVM compiles its
  read path only then);
- the baseline: a Scan + FilterExpression of the whole table answering the same question
  (`--scan-samples` times; by default 5 up to 10^4 items, 3 up to 10^5, then 1), in
  parallel segments of about 10^4 items each (`--scan-segments` fixes their number; see
  `bench.scale_questions` for why a single segment is quadratic on DynamoDB Local).

The two answers must be equal (same ids in the same order, same fields, same "more"
flag). The fixed entities are about 3,750 items (100 comments of 33 items each), so the
smallest size must be at least that (or ask for fewer --comments). Prints a table and
writes bench/results/scale.json (`python -m bench.scale_report` renders it as markdown).
Exits 0 whatever the figures (it is a report), 1 when the answers differ.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from bench import load as http_load
from bench import scale_load as loading
from bench import scale_report as report
from bench import scale_write as writing
from bench.progress import Progress
from bench.scale_questions import (
    SCAN_PARALLEL,
    Answer,
    Question,
    ScanRun,
    describe,
    questions,
    scan,
)
from bench.servers import GATEWAY, REPOSITORY, serving
from gateway.dynamodb_local import DynamoDBLocal
from store.tables import create_table

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient
else:
    DynamoDBClient = Any

TABLE, SHAPE_TABLE = "scale", "scale-shape"
OUTPUT = REPOSITORY / "bench" / "results" / "scale.json"
SEGMENT_ITEMS = 10_000  # by default, a Scan segment per this many items
FIRST_WARMUP_SECONDS = 20.0


@dataclass(frozen=True)
class Options:
    sizes: list[int]
    samples: int
    warmup: int
    scan_samples: int | None  # None: by size
    scan_segments: int | None  # None: by size
    concurrency: int
    target: loading.Target
    seed: int
    db_path: Path | None
    output: Path

    def scans_at(self, size: int) -> int:
        if self.scan_samples is not None:
            return self.scan_samples
        return 5 if size <= 10_000 else 3 if size <= 100_000 else 1

    def segments_at(self, size: int) -> int:
        if self.scan_segments is not None:
            return self.scan_segments
        return max(1, math.ceil(size / SEGMENT_ITEMS))


def parse(argv: Sequence[str] | None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m bench.scale",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--sizes",
        default="10000,100000,1000000",
        help="table sizes in items, increasing (default 10000,100000,1000000)",
    )
    parser.add_argument(
        "--samples", type=int, default=100, help="gateway requests (default 100; p99 needs 100)"
    )
    parser.add_argument(
        "--warmup", type=int, default=20, help="discarded rounds first (default 20)"
    )
    parser.add_argument("--scan-samples", type=int, help="Scans per question and size")
    parser.add_argument(
        "--scan-segments", type=int, help="TotalSegments of the Scan (default: 1 per 10^4 items)"
    )
    parser.add_argument("--concurrency", type=int, default=8, help="BatchWriteItem calls at once")
    parser.add_argument("--orders", type=int, default=60, help="the customer's (default 60)")
    parser.add_argument("--comments", type=int, default=100, help="the product's (default 100)")
    parser.add_argument("--seed", type=int, default=6, help="random seed (default 6)")
    parser.add_argument("--db-path", type=Path, help="DynamoDB Local on disk here, not in memory")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="JSON results file")
    a = parser.parse_args(argv)
    try:
        sizes = [int(s.replace("_", "")) for s in a.sizes.split(",")]
    except ValueError:
        parser.error(f"--sizes {a.sizes!r}: give item counts separated by commas")
    if sizes != sorted(set(sizes)) or sizes[0] < 1:
        parser.error(f"--sizes {a.sizes!r}: give positive sizes in increasing order")
    if min(a.samples, a.concurrency, a.orders, a.comments) < 1 or a.warmup < 0:
        parser.error("--samples, --concurrency, --orders and --comments must be positive")
    if any(n is not None and n < 1 for n in (a.scan_samples, a.scan_segments)):
        parser.error("--scan-samples and --scan-segments must be positive")
    target = loading.Target(orders=a.orders, comments=a.comments)
    return Options(
        sizes, a.samples, a.warmup, a.scan_samples, a.scan_segments, a.concurrency, target,
        a.seed, a.db_path, a.output,
    )  # fmt: skip


class Mismatch(Exception):
    """The gateway and the Scan answered a question differently."""


# ---- the gateway -------------------------------------------------------------------------


@dataclass
class Asked:
    """One question's requests to the gateway at one size."""

    latencies_ms: list[float]
    answer: Answer | None = None
    cost: dict[str, Any] | None = None


async def ask(http: httpx.AsyncClient, url: str, question: Question) -> tuple[float, Any]:
    """One request: (milliseconds, the response body); RuntimeError on any error."""
    body = json.dumps({"query": question.graphql}).encode()
    sent = time.perf_counter()
    response = await http.post(url, content=body, headers={"content-type": "application/json"})
    elapsed = (time.perf_counter() - sent) * 1000
    answer: Any = response.json()
    if response.status_code != 200 or answer.get("errors"):
        raise RuntimeError(f"{question.name}: the gateway answered {response.status_code} {answer}")
    return elapsed, answer


async def ask_gateway(
    url: str, asked: Sequence[Question], options: Options, warm_seconds: float
) -> dict[str, Asked]:
    """Sequential requests, the questions taking turns; every answer must be the first.

    Warm-up: `options.warmup` rounds, and more until `warm_seconds` have passed.
    """
    out = {q.name: Asked([]) for q in asked}
    async with http_load.client(1) as http:
        warm_until = time.monotonic() + warm_seconds
        rounds = 0
        while rounds < options.warmup or time.monotonic() < warm_until:
            await _ask_all(http, url, asked, out, measured=False)
            rounds += 1
        for _ in range(options.samples):
            await _ask_all(http, url, asked, out, measured=True)
    return out


async def _ask_all(
    http: httpx.AsyncClient,
    url: str,
    asked: Sequence[Question],
    out: dict[str, Asked],
    *,
    measured: bool,
) -> None:
    for question in asked:
        ms, body = await ask(http, url, question)
        record = out[question.name]
        answer = question.from_gateway(body["data"])
        if record.answer is None:
            record.answer, record.cost = answer, body["extensions"]["cost"]
        elif answer != record.answer:
            raise Mismatch(f"{question.name}: the gateway's answer changed between requests")
        if measured:
            record.latencies_ms.append(ms)


# ---- the baseline ------------------------------------------------------------------------


async def scan_baseline(
    client: DynamoDBClient, question: Question, samples: int, segments: int, say: Progress
) -> list[ScanRun]:
    return [
        await scan(
            client, TABLE, question, segments, _reporter(f"{question.name} {n}/{samples}", say)
        )
        for n in range(1, samples + 1)
    ]


def _reporter(label: str, say: Progress) -> Callable[[int, int], None]:
    """A Scan's progress, said every 10 s: only long Scans say how far they are."""
    last = time.monotonic()

    def progress(calls: int, scanned: int) -> None:
        nonlocal last
        if time.monotonic() - last >= 10.0:
            last = time.monotonic()
            say(f"  Scan {label}: {calls} pages, {scanned:,} items")

    return progress


# ---- one size ----------------------------------------------------------------------------


async def at_size(
    client: DynamoDBClient,
    dataset: loading.Dataset,
    size: int,
    gateway: str,
    asked: Sequence[Question],
    options: Options,
    say: Progress,
) -> dict[str, Any]:
    loaded = await writing.load(
        client, TABLE, dataset.grow(size), say, concurrency=options.concurrency
    )
    say(
        f"{size:,} items: wrote {loaded.items:,} in {loaded.seconds:.1f} s,"
        f" {loaded.rate:,.0f} items/s ({loaded.calls:,} BatchWriteItem calls);"
        f" 10^6 items would take {writing.projected_seconds(loaded, report.MILLION) / 60:.1f} min"
    )
    # DynamoDB Local's JVM compiles its read path during the first requests it serves:
    # without a long first warm-up, the smallest size would look slow and the curve flat.
    warm = FIRST_WARMUP_SECONDS if size == options.sizes[0] else 0.0
    served = await ask_gateway(f"{gateway}/graphql", asked, options, warm)
    say(
        "  gateway p50: "
        + ", ".join(
            f"{q.name} {http_load.percentile(served[q.name].latencies_ms, 50):.1f} ms"
            for q in asked
        )
    )
    out: dict[str, Any] = {
        "items": size,
        "filler_items": dict(dataset.made),  # by kind, so far
        "load": report.load_record(loaded),
        "questions": {},
    }
    for question in asked:
        runs = await scan_baseline(
            client, question, options.scans_at(size), options.segments_at(size), say
        )
        mine = served[question.name]
        for run in runs:
            if run.answer != mine.answer:
                raise Mismatch(_difference(question, mine.answer, run.answer, size))
            if run.scanned != size:  # the bench's item count is exact, or its sizes lie
                raise AssertionError(
                    f"a Scan read {run.scanned:,} items; the table should hold {size:,}"
                )
        assert mine.answer is not None and mine.cost is not None
        record = report.question_record(mine.latencies_ms, mine.cost, mine.answer, runs)
        out["questions"][question.name] = record
        say(
            f"  {question.name}: Scan p50 {record['scan']['p50_ms']:,.1f} ms over {len(runs)},"
            f" {runs[0].calls} pages in {runs[0].segments} segments;"
            f" same {len(mine.answer.nodes)} nodes as the gateway"
        )
    return out


def _difference(question: Question, ours: Answer | None, theirs: Answer, size: int) -> str:
    assert ours is not None
    pairs = zip(ours.nodes, theirs.nodes, strict=False)
    first = next((n for n, (a, b) in enumerate(pairs) if a != b), None)
    where = "" if first is None else f" (first differing node: #{first + 1})"
    return (
        f"{question.name} at {size:,} items{where}: the gateway answered {ours.name!r}"
        f" {ours.ids} more={ours.more}; the Scan {theirs.name!r} {theirs.ids} more={theirs.more}"
    )


# ---- the run -----------------------------------------------------------------------------


async def prepare(endpoint: str, say: Progress) -> None:
    async with writing.open_client(endpoint) as client:
        await writing.shape_check(client, SHAPE_TABLE)
        say("shape check: one real add_marker and order status move wrote the bench's items")
        say(await create_table(client, TABLE))


async def measure(
    endpoint: str, gateway: str, options: Options, say: Progress
) -> list[dict[str, Any]]:
    dataset = loading.Dataset(options.target, options.seed)
    asked = questions(options.target)
    out = []
    async with writing.open_client(endpoint) as client:
        for size in options.sizes:
            out.append(await at_size(client, dataset, size, gateway, asked, options, say))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    say = Progress()
    fixed = loading.Dataset(options.target, options.seed).fixed_size
    if options.sizes[0] < fixed:
        print(
            f"--sizes: the fixed entities alone are {fixed:,} items, more than"
            f" {options.sizes[0]:,}; start higher or ask for fewer --comments",
            file=sys.stderr,
        )
        return 2
    env = {"DYNAGATE_TABLE": TABLE, "DYNAGATE_CURSOR_SECRET": "bench-cursor-secret"}
    with ExitStack() as stack:
        local = stack.enter_context(DynamoDBLocal(db_path=options.db_path))
        storage = "in memory" if options.db_path is None else f"in {options.db_path}"
        say(f"DynamoDB Local at {local.endpoint}, {storage}")
        asyncio.run(prepare(local.endpoint, say))
        env["DYNAGATE_DYNAMODB_ENDPOINT"] = local.endpoint
        gateway = stack.enter_context(serving(GATEWAY, env))
        say(f"gateway at {gateway.url}; fixed entities: {fixed:,} items")
        try:
            by_size = asyncio.run(measure(local.endpoint, gateway.url, options, say))
        except Mismatch as error:
            print(f"VERIFICATION FAILED: {error}", file=sys.stderr)
            return 1
    results = report.summarise(
        by_size, describe(questions(options.target)), _config(options, fixed)
    )
    print(report.render(results))
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results: {options.output}")
    return 0


def _config(options: Options, fixed: int) -> dict[str, Any]:
    t = options.target
    return {
        "sizes": options.sizes,
        "gateway_samples": options.samples,
        "gateway_warmup_rounds": options.warmup,
        "gateway_first_warmup_seconds": FIRST_WARMUP_SECONDS,
        "scan_samples": {str(s): options.scans_at(s) for s in options.sizes},
        "scan_segments": {str(s): options.segments_at(s) for s in options.sizes},
        "scan_parallel": SCAN_PARALLEL,
        "load_concurrency": options.concurrency,
        "fixed": {
            "items": fixed,
            "orders": t.orders,
            "comments": t.comments,
            "markers_inside": t.markers_inside,
            "markers_around": t.markers_around,
        },
        "filler_shares": loading.SHARES,
        "seed": options.seed,
        "dynamodb_local": "in memory" if options.db_path is None else "on disk",
        "flatness_target": report.FLAT_TARGET,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "note": "the bench, the gateway and DynamoDB Local share these CPUs",
        },
    }


if __name__ == "__main__":
    sys.exit(main())
