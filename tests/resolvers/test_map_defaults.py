"""The heatmap under the shipped settings (default limits, open mode), as a new user meets
it: without `precision` no view is refused for its size while a length 3 answer fits the
limits, and its counts are exact; a given `precision` over a limit is refused naming the
largest one the view allows."""

from __future__ import annotations

import re

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


async def test_a_view_past_length_3_is_refused_saying_to_zoom_in(api: Api) -> None:
    result = await api(
        "query($v: Viewport!) { heatmap(viewport: $v) { precision cells { geohash count } } }",
        v=WORLD.variables(),
    )
    assert "even precision 3 is over a limit for these arguments: zoom in" in refusal(result)
