"""The printed report of bench.map: served reads, the rule trade-off, heatmap, verdict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def _mm(pair: Mapping[str, float], spec: str) -> str:
    return f"{format(pair['median'], spec)}/{format(pair['max'], spec)}"


def setup(results: Mapping[str, Any]) -> list[str]:
    config, load = results["config"], results["load"]
    density = ", ".join(f"{k} {v:,.0f}" for k, v in results["density_per_square_degree"].items())
    return [
        "",
        f"Setup: {load['markers']:,} markers (about {config['per_view']} per view, uniform over"
        f" a square {config['margin_view_sides']:g} view sides wider than the view on each side)"
        f" + {load['cell_counts']:,} cell counts at each view's heatmap precision;"
        f" {load['requests']:.0f} BatchWriteItem calls in {load['seconds']:.1f} s.",
        f"       markers per square degree: {density}. Place items identical to add_marker's:"
        f" {_yes(results['shape_check']['same_as_add_marker'])}; search_markers reads exactly"
        f" what the trade-off's {config['current_rule']} reads on every view:"
        f" {_yes(results['served_equals_sweep_current_rule'])}.",
        f"       target: <= {config['target']['queries']} Queries and <= "
        f"{config['target']['ratio']:g} items read per marker returned; test bound: <= "
        f"{config['bound']['queries']}, <= {config['bound']['ratio']:g}.",
    ]


def served(results: Mapping[str, Any]) -> list[str]:
    lines = [
        "",
        f"1. markers as served: search_markers(Store, viewport, limit={results['config']['limit']})"
        f" with rule {results['config']['current_rule']} (budget @ cover cells at most 1/N of the"
        " view a side)",
        f"   {'view':<22} {'viewport':<44} {'depth':>5} {'ranges':>6} {'requests':>8}"
        f" {'scanned':>7} {'returned':>8} {'in view':>7} {'ratio':>6} {'model':>6} {'cover':>6}"
        f" {'RCU':>5}",
    ]
    for r in results["views"]:
        lines.append(
            f"   {r['kind'] + '/' + r['place']:<22} {r['viewport']:<44} {r['depth']:>5}"
            f" {r['ranges']:>6} {r['requests']:>8} {r['itemsScanned']:>7} {r['returned']:>8}"
            f" {r['in_view']:>7} {r['ratio'] or 0.0:>6.2f} {r['model_ratio']:>6.2f}"
            f" {r['coverage']:>6.0%} {r['rcu']:>5g}"
        )
    lines += [
        "   ratio = items scanned / markers returned; model = area read / view area (uniform"
        " density everywhere); cover = share of the area read that holds bench markers;"
        " RCU as DynamoDB Local reports it",
        "",
        f"   {'kind':<6} {'requests med/max':>16} {'ratio med/max':>14}"
        f" {'target (median)':>15} {'target (max)':>12} {'test bound (max)':>16}",
    ]
    for kind, s in results["served_summary"].items():
        lines.append(
            f"   {kind:<6} {_mm(s['requests'], 'g'):>16} {_mm(s['ratio'], '.2f'):>14}"
            f" {_yes(s['target_median']):>15} {_yes(s['target_max']):>12}"
            f" {_yes(s['bound_max']):>16}"
        )
    return lines


def trade_off(results: Mapping[str, Any]) -> list[str]:
    views = len(results["views"])
    model_views = results["config"]["model_views_per_kind"]
    lines = [
        "",
        f"2. Trade-off: rule = query budget @ cover cells at most 1/N of the view a side."
        f" Measured on the {views} views above (Store.query, same read loop as search_markers);"
        f" model over {model_views} random views per kind x 3 kinds.",
        f"   {'':15} | {'measured':^59} | {'model, random views':^49}",
        f"   {'rule':<9} {'dep':>5} | {'req med/max':>11} {'ratio med/max':>13}"
        f" {'max small/city/max':>18} {'cover':>5} {'model':>5} |"
        f" {'Q max':>5} {'ratio med/p90/max':>17} {'max small/city/max':>18} {'ms':>5}",
    ]
    for row in results["trade_off"]:
        m, r = row["measured"], row["model_random"]
        by_kind = "/".join(f"{v:.2f}" for v in m["ratio_max_by_kind"].values())
        model_kind = "/".join(f"{v:.2f}" for v in r["ratio_max_by_kind"].values())
        depths = ",".join(str(d) for d in m["depths"])
        ratio = r["ratio"]
        lines.append(
            f"   {row['rule']:<9} {depths:>5} | {_mm(m['requests'], 'g'):>11}"
            f" {_mm(m['ratio'], '.2f'):>13} {by_kind:>18} {m['coverage_min']:>5.0%}"
            f" {m['model_ratio_same_views']['max']:>5.2f} |"
            f" {r['queries']['max']:>5g}"
            f" {ratio['median']:>5.2f}/{ratio['p90']:.2f}/{ratio['max']:<5.2f}"
            f" {model_kind:>18} {r['plan_ms']['median']:>5.1f}"
        )
    lines += [
        "   dep = cover depths used (geohash length; differs by view kind); cover = least share"
        " of the area read that holds markers (below 100% the measured ratio is an"
        " underestimate: the bench fills only a square around each view); model = model ratio"
        " max on the same views;",
        "   Q max = most Queries (before paging); ms = median CPU to plan the ranges in Python.",
    ]
    return lines


def heatmap(results: Mapping[str, Any]) -> list[str]:
    lines = [
        "",
        "3. heatmap at the default precision (one Query per partition of cells 3 shorter)",
        f"   {'view':<36} {'side':>5} {'precision':>9} {'partitions':>10} {'requests':>8}"
        f" {'scanned':>7} {'cells':>6} {'markers':>7} {'<= 4':>5}",
    ]
    for h in results["heatmap"]:
        lines.append(
            f"   {h['kind'] + '/' + h['place']:<36} {h['side']:>5g} {h['precision']:>9}"
            f" {h['partitions']:>10} {h['requests']:>8} {h['itemsScanned']:>7} {h['cells']:>6}"
            f" {h['markers']:>7} {_yes(h['requests'] <= 4):>5}"
        )
    lines += [
        "   scanned = count items read (each Query spans its partition's first to last cell in"
        " the view, so it reads cells outside it; only cells near bench markers exist);"
        " wide views hold no bench counts at their precision: requests only",
    ]
    return lines


def verdict(results: Mapping[str, Any]) -> list[str]:
    rec = results["recommendation"]
    fewest = rec["fewest_queries_with_worst_ratio_within_target"]
    lines = [
        "",
        f"4. Verdict. Current rule {rec['current']}: at most {rec['current_queries_max']:g}"
        f" Queries; items read per marker returned median {rec['current_ratio_median']:.2f},"
        f" worst {rec['current_ratio_worst']:.2f} (larger of measured and model).",
        f"   target on the median: {_yes(rec['current_meets_target_median'])};"
        f" target in the worst case: {_yes(rec['current_meets_target_worst'])};"
        f" test bound: {_yes(rec['current_meets_bound'])}.",
        f"   Within the target's Queries, the lowest worst-case ratio is"
        f" {rec['best_within_target_queries']}; as good (within 2%): {', '.join(rec['as_good'])};"
        f" chosen: {rec['chosen']}.",
    ]
    if fewest is None:
        lines.append("   No rule keeps the worst-case ratio within the target.")
    else:
        lines.append(
            f"   Fewest Queries that keep the worst case within"
            f" {results['config']['target']['ratio']:g} items per marker: {fewest['rule']}"
            f" ({fewest['queries_max']:g} Queries)."
        )
    scan = results.get("model_budget_scan", {})
    if scan:
        cells = ", ".join(
            f"{b}: {s['ratio']['median']:.2f}/{s['ratio']['max']:.2f}" for b, s in scan.items()
        )
        lines.append(f"   Model by budget at the current depth (median/max ratio): {cells}.")
    if results["wrong_results"]:
        lines.append(f"   WRONG MARKERS RETURNED: {results['wrong_results']}")
    return lines


def render(results: Mapping[str, Any]) -> str:
    return "\n".join(
        setup(results) + served(results) + trade_off(results) + heatmap(results) + verdict(results)
    )
