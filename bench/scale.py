"""The scale curve: three questions at growing table sizes, the gateway against a Scan.

Starts DynamoDB Local (in memory unless --db-path), creates the table, checks that the
items this bench builds are the ones the gateway writes (one real add_marker and one real
order status move, in a scratch table), and serves the real gateway with uvicorn. Then, for
each size in turn, it grows the table to exactly that many items with BatchWriteItem (the
fixed customer, product and map view first, then filler: other customers' orders, other
products' comments, markers elsewhere) and measures:

- the gateway: `--warmup` then `--samples` sequential requests of each question over HTTP,
  the three questions taking turns so that machine noise hits them alike; p50 and p99
  (the warm-up lasts at least `--first-warmup` seconds at the first size: DynamoDB Local's
  JVM compiles its read path only then). One request at a time, each answer checked: a
  latency sample, not a load (wrk is the load generator);
- the baseline: a Scan + FilterExpression of the whole table answering the same question
  (`--scan-samples` times; by default 5 up to 10^4 items, 3 up to 10^5, then 1), in
  parallel segments of about 10^4 items each (`--scan-segments` fixes their number; see
  `bench.scale_questions` for why a single segment is quadratic on DynamoDB Local).

The two answers must be equal (same ids in the same order, same fields, same "more"
flag). The fixed entities are about 3,750 items (100 comments of 33 items each), so the
smallest size must be at least that (or ask for fewer --comments). Prints a table and
writes scale.json and scale.md (the table of docs/performance.md). Exits 0 whatever the
figures (it is a report), 1 when the answers differ.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench import report
from bench import scale_load as loading
from bench import scale_report as summary
from bench import scale_write as writing
from bench.arguments import Option, arguments, not_negative, positive_int, whole_number
from bench.harness import Benchmark, Context, Progress, Table, dynamodb_local
from bench.scale_questions import (
    SCAN_PARALLEL,
    Answer,
    Mismatch,
    Question,
    ScanRun,
    ask_gateway,
    describe,
    questions,
    scan,
)
from bench.servers import GATEWAY, serving
from store.tables import create_table

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient
else:
    DynamoDBClient = Any

TABLE, SHAPE_TABLE = "scale", "scale-shape"
SEGMENT_ITEMS = 10_000  # by default, a Scan segment per this many items


@dataclass(frozen=True)
class Options:
    sizes: list[int]
    samples: int
    warmup: int
    first_warmup: float  # seconds, at the first size
    scan_samples: int | None  # None: by size
    scan_segments: int | None  # None: by size
    concurrency: int
    target: loading.Target
    seed: int
    db_path: Path | None

    def scans_at(self, size: int) -> int:
        if self.scan_samples is not None:
            return self.scan_samples
        return 5 if size <= 10_000 else 3 if size <= 100_000 else 1

    def segments_at(self, size: int) -> int:
        if self.scan_segments is not None:
            return self.scan_segments
        return max(1, math.ceil(size / SEGMENT_ITEMS))


def sizes(text: str) -> list[int]:
    """An argument type: item counts, increasing, separated by commas."""
    try:
        values = [int(s.replace("_", "")) for s in text.split(",")]
    except ValueError as exc:
        message = f"{text!r}: give item counts separated by commas"
        raise argparse.ArgumentTypeError(message) from exc
    if values != sorted(set(values)) or values[0] < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give positive sizes in increasing order")
    return values


add_arguments = arguments(
    Option("--sizes", sizes, [10_000, 100_000, 1_000_000], "table sizes in items, increasing"),
    Option("--samples", positive_int, 100, "gateway requests", shown="100; p99 needs 100"),
    Option("--warmup", whole_number, 20, "discarded rounds first"),
    Option("--first-warmup", not_negative, 20.0, "seconds of warm-up at least, at the first size"),
    Option("--scan-samples", positive_int, None, "Scans per question and size"),
    Option(
        "--scan-segments",
        positive_int,
        None,
        "TotalSegments of the Scan (default: 1 per 10^4 items)",
    ),
    Option("--concurrency", positive_int, 8, "BatchWriteItem calls at once"),
    Option("--orders", positive_int, 60, "the customer's"),
    Option("--comments", positive_int, 100, "the product's"),
    Option("--seed", int, 6, "random seed"),
    Option("--db-path", Path, None, "DynamoDB Local on disk here, not in memory"),
)


def options(args: argparse.Namespace) -> Options:
    target = loading.Target(orders=args.orders, comments=args.comments)
    return Options(
        args.sizes, args.samples, args.warmup, args.first_warmup, args.scan_samples,
        args.scan_segments, args.concurrency, target, args.seed, args.db_path,
    )  # fmt: skip


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
        f" 10^6 items would take {writing.projected_seconds(loaded, summary.MILLION) / 60:.1f} min"
    )
    # DynamoDB Local's JVM compiles its read path during the first requests it serves:
    # without a long first warm-up, the smallest size would look slow and the curve flat.
    warm = options.first_warmup if size == options.sizes[0] else 0.0
    served = await ask_gateway(f"{gateway}/graphql", asked, options.warmup, options.samples, warm)
    say(
        "  gateway p50: "
        + ", ".join(
            f"{q.name} {report.percentile(served[q.name].latencies_ms, 50):.1f} ms" for q in asked
        )
    )
    out: dict[str, Any] = {
        "items": size,
        "filler_items": dict(dataset.made),  # by kind, so far
        "load": summary.load_record(loaded),
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
        record = summary.question_record(mine.latencies_ms, mine.cost, mine.answer, runs)
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


def run(args: argparse.Namespace, context: Context) -> int:
    chosen = options(args)
    say = context.say
    fixed = loading.Dataset(chosen.target, chosen.seed).fixed_size
    if chosen.sizes[0] < fixed:
        print(
            f"--sizes: the fixed entities alone are {fixed:,} items, more than"
            f" {chosen.sizes[0]:,}; start higher or ask for fewer --comments",
            file=sys.stderr,
        )
        return 2
    with ExitStack() as stack:
        local = stack.enter_context(dynamodb_local(say, chosen.db_path))
        asyncio.run(prepare(local.endpoint, say))
        gateway = stack.enter_context(serving(GATEWAY, Table(local.endpoint, TABLE).env))
        say(f"gateway at {gateway.url}; fixed entities: {fixed:,} items")
        try:
            by_size = asyncio.run(measure(local.endpoint, gateway.url, chosen, say))
        except Mismatch as error:
            print(f"VERIFICATION FAILED: {error}", file=sys.stderr)
            return 1
    results = summary.summarise(by_size, describe(questions(chosen.target)), _config(chosen, fixed))
    print(summary.render(results))
    context.write("scale", results, summary.markdown(results))
    return 0


def _config(options: Options, fixed: int) -> dict[str, Any]:
    t = options.target
    return {
        "sizes": options.sizes,
        "gateway_samples": options.samples,
        "gateway_warmup_rounds": options.warmup,
        "gateway_first_warmup_seconds": options.first_warmup,
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
        "flatness_target": summary.FLAT_TARGET,
        "machine": report.machine(),
    }


BENCHMARK = Benchmark(
    "scale",
    "three reads as the table grows to 10^6 items, against a Scan (about 6 minutes)",
    __doc__ or "",
    add_arguments,
    run,
    quick={
        "sizes": [1_000, 2_000],
        "samples": 5,
        "warmup": 1,
        "first_warmup": 0.0,
        "scan_samples": 1,
        "comments": 10,
    },
)
