"""`heatmap` without `precision` fits the limits in force (docs/design.md): the bound picks
the seed rule's largest length whose figures fit, down to length 1, so no view, the whole
world included, is refused for its size; a given `precision` over a limit is refused naming
the largest one. No DynamoDB: these are the bound's own figures (the served answers are in
`tests/resolvers/test_map_defaults.py`)."""

from __future__ import annotations

import math

from graphql import parse
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.demand.bound import Bound, bound_operation
from gateway.demand.control import Limits
from gateway.schema.build import build_schema
from keys.map import CELL_LENGTHS, default_precision
from tests import demo_map as data
from tests.resolvers.map_helpers import View

SCHEMA = build_schema()._schema
SELECTION = "precision cells { geohash count }"
LOWERED = Limits(requests=6, items=4_000, fields=900)
WORLD = View(north=90, south=-90, east=180, west=-180)


def heatmap_bound(view: View, limits: Limits, precision: int | None = None) -> Bound:
    argument = "" if precision is None else f", precision: {precision}"
    document = f"query($v: Viewport!) {{ heatmap(viewport: $v{argument}) {{ {SELECTION} }} }}"
    return bound_operation(
        SCHEMA, parse(document), None, {"v": view.variables()}, lambda b: not limits.exceeded(b)
    )


def viewport(view: View) -> data.Viewport:
    return data.Viewport(**view.variables())


def fits(view: View, precision: int, limits: Limits) -> bool:
    """The field's figures at `precision`, counted here from the access pattern's bound:
    `heatmap`, `precision` and `cells`, then `geohash` and `count` per cell."""
    requests, items, cells = data.heatmap_bound(viewport(view), precision)
    return requests <= limits.requests and items <= limits.items and 3 + 2 * cells <= limits.fields


def expected(view: View, limits: Limits) -> int | None:
    """The seed rule's length, or the largest below it that fits; None when none does."""
    rule = default_precision(viewport(view))
    return next((p for p in range(rule, CELL_LENGTHS[0] - 1, -1) if fits(view, p, limits)), None)


@st.composite
def views(draw: st.DrawFn) -> View:
    """From 0.001 degrees to the whole world, anywhere (across the antimeridian too)."""
    height = 10 ** draw(st.floats(math.log10(0.001), math.log10(180)))
    width = 10 ** draw(st.floats(math.log10(0.001), math.log10(360)))
    south = draw(st.floats(-90, 90 - height))
    west = draw(st.floats(-180, 180))
    east = west + width if west + width <= 180 else west + width - 360
    return View(north=south + height, south=south, east=east, west=west)


@settings(max_examples=300, deadline=None)
@given(view=views(), lowered=st.booleans())
def test_the_default_precision_is_the_largest_that_fits(view: View, lowered: bool) -> None:
    limits = LOWERED if lowered else Limits()
    found = heatmap_bound(view, limits)
    want = expected(view, limits)
    assert want is not None  # length 1 always fits: at most 32 cells, in one read
    assert found.chosen == {"heatmap": want}
    assert not limits.exceeded(found), found
    assert found.notes == ()


def test_the_whole_world_is_answered_at_precision_2() -> None:
    """Length 3 is 32,768 cells (65,539 fields, over the 20,000 allowed); length 2 is 1,024
    cells in one Query; length 1, 32."""
    assert heatmap_bound(WORLD, Limits()).chosen == {"heatmap": 2}
    for precision, cells in ((1, 32), (2, 1_024)):
        given_one = heatmap_bound(WORLD, Limits(), precision=precision)
        assert not Limits().exceeded(given_one) and given_one.notes == ()
        assert data.heatmap_bound(viewport(WORLD), precision) == (1, cells, cells)
    assert Limits().exceeded(heatmap_bound(WORLD, Limits(), precision=3))


def test_limits_below_even_precision_1_say_so() -> None:
    """Limits too low for the 32 cells of length 1: the smallest is picked, and refused."""
    tiny = Limits(fields=60)
    found = heatmap_bound(WORLD, tiny)
    assert found.chosen == {"heatmap": CELL_LENGTHS[0]} and tiny.exceeded(found)
    assert "even precision 1 is over a limit" in found.notes[0]


def test_views_the_seed_rule_overran_now_fit() -> None:
    """The sizes measured refused at the default limits by the seed rule alone, placed over
    a grid: some places overran, and none is refused now."""
    for size in (0.2, 0.3, 1.0, 40.0):
        places = [
            View(north=lat + size, south=lat, east=lon + size, west=lon)
            for lat in range(-80, 40, 7)
            for lon in range(-170, 140, 11)
        ]
        overran = [
            view
            for view in places
            if Limits().exceeded(heatmap_bound(view, Limits(), default_precision(viewport(view))))
        ]
        assert overran, size
        for view in overran:
            found = heatmap_bound(view, Limits())
            assert not Limits().exceeded(found), (view, found)
            assert found.chosen["heatmap"] < default_precision(viewport(view))


def test_a_given_precision_over_a_limit_names_the_largest_that_fits() -> None:
    view = View(north=11, south=10, east=21, west=20)
    found = heatmap_bound(view, Limits(), precision=7)
    assert Limits().exceeded(found)
    assert found.notes == (
        f"`heatmap`: precision 7 is over a limit for these arguments; the largest they allow"
        f" is {expected(view, Limits())}",
    )
    # One that fits is not touched, and nothing is picked for it.
    small = heatmap_bound(view, Limits(), precision=4)
    assert not Limits().exceeded(small) and small.chosen == {} and small.notes == ()


def test_an_alias_keeps_its_own_pick() -> None:
    wide = View(north=50, south=10, east=60, west=20).variables()
    narrow = View(north=10.01, south=10, east=20.01, west=20).variables()
    document = (
        f"query($w: Viewport!, $n: Viewport!) {{ a: heatmap(viewport: $w) {{ {SELECTION} }}"
        f" b: heatmap(viewport: $n) {{ {SELECTION} }} }}"
    )
    variables = {"w": wide, "n": narrow}
    found = bound_operation(
        SCHEMA, parse(document), None, variables, lambda b: not Limits().exceeded(b)
    )
    assert found.chosen == {"a": 3, "b": 8}
