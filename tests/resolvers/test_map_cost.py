"""Cost of the map reads (seed 002), read from `extensions.cost`.

`heatmap` at the default precision is at most 4 Queries, whatever the view.

`markers` on uniformly spread data: for each viewport size, markers are spread at random
over the view extended by its own size on every side (data all around it), about 200
inside. Every case lies in 3-character partitions of its own, so cases do not read each
other's markers. Only the place items are written (`markers` reads nothing else), 25 to
a BatchWriteItem. The measured numbers are printed (`pytest -s`); the design target is
8 Queries and 2 items read per marker returned, the bound asserted is twice that.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from tests.client import Api
from tests.documents import MARKERS
from tests.resolvers.map_helpers import (
    MAP_LIMITS,
    Placed,
    View,
    batch_write,
    default_precision,
    expected_cells,
    expected_ids,
    heatmap,
    new_marker_id,
    place_item,
    placed,
    pool_items,
)

pytestmark = pytest.mark.overrides(**MAP_LIMITS)


SIZES = (0.01, 0.05, 0.1, 0.25, 0.5)
IN_VIEW = 200
MAX_REQUESTS = 16
MAX_READ_PER_RETURNED = 4
PARTITION = 1.40625  # degrees a side of a 3-character cell


@dataclass(frozen=True)
class Case:
    size: float
    position: str
    view: View

    @property
    def name(self) -> str:
        return f"{self.size:g}-{self.position}"


def wrap(lon: float) -> float:
    return lon - 360.0 if lon > 180.0 else lon + 360.0 if lon < -180.0 else lon


def centred(size: float, lat: float, lon: float) -> View:
    half = size / 2
    return View(north=lat + half, south=lat - half, east=wrap(lon + half), west=wrap(lon - half))


def make_cases() -> list[Case]:
    """Per size: an arbitrary place, the corner of four partitions, the antimeridian.
    Cases are 4 or more partitions apart."""
    rng = random.Random(2)
    cases = []
    for i, size in enumerate(SIZES):
        offset_lat, offset_lon = rng.uniform(0, PARTITION), rng.uniform(0, PARTITION)
        cases.append(
            Case(size, "anywhere", centred(size, 20 + 6 * i + offset_lat, 10 + offset_lon))
        )
        corner = (-90 + PARTITION * (40 + 4 * i), -180 + PARTITION * (100 + 4 * i))
        cases.append(Case(size, "corner", centred(size, *corner)))
        cases.append(Case(size, "antimeridian", centred(size, -30 - 6 * i - offset_lat, 180.0)))
    return cases


CASES = make_cases()


def spread(case: Case, rng: random.Random, first: int) -> list[Placed]:
    """Markers at random over the view extended by its size on each side: 9 times its
    area, so about IN_VIEW inside it."""
    view, size = case.view, case.size
    markers = []
    for n in range(9 * IN_VIEW):
        lat = rng.uniform(view.south - size, view.north + size)
        lon = wrap(view.west - size + rng.uniform(0, 3 * size))
        markers.append(placed(new_marker_id(first + n), lat, lon))
    return markers


@dataclass
class Seeded:
    api: Api
    markers: dict[str, list[Placed]]


@pytest.fixture(scope="module")
async def seeded(app: Api, endpoint: str, shared_table: str) -> Seeded:
    rng = random.Random(7)
    markers = {}
    for n, case in enumerate(CASES):
        markers[case.name] = spread(case, rng, first=n * 10 * IN_VIEW)
    items = [place_item(m.id, m.lat, m.lon) for ms in markers.values() for m in ms]
    await batch_write(endpoint, shared_table, items)
    return Seeded(app, markers)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
async def test_markers_on_uniform_data(seeded: Seeded, case: Case) -> None:
    result = await seeded.api(MARKERS, viewport=case.view.variables(), limit=1000)
    found = result.ok()["markers"]
    ids = {m["id"] for m in found["markers"]}
    assert ids == expected_ids(seeded.markers[case.name], case.view)
    assert found["truncated"] is False
    returned = len(ids)
    assert 120 <= returned <= 300
    cost = result.cost
    print(
        f"\nmarkers {case.name:>18}: {cost['requests']:2d} requests, "
        f"{cost['itemsScanned']:4d} read for {returned:3d} in view "
        f"({cost['itemsScanned'] / returned:.2f}x), {cost['readCapacityUnits']:.1f} RCU"
    )
    assert cost["requests"] <= MAX_REQUESTS
    assert cost["itemsScanned"] <= MAX_READ_PER_RETURNED * returned


# ---- heatmap --------------------------------------------------------------------------

HEATMAP_VIEWS = {
    "small": View(north=48.86, south=48.85, east=2.36, west=2.35),
    "city": View(north=49.0, south=48.7, east=2.6, west=2.1),
    "region": View(north=50.0, south=47.0, east=4.0, west=0.0),
    "continent": View(north=70.0, south=35.0, east=40.0, west=-10.0),
    "antimeridian": View(north=-15.0, south=-19.0, east=-178.0, west=177.0),
    "antimeridian-small": View(north=-17.0, south=-17.02, east=-179.99, west=179.99),
    "pole": View(north=90.0, south=89.0, east=10.0, west=-10.0),
    "partition-corner": View(
        north=-90 + PARTITION * 100 + 0.01,
        south=-90 + PARTITION * 100 - 0.01,
        east=-180 + PARTITION * 60 + 0.01,
        west=-180 + PARTITION * 60 - 0.01,
    ),
    "world": View(north=90.0, south=-90.0, east=180.0, west=-180.0),
}


@pytest.fixture(scope="module")
async def heatmap_data(seeded: Seeded, endpoint: str, shared_table: str) -> list[Placed]:
    """Markers with their id and cell items, around the heatmap views (not the cases')."""
    rng = random.Random(11)
    markers: list[Placed] = []
    for name, view in HEATMAP_VIEWS.items():
        if name == "world":
            continue
        height = view.north - view.south
        width = (view.east - view.west) % 360.0
        for _ in range(60):
            lat = min(90.0, rng.uniform(view.south - height / 4, view.north + height / 4))
            lon = wrap(view.west + rng.uniform(-width / 4, width * 5 / 4))
            markers.append(placed(new_marker_id(10**6 + len(markers)), lat, lon))
    await batch_write(endpoint, shared_table, pool_items(markers))
    return markers


@pytest.mark.parametrize("name", list(HEATMAP_VIEWS))
async def test_heatmap_at_the_default_precision_is_at_most_4_queries(
    seeded: Seeded, heatmap_data: list[Placed], name: str
) -> None:
    view = HEATMAP_VIEWS[name]
    api = seeded.api
    result = await api(
        "query ($viewport: Viewport!) { heatmap(viewport: $viewport) "
        "{ precision cells { geohash count } } }",
        viewport=view.variables(),
    )
    found = result.ok()["heatmap"]
    cost: dict[str, Any] = result.cost
    print(
        f"\nheatmap {name:>18}: precision {found['precision']}, {cost['requests']} requests, "
        f"{cost['itemsScanned']} read, {len(found['cells'])} cells"
    )
    assert found["precision"] == default_precision(view)
    assert cost["requests"] <= 4
    # Exact counts (the cost cases' markers have no cell items, and lie elsewhere).
    precision, cells = await heatmap(api, view)
    assert cells == expected_cells(heatmap_data, view, precision)
    if name != "world":
        assert cells
