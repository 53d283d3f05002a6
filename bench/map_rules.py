"""Variants of the `markers` range rule: a query budget and a cover depth, on paper.

`keys.map.marker_queries` covers the view with cells down to the shortest length at which a
cell is at most 1/8 of the view a side, then merges the nearest ranges of one partition until
at most `MARKER_QUERY_BUDGET` remain. `plans` calls geo's own steps (`cover_depth`,
`cover`, `within_budget`) with other budgets and fractions, so a rule (budget, 1/8) gives
exactly what `marker_queries(view, budget)` gives (checked by `check_against_geo`).

The model: with markers spread uniformly in degrees, a Query reading a range expects
density x (the cells' area) items, and the view returns density x (its area) markers, so the
expected items read per marker returned is the area of the ranges over the area of the view.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bench.map_views import viewport
from keys import map as map_keys
from keys.conditions import KeyCondition
from keys.geohash import ALPHABET, Box, cell_box, cell_size
from keys.map import MarkerRange, cover, cover_depth, within_budget

BUDGETS = (1, 2, 4, 8, 12, 16, 32)
FRACTIONS = (4, 8, 16)  # a cover cell is at most 1/N of the view a side
CURRENT = (map_keys.MARKER_QUERY_BUDGET, 8)
TARGET_QUERIES, TARGET_RATIO = 8, 2.0
BOUND_QUERIES, BOUND_RATIO = 16, 4.0


@dataclass(frozen=True)
class Plan:
    """The ranges one rule reads for one view."""

    budget: int
    fraction: int
    depth: int
    ranges: tuple[MarkerRange, ...]
    plan_ms: float  # CPU time to compute it (cover at this depth + merge)

    @property
    def rule(self) -> tuple[int, int]:
        return (self.budget, self.fraction)

    def conditions(self) -> list[KeyCondition]:
        return [r.condition(self.depth) for r in self.ranges]

    def read_area(self) -> float:
        """Square degrees of the cells the ranges read."""
        height, width = cell_size(self.depth)
        return sum(r.high - r.low + 1 for r in self.ranges) * height * width

    def blocks(self) -> list[str]:
        """The ranges as the fewest whole geohash cells (for geometry)."""
        digits = self.depth - map_keys.MARKER_PARTITION_LENGTH
        return [c for r in self.ranges for c in _blocks(r, digits)]


def _blocks(r: MarkerRange, digits: int) -> list[str]:
    out, index = [], r.low
    while index <= r.high:
        level = 0
        while (
            level < digits
            and index % 32 ** (level + 1) == 0
            and index + 32 ** (level + 1) - 1 <= r.high
        ):
            level += 1
        out.append(r.partition + _suffix(index // 32**level, digits - level))
        index += 32**level
    return out


def _suffix(index: int, digits: int) -> str:
    chars = []
    for _ in range(digits):
        index, value = divmod(index, 32)
        chars.append(ALPHABET[value])
    return "".join(reversed(chars))


def plans(
    viewport: map_keys.Viewport,
    budgets: Sequence[int] = BUDGETS,
    fractions: Sequence[int] = FRACTIONS,
) -> list[Plan]:
    """One plan per (budget, fraction); the cover is computed once per distinct depth."""
    out: list[Plan] = []
    covers: dict[int, tuple[list[MarkerRange], float]] = {}
    for fraction in fractions:
        depth = cover_depth(viewport, fraction)
        if depth not in covers:
            started = time.process_time()
            ranges_cover = cover(viewport, depth)
            covers[depth] = (ranges_cover, (time.process_time() - started) * 1000)
        ranges_cover, cover_ms = covers[depth]
        for budget in budgets:
            started = time.process_time()
            ranges = within_budget(ranges_cover, budget)
            merge_ms = (time.process_time() - started) * 1000
            out.append(Plan(budget, fraction, depth, tuple(ranges), cover_ms + merge_ms))
    return out


def check_against_geo(viewport: map_keys.Viewport, made: Iterable[Plan]) -> None:
    """AssertionError unless every 1/8 plan is exactly `map_keys.marker_queries(view, budget)`."""
    for plan in made:
        if plan.fraction == 8:
            expected = map_keys.marker_queries(viewport, plan.budget)
            if plan.conditions() != expected:
                raise AssertionError(f"bench rule {plan.rule} differs from keys.map for {viewport}")


def view_area(viewport: map_keys.Viewport) -> float:
    return viewport.width * viewport.height


def model_ratio(plan: Plan, viewport: map_keys.Viewport) -> float:
    """Expected items read per marker returned under a uniform density everywhere."""
    return plan.read_area() / view_area(viewport)


def coverage(plan: Plan, field_boxes: Sequence[Box]) -> float:
    """Share of the area the plan reads that lies in the populated field (1 = all)."""
    total = plan.read_area()
    inside = sum(_overlap(cell_box(c), f) for c in plan.blocks() for f in field_boxes)
    return min(1.0, inside / total) if total else 1.0


def _overlap(a: Box, b: Box) -> float:
    height = min(a.north, b.north) - max(a.south, b.south)
    width = min(a.east, b.east) - max(a.west, b.west)
    return max(0.0, height) * max(0.0, width)


# ---- the model over many random views ---------------------------------------------------


def random_views(side: float, count: int, rng: random.Random) -> list[map_keys.Viewport]:
    """`count` views of `side` degrees placed uniformly (latitude within 70 of the equator)."""
    return [
        viewport(rng.uniform(-70.0, 70.0), rng.uniform(-180.0, 180.0), side) for _ in range(count)
    ]


@dataclass(frozen=True)
class Spread:
    median: float
    p90: float
    max: float

    def as_dict(self) -> dict[str, float]:
        return {"median": self.median, "p90": self.p90, "max": self.max}


def spread(values: Sequence[float]) -> Spread:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return Spread(statistics.median(ordered), p90, ordered[-1])
