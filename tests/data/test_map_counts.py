"""Counts of lengths 1 and 2 rebuilt from length 3's (`data/places/counts.py`), straight against
DynamoDB Local: a table written while only lengths 3 to 8 were counted is made exact, a
marker added during the rebuild is never lost, and running it again changes nothing."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from data.places.counts import rebuild_short_counts
from demo.model.markers import MARKER_PLACES
from demo.seed import Seeder
from keys.table import TABLE
from store.client import Store
from store.loaders import ItemLoader
from store.requests import primary_key, to_attributes
from tests import demo_map as data
from tests import demo_map as map_keys
from tests.data.races import interleave_query
from tests.table import scan_all

# Two places in one cell of length 1 ("g"), three cells of length 2, and Auckland ("r").
PLACES = [(51.5, -0.12), (51.51, -0.13), (48.86, 2.35), (55.9, -3.2), (-36.85, 174.76)]


async def counts(client: Any, table: str) -> dict[str, int]:
    """Each cell's stored count, by geohash."""
    items = await scan_all(client, table)
    return {map_keys.cell_of(i): i["count"] for i in items if i["PK"].startswith("DgCe")}


def exact(geohashes: list[str]) -> dict[str, int]:
    return dict(Counter(g[:n] for g in geohashes for n in range(1, 9)))


async def written_before(store: Store, client: Any) -> list[str]:
    """Markers as a table written before lengths 1 and 2 were counted holds them: their
    counts of those lengths deleted."""
    added = [await data.add_marker(store, lat, lon, "old") for lat, lon in PLACES]
    for item in await scan_all(client, store.table):
        if item["PK"] in ("DgCe1#", "DgCe2#"):
            await client.delete_item(
                TableName=store.table, Key=to_attributes(primary_key(item, TABLE))
            )
    return [m.geohash for m in added]


async def test_a_table_from_before_is_counted_exactly(store: Store, client: Any) -> None:
    geohashes = await written_before(store, client)
    # Since then: one marker added (counted at every length), one older removed (taken off
    # every length, so its short cells go below zero).
    new = await data.add_marker(store, 51.49, -0.11, "new")
    removed = next(i for i in await scan_all(client, store.table) if i.get("label") == "old")
    await data.remove_marker(store, removed["id"])
    geohashes = [*[g for g in geohashes if g != removed["geohash"]], new.geohash]
    assert await counts(client, store.table) != exact(geohashes)

    assert (
        await rebuild_short_counts(store, MARKER_PLACES) == 2 + 4
    )  # cells of length 1, then of length 2
    rebuilt = await counts(client, store.table)
    assert {cell: n for cell, n in rebuilt.items() if n} == exact(geohashes)
    # Again: the same counts, written again, nothing else.
    before = await scan_all(client, store.table)
    await rebuild_short_counts(store, MARKER_PLACES)
    assert await scan_all(client, store.table) == before


# The rebuild's Queries: length 3's counts, length 2's, then length 2's again (the sums of
# length 1), length 1's.
@pytest.mark.parametrize(("summed", "nth"), [(3, 1), (2, 3)])
async def test_a_marker_added_during_the_rebuild_is_counted(
    store: Store, client: Any, monkeypatch: pytest.MonkeyPatch, summed: int, nth: int
) -> None:
    """A marker is added right after the rebuild reads the counts of length `summed` it
    sums: the rebuild's check finds them changed, and it reads them again."""
    geohashes = await written_before(store, client)

    async def add(other: Store, items: ItemLoader) -> None:
        geohashes.append((await data.add_marker(other, 51.52, -0.1, "meanwhile")).geohash)

    interleave_query(monkeypatch, client, store.table, add, nth=nth)
    await rebuild_short_counts(store, MARKER_PLACES)
    assert await counts(client, store.table) == exact(geohashes)


async def test_seeding_counts_the_markers_kept_from_before(store: Store, client: Any) -> None:
    """`make run` keeps its table: the seed counts what an older version left uncounted."""
    await written_before(store, client)
    await Seeder(client, store.table).run_markers(per_place=3)
    places = [i for i in await scan_all(client, store.table) if i.get("type") == "MARKER"]
    assert len(places) >= len(PLACES)
    assert await counts(client, store.table) == exact([i["geohash"] for i in places])
