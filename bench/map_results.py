"""The results of bench.map: its settings, the views it prepared, and the summary of what
was read (served reads, the rule trade-off, heatmap, recommendation) written to map.json."""

from __future__ import annotations

import platform
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import map_rules as rules
from bench import map_runs as runs
from bench import map_views as views
from data.map import MAX_LIMIT


@dataclass(frozen=True)
class Options:
    """The bench's settings, from the command line (`bench.map.parse`)."""

    per_view: int
    margin: float
    model_views: int
    seed: int
    concurrency: int
    output: Path


@dataclass(frozen=True)
class Setup:
    """The views, their marker fields and items, the markers in each view, their plans."""

    all_views: list[views.View]
    fields: dict[str, views.Field]
    markers: views.Markers
    truth: dict[str, set[str]]
    plans: dict[str, list[rules.Plan]]


def median_max(values: Sequence[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "max": max(values)}


def rule_name(budget: int, fraction: int) -> str:
    return f"{budget} @1/{fraction}"


def summarise(
    setup: Setup, local: dict[str, Any], model: dict[str, dict[str, Any]], options: Options
) -> dict[str, Any]:
    served: dict[str, runs.Run] = local["served"]
    sweep: dict[tuple[str, tuple[int, int]], runs.Run] = local["sweep"]
    wrong = [label for label, run in served.items() if run.ids != setup.truth[label]] + sorted(
        {
            f"{label} rule {rule_name(*rule)}"
            for (label, rule), run in sweep.items()
            if run.ids != setup.truth[label]
        }
    )
    view_rows = []
    for view in setup.all_views:
        plan = next(p for p in setup.plans[view.label] if p.rule == rules.CURRENT)
        run = served[view.label]
        same_as_sweep = sweep[(view.label, rules.CURRENT)].as_dict() == run.as_dict()
        view_rows.append(
            {
                "kind": view.kind,
                "place": view.place,
                "viewport": view.describe(),
                "crosses_antimeridian": view.viewport.west > view.viewport.east,
                "depth": plan.depth,
                "ranges": len(plan.ranges),
                "in_view": len(setup.truth[view.label]),
                "field_markers": len(setup.markers.by_field[view.label]),
                **run.as_dict(),
                "model_ratio": rules.model_ratio(plan, view.viewport),
                "coverage": rules.coverage(plan, setup.fields[view.label].boxes),
                "same_as_sweep_current_rule": same_as_sweep,
            }
        )
    served_summary = {}
    for kind in views.KINDS:
        rows = [r for r in view_rows if r["kind"] == kind.name]
        requests = median_max([r["requests"] for r in rows])
        ratio = median_max([r["ratio"] or 0.0 for r in rows])
        served_summary[kind.name] = {
            "requests": requests,
            "ratio": ratio,
            "target_median": requests["median"] <= rules.TARGET_QUERIES
            and ratio["median"] <= rules.TARGET_RATIO,
            "target_max": requests["max"] <= rules.TARGET_QUERIES
            and ratio["max"] <= rules.TARGET_RATIO,
            "bound_max": requests["max"] <= rules.BOUND_QUERIES
            and ratio["max"] <= rules.BOUND_RATIO,
        }
    trade = []
    for budget in rules.BUDGETS:
        for fraction in rules.FRACTIONS:
            rule = (budget, fraction)
            name = rule_name(*rule)
            measured = [(v, sweep[(v.label, rule)]) for v in setup.all_views]
            made = {
                v.label: next(p for p in setup.plans[v.label] if p.rule == rule)
                for v in setup.all_views
            }
            ratios = [r.ratio or 0.0 for _, r in measured]
            trade.append(
                {
                    "rule": name,
                    "budget": budget,
                    "fraction": fraction,
                    "measured": {
                        "requests": median_max([r.requests for _, r in measured]),
                        "ratio": median_max(ratios),
                        "ratio_max_by_kind": {
                            k.name: max(r.ratio or 0.0 for v, r in measured if v.kind == k.name)
                            for k in views.KINDS
                        },
                        "model_ratio_same_views": median_max(
                            [rules.model_ratio(made[v.label], v.viewport) for v in setup.all_views]
                        ),
                        "coverage_min": min(
                            rules.coverage(made[v.label], setup.fields[v.label].boxes)
                            for v in setup.all_views
                        ),
                        "depths": sorted({p.depth for p in made.values()}),
                    },
                    "model_random": model[name],
                }
            )
    heat_rows = [
        {"kind": v.kind, "place": v.place, "side": v.side, **h.as_dict()} for v, h in local["heat"]
    ]
    return {
        "config": {
            "per_view": options.per_view,
            "margin_view_sides": options.margin,
            "model_views_per_kind": options.model_views,
            "seed": options.seed,
            "limit": MAX_LIMIT,
            "budgets": list(rules.BUDGETS),
            "fractions": list(rules.FRACTIONS),
            "current_rule": rule_name(*rules.CURRENT),
            "target": {"queries": rules.TARGET_QUERIES, "ratio": rules.TARGET_RATIO},
            "bound": {"queries": rules.BOUND_QUERIES, "ratio": rules.BOUND_RATIO},
        },
        "density_per_square_degree": setup.markers.density,
        "load": local["load"],
        "shape_check": local["shape"],
        "views": view_rows,
        "served_summary": served_summary,
        "trade_off": trade,
        "heatmap": heat_rows,
        "recommendation": recommend(trade),
        "wrong_results": wrong,
        "served_equals_sweep_current_rule": all(r["same_as_sweep_current_rule"] for r in view_rows),
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
    }


def recommend(trade: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The rule with the fewest items read in the worst case among those within 8 Queries.

    Worst case = the larger of the measured maximum and the random-view model's maximum.
    A rule within 2% of the best on that, and on the median, counts as as good; of those
    the current rule is kept, else the one with the fewest queries and the cheapest plan.
    """

    def worst(row: dict[str, Any]) -> float:
        return float(max(row["measured"]["ratio"]["max"], row["model_random"]["ratio"]["max"]))

    def typical(row: dict[str, Any]) -> float:
        return float(row["model_random"]["ratio"]["median"])

    def queries(row: dict[str, Any]) -> float:
        return float(max(row["measured"]["requests"]["max"], row["model_random"]["queries"]["max"]))

    within = [r for r in trade if queries(r) <= rules.TARGET_QUERIES]
    best = min(within, key=lambda r: (worst(r), typical(r)))
    as_good = [
        r for r in within if worst(r) <= worst(best) * 1.02 and typical(r) <= typical(best) * 1.02
    ]
    current = rule_name(*rules.CURRENT)
    chosen = next(
        (r for r in as_good if r["rule"] == current),
        min(as_good, key=lambda r: (queries(r), r["model_random"]["plan_ms"]["median"])),
    )
    meets_worst = sorted(
        (r for r in trade if worst(r) <= rules.TARGET_RATIO),
        key=lambda r: (queries(r), r["model_random"]["plan_ms"]["median"]),
    )
    now = next(r for r in trade if r["rule"] == current)
    return {
        "chosen": chosen["rule"],
        "best_within_target_queries": best["rule"],
        "as_good": [r["rule"] for r in as_good],
        "current": current,
        "current_queries_max": queries(now),
        "current_ratio_median": typical(now),
        "current_ratio_worst": worst(now),
        "current_meets_target_median": queries(now) <= rules.TARGET_QUERIES
        and typical(now) <= rules.TARGET_RATIO,
        "current_meets_target_worst": queries(now) <= rules.TARGET_QUERIES
        and worst(now) <= rules.TARGET_RATIO,
        "current_meets_bound": queries(now) <= rules.BOUND_QUERIES
        and worst(now) <= rules.BOUND_RATIO,
        "fewest_queries_with_worst_ratio_within_target": (
            {"rule": meets_worst[0]["rule"], "queries_max": queries(meets_worst[0])}
            if meets_worst
            else None
        ),
    }
