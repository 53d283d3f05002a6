"""Geohash places and cell counts (`model.Places`, seed 002) on a model of the tests' own:
a library's branches found by viewport and counted by cell, every count exact through
opens, closes, lost answers and subscriptions."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from data.callers import Caller
from data.writes import entities as entity_writes
from errors.vocabulary import Conflict
from keys.geohash import encode
from keys.map import PLACE_QUERY_BUDGET
from store.client import Store
from store.loaders import ItemLoader
from tests.client import Api
from tests.data.test_faults import lost_once
from tests.faults import FaultProxy
from tests.identity import SECURED, as_user
from tests.live import events, listening, mutate
from tests.model.library import BRANCH, MODEL
from tests.model.test_library import LIBRARY, gateway  # noqa: F401
from tests.table import scan_all

pytestmark = pytest.mark.overrides(model=LIBRARY)
OPEN = "mutation ($input: OpenBranchInput!) { openBranch(input: $input) { id cell } }"
CLOSE = "mutation ($id: ID!) { closeBranch(id: $id) }"
NEAR = """query ($v: Viewport!, $limit: Int) { branches(viewport: $v, limit: $limit) {
  branches { id name } truncated } }"""
MAP = """query ($v: Viewport!, $p: Int) { branchMap(viewport: $v, precision: $p) {
  precision cells { geohash count } } }"""
OSLO = {"north": 60.0, "south": 59.8, "east": 10.9, "west": 10.6}
# Six branches in Oslo's view, two just outside it, one far away.
SPOTS = [(59.9 + n * 0.01, 10.7 + n * 0.02) for n in range(6)] + [
    (60.001, 10.75),  # in a cell on the edge of the view, read and left out
    (59.9, 11.2),
    (-33.9, 151.2),
]
ADMIN = Caller("root", admin=True)


async def opened(api: Api) -> list[dict[str, Any]]:
    made = []
    for n, (lat, lon) in enumerate(SPOTS):
        given = {"id": f"b{n}", "lat": lat, "lon": lon, "name": f"Branch {n}"}
        made.append((await api(OPEN, input=given)).ok()["openBranch"])
    return made


def inside(n: int) -> bool:
    lat, lon = SPOTS[n]
    return OSLO["south"] <= lat <= OSLO["north"] and OSLO["west"] <= lon <= OSLO["east"]


async def counts(client: Any, table: str) -> dict[str, int]:
    """Each cell's stored count, by geohash, for cells holding any."""
    return {
        i["PK"].split("#", 1)[1] + i["SK"]: int(i["count"])
        for i in await scan_all(client, table)
        if i["PK"].startswith("LbCe") and i["count"]
    }


def exact(spots: list[tuple[float, float]]) -> dict[str, int]:
    """The counts every cell of lengths 1 to 8 should hold for branches at `spots`."""
    wanted: dict[str, int] = {}
    for lat, lon in spots:
        cell = encode(lat, lon, 8)
        for length in range(1, 9):
            wanted[cell[:length]] = wanted.get(cell[:length], 0) + 1
    return wanted


async def test_a_viewport_finds_exactly_its_branches_and_counts_are_exact(
    api: Api, client: Any
) -> None:
    await opened(api)
    found = await api(NEAR, v=OSLO)
    names = sorted(b["id"] for b in found.ok()["branches"]["branches"])
    assert names == [f"b{n}" for n in range(len(SPOTS)) if inside(n)]
    assert found.ok()["branches"]["truncated"] is False
    # The view's key ranges, each read once: not a Scan, nor the far branch.
    assert found.cost["requests"] <= PLACE_QUERY_BUDGET, found.cost
    assert found.cost["itemsScanned"] < len(SPOTS), found.cost
    few = (await api(NEAR, v=OSLO, limit=2)).ok()["branches"]
    assert (len(few["branches"]), few["truncated"]) == (2, True)
    assert await counts(client, api.settings.table) == exact(SPOTS)
    wanted = exact(SPOTS)
    for precision in (None, 1, 4, 6):
        heat = (await api(MAP, v=OSLO, p=precision)).ok()["branchMap"]
        cells = {c["geohash"]: c["count"] for c in heat["cells"]}
        # Each cell meeting the view with its exact count, every branch in view in one.
        assert cells == {cell: wanted[cell] for cell in cells}
        length = heat["precision"]
        assert all(len(cell) == length for cell in cells)
        held = {encode(*SPOTS[n], length) for n in range(len(SPOTS)) if inside(n)}
        assert held <= set(cells)


async def test_closing_takes_the_place_and_the_counts_back(api: Api, client: Any) -> None:
    await opened(api)
    for n in (0, 7):
        assert (await api(CLOSE, id=f"b{n}")).ok() == {"closeBranch": True}
    assert (await api(CLOSE, id="b0")).codes == ["NOT_FOUND"]
    left = [spot for n, spot in enumerate(SPOTS) if n not in (0, 7)]
    assert await counts(client, api.settings.table) == exact(left)
    names = {b["id"] for b in (await api(NEAR, v=OSLO)).ok()["branches"]["branches"]}
    assert "b0" not in names
    items = await scan_all(client, api.settings.table)
    assert not [i for i in items if i.get("id") in ("b0", "b7")]


async def test_bad_views_and_positions_are_refused(api: Api) -> None:
    wide = {**OSLO, "east": 12.0}
    assert (await api(NEAR, v=wide)).codes == ["BAD_USER_INPUT"]
    off = {"id": "x", "lat": 91.0, "lon": 0.0, "name": "Nowhere"}
    assert (await api(OPEN, input=off)).codes == ["BAD_USER_INPUT"]
    assert (await api(MAP, v=OSLO, p=9)).codes == ["BAD_USER_INPUT"]
    again = {"id": "b1", "lat": 59.9, "lon": 10.7, "name": "Twice"}
    assert (await api(OPEN, input=again)).ok()
    twice = await api(OPEN, input=again)
    assert twice.codes == ["CONFLICT"]
    assert "branch 'b1' already exists" in twice.errors[0]["message"]


async def test_only_admins_open_and_close_branches(api: Api) -> None:
    async with Api.serving(replace(api.settings, **SECURED)) as secured:
        admin, ann = as_user(secured, "root", admin=True), as_user(secured, "ann")
        given = {"id": "b1", "lat": 59.9, "lon": 10.7, "name": "One"}
        assert (await ann(OPEN, input=given)).codes == ["FORBIDDEN"]
        assert (await admin(OPEN, input=given)).ok()
        assert (await ann(CLOSE, id="b1")).codes == ["FORBIDDEN"]
        assert (await ann(NEAR, v=OSLO)).ok()["branches"]["branches"] == [
            {"id": "b1", "name": "One"}
        ]


@pytest.mark.usefixtures("no_pauses")
async def test_writes_whose_answers_were_lost_count_once(
    proxy: FaultProxy, faulty: Store, client: Any, table: str
) -> None:
    given = {"id": "b1", "lat": 59.9, "lon": 10.7, "name": "Once"}
    opening = entity_writes.create(faulty, MODEL, BRANCH, given, caller=ADMIN)
    await lost_once(proxy, "TransactWriteItems", opening)
    assert await counts(client, table) == exact([(59.9, 10.7)])
    proxy.calls.clear()
    closing = entity_writes.delete(
        faulty, ItemLoader(faulty), BRANCH, {"id": "b1"}, caller=ADMIN, writer_only=False
    )
    assert await lost_once(proxy, "TransactWriteItems", closing) is True
    assert await counts(client, table) == {}


async def test_racing_opens_and_closes_keep_every_count_exact(api: Api, client: Any) -> None:
    await opened(api)
    closes = [api(CLOSE, id=f"b{n}") for n in range(0, 6, 2)]
    opens = [
        api(OPEN, input={"id": f"n{n}", "lat": 59.95, "lon": 10.8, "name": "New"}) for n in range(4)
    ]
    assert all(r.codes == [] for r in await asyncio.gather(*closes, *opens))
    left = [spot for n, spot in enumerate(SPOTS) if n not in (0, 2, 4)] + [(59.95, 10.8)] * 4
    assert await counts(client, api.settings.table) == exact(left)


@pytest.mark.streamed
async def test_a_viewport_subscription_sees_branches_enter_and_leave(
    gateway: Any,  # noqa: F811
) -> None:
    async with listening(
        gateway, "subscription ($v: Viewport!) { branchChanges(viewport: $v) { kind id } }", v=OSLO
    ) as (live, [near]):
        far = {"id": "far", "lat": -33.9, "lon": 151.2, "name": "Far"}
        await mutate(gateway, OPEN, input=far)
        here = {"id": "here", "lat": 59.9, "lon": 10.7, "name": "Here"}
        await mutate(gateway, OPEN, input=here)
        await mutate(gateway, CLOSE, id="here")
        seen = await events(live, near, 2)
        assert seen == [{"kind": "ADDED", "id": "here"}, {"kind": "REMOVED", "id": "here"}]


async def test_a_close_racing_a_reopen_elsewhere_takes_back_nothing_it_did_not_add(
    client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An admin reads b1 at one place; meanwhile another closes it and opens b1 again far
    away: the first close is refused, and every count stays that of the new b1."""
    direct = Store(client, table)
    given = {"id": "b1", "lat": 59.9, "lon": 10.7, "name": "Here"}
    await entity_writes.create(direct, MODEL, BRANCH, given, caller=ADMIN)
    racing = Store(client, table)
    read = racing.get

    async def read_then_moved(*args: Any, **kwargs: Any) -> Any:
        found = await read(*args, **kwargs)
        await entity_writes.delete(
            direct, ItemLoader(direct), BRANCH, {"id": "b1"}, caller=ADMIN, writer_only=False
        )
        moved = {**given, "lat": -33.9, "lon": 151.2}
        await entity_writes.create(direct, MODEL, BRANCH, moved, caller=ADMIN)
        return found

    monkeypatch.setattr(racing, "get", read_then_moved)
    with pytest.raises(Conflict):
        await entity_writes.delete(
            racing, ItemLoader(racing), BRANCH, {"id": "b1"}, caller=ADMIN, writer_only=False
        )
    assert await counts(client, table) == exact([(-33.9, 151.2)])
