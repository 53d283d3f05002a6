"""Markers and cell counts (`demo/model/markers.py`) called straight against DynamoDB Local: the
items a marker adds and removes, and reads within the bounds the cost models give them."""

from __future__ import annotations

from collections import Counter
from typing import Any

from store.client import Store
from store.cost import Cost
from tests import demo_map as data
from tests import demo_map as map_keys
from tests.data.patterns_helpers import within_declared
from tests.demo_map import Viewport
from tests.table import scan_all

PARIS = (48.8566, 2.3522)
VIEW = Viewport(north=48.9, south=48.8, east=2.4, west=2.3)


async def counts(client: Any, table: str) -> dict[str, int]:
    """Each cell's count, by geohash."""
    return {
        map_keys.cell_of(i): i["count"]
        for i in await scan_all(client, table)
        if i["PK"].startswith("DgCe")
    }


async def test_a_marker_adds_to_eight_cells_and_its_removal_takes_it_all_back(
    store: Store, client: Any
) -> None:
    first, spent = await within_declared(store, data.add_marker, *PARIS, "Here")
    assert spent.requests == 1
    second = await data.add_marker(store, PARIS[0] + 1e-5, PARIS[1], "Next door")
    assert first.geohash[:8] == second.geohash[:8] != first.geohash
    items = await scan_all(client, store.table)
    # Each marker's id item and place item, and the eight cells (lengths 1 to 8) they share:
    # lengths 1 and 2 in partitions of their own, never length 3's.
    partitions = Counter(i["PK"].split("#")[0] for i in items)
    assert partitions == {"MARKER": 2, "DgMa": 2, "DgCe": 6, "DgCe1": 1, "DgCe2": 1}
    assert await counts(client, store.table) == {first.geohash[:n]: 2 for n in range(1, 9)}
    place = map_keys.place_key(first.geohash, first.id)
    [stored] = [i for i in items if (i["PK"], i["SK"]) == (place["PK"], place["SK"])]
    assert data.Marker.from_item(stored) == first

    _, spent = await within_declared(store, data.remove_marker, first.id)
    assert (spent.requests, spent.items_scanned) == (2, 1)
    remaining = {i["id"] for i in await scan_all(client, store.table) if "id" in i}
    assert remaining == {second.id}
    assert await counts(client, store.table) == {first.geohash[:n]: 1 for n in range(1, 9)}


async def test_reads_stay_within_their_bounds(store: Store) -> None:
    for n in range(12):
        await data.add_marker(store, 48.81 + n * 0.007, 2.31 + n * 0.007, f"m{n}")

    store.cost = Cost()
    found = await data.search_markers(store, VIEW, limit=5)
    assert (len(found.markers), found.truncated) == (5, True)
    calls, items = data.markers_bound(5)
    assert store.cost.requests <= calls and store.cost.items_scanned <= items

    for precision in (None, 1, 2, 3, 8):
        store.cost = Cost()
        heatmap = await data.heatmap(store, VIEW, precision)
        assert sum(cell.count for cell in heatmap.cells) == 12
        calls, items, cells = data.heatmap_bound(VIEW, precision)
        assert store.cost.requests <= calls and store.cost.items_scanned <= items
        assert len(heatmap.cells) <= cells
