"""An entity kept by place changed, moved and removed (`tests/model/sites.py`): a rename
rewrites its place item, a move takes the place item and the cell counts from the old
position to the new one in one transaction, and every count stays exact — through lost
answers, racing moves and removals — checked against a recount of the place items."""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

import pytest

from data.callers import Caller
from data.writes import entities as entity_writes
from errors.vocabulary import Conflict
from keys.geohash import encode
from store.client import Store
from store.loaders import ItemLoader
from tests.client import Api
from tests.data.test_faults import lost_once
from tests.faults import FaultProxy
from tests.identity import SECURED, as_user
from tests.model.sites import MODEL, SITE
from tests.table import scan_all

pytestmark = [
    pytest.mark.overrides(model="tests.model.sites", **SECURED),
    pytest.mark.usefixtures("no_pauses"),
]
ADD = "mutation ($input: AddSiteInput!) { addSite(input: $input) { id } }"
CHANGE = """mutation ($input: ChangeSiteInput!) {
  changeSite(input: $input) { id name lat lon category } }"""
# The search's list is named by what it holds, not after the root field again.
NEAR = "query ($v: Viewport!) { sitesNear(viewport: $v) { sites { id name category } } }"
BY = "query ($c: Category!) { sitesOf(category: $c) { edges { node { id } } } }"
OSLO = {"north": 60.0, "south": 59.8, "east": 10.9, "west": 10.6}
ROME = {"north": 42.0, "south": 41.8, "east": 12.6, "west": 12.4}
ANN = Caller("ann")


async def recounted(client: Any, table: str) -> tuple[dict[str, int], dict[str, int]]:
    """The stored counts of cells holding any, and those the place items make."""
    items = await scan_all(client, table)
    stored = {
        i["PK"].split("#", 1)[1] + i["SK"]: int(i["count"])
        for i in items
        if i["PK"].startswith("StCe") and i["count"]
    }
    made: dict[str, int] = {}
    for place in (i for i in items if i["PK"].startswith("StPl#")):
        cell = place["cell"]
        for length in range(1, 9):
            made[cell[:length]] = made.get(cell[:length], 0) + 1
    return stored, made


async def places_of(client: Any, table: str) -> dict[str, str]:
    """Each site's place item's cell, by id: one place item per site."""
    places = [i for i in await scan_all(client, table) if i["PK"].startswith("StPl#")]
    by_id = {p["id"]: p["cell"] for p in places}
    assert len(by_id) == len(places), places
    return by_id


async def test_a_site_is_renamed_recategorized_and_moved(api: Api, client: Any) -> None:
    ann = as_user(api, "ann")
    given = {"id": "s1", "name": "Fram", "lat": 59.9, "lon": 10.7}
    (await ann(ADD, input=given)).ok()
    renamed = await ann(CHANGE, input={"id": "s1", "name": "Fram Museum", "category": "MUSEUM"})
    assert renamed.ok()["changeSite"]["name"] == "Fram Museum"
    near = (await api(NEAR, v=OSLO)).ok()["sitesNear"]["sites"]
    assert near == [{"id": "s1", "name": "Fram Museum", "category": "MUSEUM"}]
    assert [e["node"]["id"] for e in (await api(BY, c="MUSEUM")).ok()["sitesOf"]["edges"]] == ["s1"]
    assert (await api(BY, c="OTHER")).ok()["sitesOf"]["edges"] == []
    moved = await ann(CHANGE, input={"id": "s1", "lat": 41.9, "lon": 12.5})
    assert moved.ok()["changeSite"]["lat"] == 41.9
    assert (await api(NEAR, v=OSLO)).ok()["sitesNear"]["sites"] == []
    assert [s["id"] for s in (await api(NEAR, v=ROME)).ok()["sitesNear"]["sites"]] == ["s1"]
    assert await places_of(client, api.settings.table) == {"s1": encode(41.9, 12.5, 12)}
    stored, made = await recounted(client, api.settings.table)
    assert stored == made and stored[encode(41.9, 12.5, 8)] == 1
    # Only its curator changes it; a bad position is refused before any write.
    refused = await as_user(api, "bob")(CHANGE, input={"id": "s1", "name": "Mine"})
    assert refused.codes == ["FORBIDDEN"]
    assert (await api(CHANGE, input={"id": "s1", "name": "Anon"})).codes == ["UNAUTHENTICATED"]
    off = await ann(CHANGE, input={"id": "s1", "lat": 91.0})
    assert off.codes == ["BAD_USER_INPUT"]
    missing = await ann(CHANGE, input={"id": "s9", "name": "Nowhere"})
    assert missing.codes == ["NOT_FOUND"]
    # Removed after its move: nothing left, every count back to none.
    assert (await ann('mutation { removeSite(id: "s1") }')).ok() == {"removeSite": True}
    stored, made = await recounted(client, api.settings.table)
    assert stored == made == {}


async def test_a_move_whose_answer_was_lost_happens_once(
    proxy: FaultProxy, faulty: Store, client: Any, table: str
) -> None:
    direct = Store(client, table)
    given = {"id": "s1", "name": "Fram", "lat": 59.9, "lon": 10.7}
    await entity_writes.create(direct, MODEL, SITE, given, caller=ANN)
    moving = entity_writes.update(
        faulty,
        ItemLoader(faulty),
        SITE,
        {"id": "s1"},
        {"lat": 41.9, "lon": 12.5},
        caller=ANN,
        writer_only=True,
    )
    moved = await lost_once(proxy, "TransactWriteItems", moving)
    assert (moved["lat"], moved["lon"]) == (41.9, 12.5)
    assert await places_of(client, table) == {"s1": encode(41.9, 12.5, 12)}
    stored, made = await recounted(client, table)
    assert stored == made


async def test_racing_moves_keep_every_count_exact(client: Any, table: str) -> None:
    """Moves of three sites at once, to random places near and far: each lands or is
    refused as busy; every site then has one place item, where its own item says, and
    every cell count equals a recount."""
    direct = Store(client, table)
    for n in range(3):
        given = {"id": f"s{n}", "name": f"S{n}", "lat": 59.9, "lon": 10.7 + n / 100}
        await entity_writes.create(direct, MODEL, SITE, given, caller=ANN)
    draw = random.Random(5)

    async def move(n: int) -> None:
        lat, lon = draw.uniform(-80, 80), draw.uniform(-179, 179)
        if n % 2:  # nearby: a move within a shared cell prefix
            lat, lon = 59.9 + draw.uniform(0, 0.05), 10.7 + draw.uniform(0, 0.05)
        with contextlib.suppress(Conflict):  # busy: the client tries again
            await entity_writes.update(
                direct,
                ItemLoader(direct),
                SITE,
                {"id": f"s{n % 3}"},
                {"lat": lat, "lon": lon},
                caller=ANN,
                writer_only=True,
            )

    await asyncio.gather(*(move(n) for n in range(18)))
    places = await places_of(client, table)
    own = {i["id"]: i["cell"] for i in await scan_all(client, table) if i["PK"].startswith("SITE#")}
    assert places == own and len(own) == 3
    stored, made = await recounted(client, table)
    assert stored == made
