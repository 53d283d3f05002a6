"""Map (seed 002): what `markers` and `heatmap` read, and the range rule's trade-off.

    python -m bench.map [--per-view 300] [--margin 0.75] [--model-views 100]

1. Served: markers spread uniformly around small (0.01 deg), city (0.1 deg) and maximum
   (0.5 deg) views, five places each (one crossing the antimeridian), written to DynamoDB
   Local by BatchWriteItem as the very place items `add_marker` writes (checked against one
   real add_marker). Each view is read by the gateway's `search_markers` (limit 1000):
   requests, items scanned, markers returned and items read per marker returned, against
   the target (<= 8 Queries, <= 2x) and the test bound (<= 16, <= 4x).
2. Trade-off: the same views read with the ranges of other rules, a query budget
   (1 .. 32, `keys.map.marker_queries(view, budget)`) and a cover depth (a cell at most
   1/4, 1/8 or 1/16 of the view a side), through `Store.query`; beside the area model over
   many random views (expected items read per marker = area read / view area).
3. `heatmap` at the default precision: requests per view (<= 4 expected).

Prints progress and a report, writes bench/results/map.json. Exits 0 unless a read returned
other markers than the view holds (then 1).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import map_rules as rules
from bench import map_runs as runs
from bench import map_views as views
from bench.map_report import render
from bench.map_results import Options, Setup, median_max, rule_name, summarise
from bench.progress import Progress
from bench.servers import REPOSITORY
from gateway.dynamodb_local import DynamoDBLocal
from keys import map as map_keys
from store.client import open_client
from store.tables import create_table

OUTPUT = REPOSITORY / "bench" / "results" / "map.json"
TABLE, SHAPE_TABLE = "map", "map-shape"
CREATED = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
SCAN_BUDGETS = tuple(range(8, 17))

Say = Callable[[str], None]


def parse(argv: Sequence[str] | None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m bench.map",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--per-view", type=int, default=300, help="markers expected in a view (default 300)"
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=0.75,
        help="markers also fill this many view sides around a view (default 0.75)",
    )
    parser.add_argument(
        "--model-views", type=int, default=100, help="random views per kind, model (default 100)"
    )
    parser.add_argument("--seed", type=int, default=2, help="random seed (default 2)")
    parser.add_argument("--concurrency", type=int, default=8, help="reads at once (default 8)")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="JSON results file")
    a = parser.parse_args(argv)
    if not 50 <= a.per_view <= 900 or a.margin < 0 or a.model_views < 1 or a.concurrency < 1:
        parser.error("--per-view 50..900 (limit 1000), --margin >= 0, others positive")
    return Options(a.per_view, a.margin, a.model_views, a.seed, a.concurrency, a.output)


# ---- on paper ----------------------------------------------------------------------------


def model_random(
    options: Options, say: Say
) -> tuple[dict[int, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The area model over random views of each kind: (budget scan, per rule).

    Per rule: Queries, model ratio and plan CPU. The scan: every budget from 8 to 16 at the
    current depth, Queries and model ratio only.
    """
    rng = random.Random(options.seed)
    samples: dict[str, dict[str, list[float]]] = {}
    for kind in views.KINDS:
        for viewport in rules.random_views(kind.side, options.model_views, rng):
            for plan in rules.plans(viewport):
                s = samples.setdefault(rule_name(*plan.rule), {})
                s.setdefault("queries", []).append(len(plan.ranges))
                s.setdefault("ratio", []).append(rules.model_ratio(plan, viewport))
                s.setdefault(f"ratio_{kind.name}", []).append(rules.model_ratio(plan, viewport))
                s.setdefault("plan_ms", []).append(plan.plan_ms)
            # Budgets between the swept ones, at the current depth only.
            for plan in rules.plans(viewport, SCAN_BUDGETS, (rules.CURRENT[1],)):
                s = samples.setdefault(f"scan {plan.budget}", {})
                s.setdefault("queries", []).append(len(plan.ranges))
                s.setdefault("ratio", []).append(rules.model_ratio(plan, viewport))
    say(
        f"model: {options.model_views} random views per kind x {len(rules.BUDGETS)} budgets"
        f" x {len(rules.FRACTIONS)} depths planned"
    )
    scan = {
        int(name.split()[1]): {
            "queries": median_max(s["queries"]),
            "ratio": rules.spread(s["ratio"]).as_dict(),
        }
        for name, s in samples.items()
        if name.startswith("scan ")
    }
    return scan, {
        name: {
            "queries": median_max(s["queries"]),
            "ratio": rules.spread(s["ratio"]).as_dict(),
            "ratio_max_by_kind": {k.name: max(s[f"ratio_{k.name}"]) for k in views.KINDS},
            "plan_ms": median_max(s["plan_ms"]),
        }
        for name, s in samples.items()
        if not name.startswith("scan ")
    }


# ---- on DynamoDB Local -------------------------------------------------------------------


def prepare(options: Options, say: Say) -> Setup:
    all_views = views.views()
    fields = {f.view.label: f for f in views.fields(all_views, options.margin)}
    markers = views.spread(list(fields.values()), options.per_view, options.seed, CREATED)
    truth = {v.label: views.inside(markers.by_field[v.label], v) for v in all_views}
    plans = {}
    for view in all_views:
        plans[view.label] = rules.plans(view.viewport)
        rules.check_against_geo(view.viewport, plans[view.label])
    say(
        f"{len(all_views)} views, {len(markers.items):,} markers in their fields;"
        f" bench rules at 1/8 match keys.map.marker_queries for every view and budget"
    )
    return Setup(all_views, fields, markers, truth, plans)


async def on_local(endpoint: str, setup: Setup, options: Options, say: Say) -> dict[str, Any]:
    async with open_client(endpoint, "us-east-1", local=True, env={}) as client:
        shape = await runs.shape_check(client, SHAPE_TABLE)
        say("one real add_marker stored the same place item the bench writes")
        await create_table(client, TABLE)
        precision = {v.label: map_keys.default_precision(v.viewport) for v in setup.all_views}
        counts = views.count_items(setup.markers, precision)
        loaded = await runs.load(client, TABLE, setup.markers.items + counts)
        say(
            f"loaded {len(setup.markers.items):,} marker place items + {len(counts):,} cell"
            f" counts in {loaded['requests']:.0f} BatchWriteItem calls, {loaded['seconds']:.1f} s"
        )
        gate = asyncio.Semaphore(options.concurrency)

        async def served(view: views.View) -> runs.Run:
            async with gate:
                return await runs.served(client, TABLE, view.viewport)

        served_runs = await asyncio.gather(*(served(v) for v in setup.all_views))
        say(f"search_markers read all {len(setup.all_views)} views")

        distinct: dict[tuple[str, int, tuple[Any, ...]], rules.Plan] = {}
        for view in setup.all_views:
            for plan in setup.plans[view.label]:
                distinct.setdefault((view.label, plan.depth, plan.ranges), plan)
        labels = {v.label: v for v in setup.all_views}

        async def ranged(key: tuple[str, int, tuple[Any, ...]], plan: rules.Plan) -> runs.Run:
            async with gate:
                viewport = labels[key[0]].viewport
                return await runs.ranged(client, TABLE, viewport, plan.conditions())

        keys = list(distinct)
        done = await asyncio.gather(*(ranged(k, distinct[k]) for k in keys))
        by_key = dict(zip(keys, done, strict=True))
        say(f"trade-off: {len(keys)} distinct range sets read through Store.query")

        heat_views = setup.all_views + views.wide_views()

        async def heat(view: views.View) -> runs.HeatRun:
            async with gate:
                return await runs.heat(client, TABLE, view.viewport)

        heat_runs = await asyncio.gather(*(heat(v) for v in heat_views))
        say(f"heatmap at the default precision for {len(heat_views)} views")
    sweep = {
        (label, plan.rule): by_key[(label, plan.depth, plan.ranges)]
        for label, made in setup.plans.items()
        for plan in made
    }
    return {
        "shape": shape,
        "load": {**loaded, "markers": len(setup.markers.items), "cell_counts": len(counts)},
        "served": dict(zip([v.label for v in setup.all_views], served_runs, strict=True)),
        "sweep": sweep,
        "heat": list(zip(heat_views, heat_runs, strict=True)),
    }


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    say = Progress()
    scan, model = model_random(options, say)
    setup = prepare(options, say)
    with DynamoDBLocal() as local:
        say(f"DynamoDB Local at {local.endpoint}")
        measured = asyncio.run(on_local(local.endpoint, setup, options, say))
    results = summarise(setup, measured, model, options)
    results["model_budget_scan"] = {str(b): scan[b] for b in sorted(scan)}
    print(render(results))
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results: {options.output}")
    if results["wrong_results"]:
        print(f"WRONG MARKERS RETURNED: {results['wrong_results']}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
