"""The printed report of bench.comments: one table per question, then the rules used."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bench.comments_sizes import RULES


def _spread(s: Mapping[str, float]) -> str:
    return f"{s['min']:g} / {s['mean']:.1f} / {s['max']:g}"


def key_bytes(section: Mapping[str, Any]) -> list[str]:
    rows, summary = section["by_rating"], section["summary"]
    lines = [
        f"a. Key bytes holding the rating set: SK + GSI1PK over one comment's 32 copies"
        f" (product {section['product_id']!r}; identical for every language)",
        f"   {'rating':>6}  {'bitmask SK':>10} {'GSI1PK':>6} {'total':>5}"
        f"   {'dotted SK':>9} {'GSI1PK':>6} {'total':>5}   {'dotted extra':>12}",
    ]
    for r in rows:
        b, d = r["bitmask"], r["dotted"]
        lines.append(
            f"   {r['rating']:>6}  {b['sk']:>10} {b['gsi1pk']:>6} {b['total']:>5}"
            f"   {d['sk']:>9} {d['gsi1pk']:>6} {d['total']:>5}   {r['dotted_extra']:>+12}"
        )
    lines += [
        f"   per comment, min / mean / max over ratings: bitmask"
        f" {_spread(summary['bitmask']['per_comment'])} B, dotted"
        f" {_spread(summary['dotted']['per_comment'])} B, dotted extra"
        f" {_spread(summary['dotted_extra_per_comment'])} B",
        f"   per copy (mean): bitmask {summary['bitmask']['per_copy_mean']:.1f} B,"
        f" dotted {summary['dotted']['per_copy_mean']:.1f} B",
    ]
    return lines


def write_cost(section: Mapping[str, Any]) -> list[str]:
    local = {(r["body_chars"], r["style"]): r for r in section["local"]}
    gateway = section["gateway_post_comment_wcu"]
    lines = [
        f"b. Write cost of one postComment (ConditionCheck + 33 Puts; comment"
        f" {section['language']!r}, rating {section['rating']})",
        "   model = AWS's documented rules; Local = what DynamoDB Local reports (INDEXES)",
        f"   {'body':>6} {'style':<8} {'primary B':>9} {'copy B':>11}"
        f" | model WCU: {'check':>5} {'puts':>5} {'GSI1':>5} {'total':>6} {'GSI1 x2':>7}"
        f" | Local WCU: {'table':>5} {'GSI1':>5} {'total':>5} | gateway",
    ]
    for m in section["model"]:
        got = local[(m["body_chars"], m["style"])]
        copy = f"{m['copy_bytes']['min']}-{m['copy_bytes']['max']}"
        via = gateway.get(str(m["body_chars"])) if m["style"] == "bitmask" else None
        lines.append(
            f"   {m['body_chars']:>6} {m['style']:<8} {m['primary_bytes']:>9} {copy:>11}"
            f" | {'':10} {m['condition_check_wcu']:>5} {m['table_puts_wcu']:>5}"
            f" {m['gsi1_wcu']:>5} {m['total_wcu']:>6} {m['total_wcu_gsi_doubled']:>7}"
            f" | {'':10} {got['table']:>5g} {got['indexes']:>5g} {got['total']:>5g}"
            f" | {'' if via is None else format(via, 'g')}"
        )
    sweep = section["body_length_sweep"]
    lines += [
        "   gateway = WCU (TOTAL) reported for the gateway's own post_comment (bitmask only)",
        f"   body lengths 1..{sweep['body_lengths_checked']:,} at which dotted keys change the"
        f" modelled WCU: more for {_by_rating(sweep['lengths_where_dotted_costs_more'])};"
        f" less for {_by_rating(sweep['lengths_where_dotted_costs_less'])};"
        f" at most +{sweep['max_extra_wcu']} WCU",
        "   DynamoDB Local, plain transactions without index entries (Local vs model WCU): "
        + ", ".join(
            f"{name} {u['local']:g} vs {u['model']:g}"
            for name, u in section["local_controls"].items()
        ),
        "   NOTE: DynamoDB Local's transactional write figures are NOT AWS's; use the model.",
    ]
    return lines


def _by_rating(counts: Mapping[Any, int]) -> str:
    return ", ".join(f"rating {rating}: {n}" for rating, n in counts.items())


def reads(section: Mapping[str, Any]) -> list[str]:
    setup, runs = section["setup"], section["runs"]
    labels = {
        "ours": f"ours: {runs['ours']['partition']}, Limit 21",
        "seed_filter_refill": f"seed: {runs['seed_filter_refill']['partition']} + filter,"
        " Limit = matches still wanted",
        "seed_filter_1mb_pages": "seed: same list + filter, no Limit (1 MB pages)",
    }
    lines = [
        f"c. One page of fr / rating 2 comments: product {setup['product_id']!r},"
        f" {setup['comments']:,} comments ({setup['matching']} match),"
        f" body {setup['body_chars']} chars, GSI1 newest first, eventually consistent",
        f"   {'read':<62} {'requests':>8} {'RCU':>6} {'model':>6} {'scanned':>7} {'returned':>8}",
    ]
    for key, label in labels.items():
        r = runs[key]
        lines.append(
            f"   {label:<62} {r['requests']:>8} {r['rcu']:>6g} {r['model_rcu']:>6g}"
            f" {r['scanned']:>7} {r['returned']:>8}"
        )
    check = section["read_rule_check"]
    simple = all(c["local_rcu"] == c["model_rcu"] for c in check)
    above = all(runs[k]["rcu"] == runs[k]["model_rcu"] for k in labels)
    loaded = section["load"]
    lines += [
        f"   RCU ratio seed / ours: {runs['rcu_ratio_refill']:.1f}x (refilled),"
        f" {runs['rcu_ratio_1mb_pages']:.1f}x (1 MB pages)",
        f"   Local's RCU vs AWS's rule (0.5 per 4 KB): {len(check)} simple queries "
        + ("all equal" if simple else f"DIFFER {check}")
        + ("; the three reads above equal too" if above else "; the reads above DIFFER"),
        f"   loading {loaded['items']:,} items with {loaded['requests']:,} BatchWriteItem calls:"
        f" Local {loaded['local_table_wcu']:g} table + {loaded['local_gsi1_wcu']:g} GSI1 WCU,"
        f" model {loaded['model_table_wcu']:g} + {loaded['model_gsi1_wcu']:g}",
    ]
    return lines


def render(results: Mapping[str, Any]) -> str:
    lines = ["", *key_bytes(results["key_bytes"]), ""]
    lines += [*write_cost(results["write_cost"]), ""]
    lines += [*reads(results["reads"]), "", "Rules used (AWS DynamoDB developer guide):"]
    lines += [f"   - {rule}\n     {source}" for rule, source in RULES]
    return "\n".join(lines)
