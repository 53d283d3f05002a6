"""The heatmap under the shipped settings (default limits, open mode), as a new user meets
it: without `precision` no view is refused for its size, the whole world included, and its
counts are exact; a given `precision` over a limit is refused naming the largest one the
view allows; what a heatmap costs never passes its bound."""

from __future__ import annotations

import re

import pytest

from tests.client import Api, Result
from tests.documents import HEATMAP
from tests.resolvers.map_helpers import (
    View,
    add_markers,
    default_precision,
    expected_cells,
    heatmap,
)

# 1 degree and 40 degrees, where the seed rule alone picks precision 6 and 4.
ONE_DEGREE = View(north=-70.0, south=-71.0, east=-149.0, west=-150.0)
ACROSS = View(north=10.0, south=-30.0, east=-170.0, west=150.0)
FORTY_DEGREES = View(north=-20.0, south=-60.0, east=-100.0, west=-140.0)
WORLD = View(north=90.0, south=-90.0, east=180.0, west=-180.0)


def refusal(result: Result) -> str:
    assert result.codes == ["QUERY_TOO_COMPLEX"], result.body
    message: str = result.errors[0]["message"]
    return message


async def test_views_the_seed_rule_overran_are_answered_exactly(api: Api) -> None:
    placed = await add_markers(api, [(-70.5, -149.5), (-70.25, -149.75), (-70.9, -149.1)])
    for view in (ONE_DEGREE, FORTY_DEGREES):
        precision, cells = await heatmap(api, view)
        assert 3 <= precision < default_precision(view)
        assert cells == expected_cells(placed, view, precision)


async def test_a_given_precision_over_a_limit_names_the_largest_that_fits(api: Api) -> None:
    result = await api(HEATMAP, viewport=ONE_DEGREE.variables(), precision=7)
    error = refusal(result)
    largest = re.search(r"precision 7 is over a limit .*; the largest they allow is (\d)", error)
    assert largest is not None, error
    # That one is answered.
    precision, _ = await heatmap(api, ONE_DEGREE, int(largest.group(1)))
    assert precision == int(largest.group(1))


# Both poles, both sides of the antimeridian, the equator and the prime meridian.
EVERYWHERE = [
    (90.0, 0.0),
    (-90.0, 180.0),
    (-17.0, 179.9),
    (-17.0, -179.9),
    (0.0, 0.0),
    (48.85, 2.35),
    (48.86, 2.36),
    (-33.9, 151.2),
    (40.7, -74.0),
]


async def test_the_whole_world_is_answered_exactly(api: Api) -> None:
    placed = await add_markers(api, EVERYWHERE)
    precision, cells = await heatmap(api, WORLD)
    assert precision == 2  # length 3 is 32,768 cells: more fields than the limit
    assert cells == expected_cells(placed, WORLD, 2)
    for given_precision in (1, 2):
        answered, cells = await heatmap(api, WORLD, given_precision)
        assert answered == given_precision
        assert cells == expected_cells(placed, WORLD, given_precision)
        assert sum(cells.values()) == len(placed)


@pytest.mark.parametrize("precision", [None, 1, 2, 3, 4])
async def test_what_a_heatmap_costs_stays_within_its_bound(api: Api, precision: int | None) -> None:
    await add_markers(api, EVERYWHERE)
    for view in (WORLD, FORTY_DEGREES, ONE_DEGREE, ACROSS):
        # `precision: null` is the same as leaving it out.
        result = await api(HEATMAP, viewport=view.variables(), precision=precision)
        if result.codes:  # a given precision over a limit for this view: no read
            assert result.codes == ["QUERY_TOO_COMPLEX"] and result.cost["requests"] == 0
            continue
        cost, bound = result.cost, result.cost["estimated"]
        assert cost["requests"] <= bound["requests"], (view, precision, cost)
        assert cost["itemsScanned"] <= bound["itemsScanned"], (view, precision, cost)
