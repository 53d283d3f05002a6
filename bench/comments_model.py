"""What the two rating-set styles cost on paper: key bytes and modelled write units (pure)."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime
from typing import Any, get_args

from bench.comments_sizes import item_size, key_bytes, post_cost, write_units
from data.comments import comment_items, new_comment
from data.products import product_item
from keys.comments import RATINGS, RatingStyle
from keys.table import GSI1, TABLE
from store.requests import Item

STYLES: tuple[RatingStyle, ...] = get_args(RatingStyle)  # ("bitmask", "dotted")
LANGUAGES = ("en", "fr")
PRODUCT_ID = "42"  # the seed's product; ids of other lengths shift both styles alike
POSTED_AT = datetime(2024, 1, 1, 12, tzinfo=UTC)
BODY_LENGTHS = (100, 900, 1_000, 2_000, 10_000)
POST_LANGUAGE, POST_RATING = "en", 5  # the comment whose write is costed
_WORDS = "Sturdy, quiet and exactly as described; would buy again. "


def body(length: int) -> str:
    """ASCII text of `length` characters (1 byte each in UTF-8)."""
    return (_WORDS * (length // len(_WORDS) + 1))[:length]


def comment(
    language: str, rating: int, body_length: int, style: RatingStyle, product_id: str = PRODUCT_ID
) -> list[Item]:
    """The primary item and 32 copies of a fresh comment, laid out in `style`."""
    fresh = new_comment(product_id, language, rating, body(body_length), POSTED_AT, POSTED_AT)
    return comment_items(fresh, style)


def product(product_id: str = PRODUCT_ID) -> Item:
    return product_item(product_id, "Bench product", POSTED_AT)


# ---- a. key bytes ----------------------------------------------------------------------


def _copy_key_bytes(language: str, rating: int, style: RatingStyle) -> dict[str, int]:
    copies = comment(language, rating, 10, style)[1:]
    return {
        "sk": sum(len(c[TABLE.sort_key].encode()) for c in copies),
        "gsi1pk": sum(len(c[GSI1.partition_key].encode()) for c in copies),
        "total": sum(key_bytes(c) for c in copies),
    }


def key_bytes_by_rating() -> list[dict[str, Any]]:
    """Per rating: bytes of SK + GSI1PK over the 32 copies, per style (language-independent)."""
    rows = []
    for rating in sorted(RATINGS):
        row: dict[str, Any] = {"rating": rating}
        for style in STYLES:
            by_language = {lang: _copy_key_bytes(lang, rating, style) for lang in LANGUAGES}
            if len({tuple(v.values()) for v in by_language.values()}) != 1:
                raise AssertionError(f"key bytes vary by language: {by_language}")
            row[style] = by_language[LANGUAGES[0]]
        row["dotted_extra"] = row["dotted"]["total"] - row["bitmask"]["total"]
        rows.append(row)
    return rows


def key_bytes_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Min/mean/max over ratings, per comment (32 copies) and per copy."""

    def spread(values: list[int]) -> dict[str, float]:
        return {"min": min(values), "mean": statistics.fmean(values), "max": max(values)}

    summary: dict[str, Any] = {}
    for style in STYLES:
        totals = [r[style]["total"] for r in rows]
        summary[style] = {
            "per_comment": spread(totals),
            "per_copy_mean": statistics.fmean(totals) / 32,
        }
    summary["dotted_extra_per_comment"] = spread([r["dotted_extra"] for r in rows])
    return summary


# ---- b. modelled write cost ------------------------------------------------------------


def modelled_post_costs() -> list[dict[str, Any]]:
    """The WCU of one postComment per body length and style, by AWS's documented rules."""
    rows = []
    for length in BODY_LENGTHS:
        for style in STYLES:
            items = comment(POST_LANGUAGE, POST_RATING, length, style)
            cost = post_cost(product(), items)
            copy_sizes = [item_size(i) for i in items[1:]]
            rows.append(
                {
                    "body_chars": length,
                    "style": style,
                    "primary_bytes": item_size(items[0]),
                    "copy_bytes": {"min": min(copy_sizes), "max": max(copy_sizes)},
                    "product_bytes": item_size(product()),
                    "condition_check_wcu": cost.condition_check,
                    "table_puts_wcu": cost.table_puts,
                    "table_wcu": cost.table,
                    "gsi1_wcu": cost.gsi1,
                    "total_wcu": cost.total,
                    "total_wcu_gsi_doubled": cost.total_gsi_doubled,
                }
            )
    return rows


def _post_units(sizes: list[int], grown_by: int) -> int:
    """Modelled table + GSI1 WCU of the 33 Puts whose sizes are `sizes` plus `grown_by`."""
    grown = [s + grown_by for s in sizes]
    return sum(2 * write_units(s) for s in grown) + sum(write_units(s) for s in grown[1:])


def body_length_sweep(longest: int = 10_000) -> dict[str, Any]:
    """Body lengths 1..`longest` where dotted keys change the modelled WCU of a post.

    Item sizes grow one byte per ASCII character, so one layout per rating and style is
    enough: size(n) = size(0) + n. The ConditionCheck is the same for both styles.
    """
    more: dict[int, int] = {}
    less: dict[int, int] = {}
    most = 0
    for rating in sorted(RATINGS):
        base = {
            style: [item_size(i) - 1 for i in comment(POST_LANGUAGE, rating, 1, style)]
            for style in STYLES
        }
        extras = [
            _post_units(base["dotted"], n) - _post_units(base["bitmask"], n)
            for n in range(1, longest + 1)
        ]
        more[rating] = sum(e > 0 for e in extras)
        less[rating] = sum(e < 0 for e in extras)
        most = max(most, *extras)
    return {
        "body_lengths_checked": longest,
        "lengths_where_dotted_costs_more": more,
        "lengths_where_dotted_costs_less": less,
        "max_extra_wcu": most,
    }
