"""Who may add and remove map markers (docs/identity.md), with real tokens.

Anyone reads markers and the heatmap; any signed-in caller adds a marker, recorded as its
creator on both marker items; only the creator (case-insensitively) or an admin removes
it, a rule the condition on the delete of the marker's id item decides.
"""

from __future__ import annotations

from typing import Any

import pytest

from store.client import Store
from tests.client import Api, Result, assert_costs_alike, made_both_ways
from tests.documents import REMOVE_MARKER
from tests.identity import SECURED, token
from tests.resolvers.comments_helpers import MISSING_KSUID
from tests.resolvers.map_helpers import MAP_LIMITS, PARIS, TOWN, snapshot
from tests.table import scan_all

# Selections of their own: what these tests look at is the creator.
ADD = """mutation ($input: AddMarkerInput!) {
  addMarker(input: $input) { id geohash label createdBy } }"""
MARKERS = """query ($viewport: Viewport!) {
  markers(viewport: $viewport, limit: 10) { truncated markers { id createdBy } } }"""
HEATMAP = """query ($viewport: Viewport!) {
  heatmap(viewport: $viewport, precision: 8) { cells { geohash count } } }"""
NEW = {"lat": 48.85, "lon": 2.35, "label": "café"}

# Minted when the module is collected: valid for as long as the whole suite may run.
SUITE = 3 * 3600
ADMIN = token("root", admin=True, ttl=SUITE)
ALICE = token("Alice", ttl=SUITE)
BOB = token("bob", ttl=SUITE)


pytestmark = pytest.mark.overrides(**SECURED, **MAP_LIMITS)


def refused(result: Result, code: str, *, requests: int | None = None) -> None:
    assert result.codes == [code], result.body
    assert result.data is None
    if requests is not None:
        assert result.cost["requests"] == requests, result.cost


async def add(api: Api) -> str:
    marker_id: str = (await api(ADD, input=NEW)).ok()["addMarker"]["id"]
    return marker_id


async def marker_items(client: Any, table: str, marker_id: str) -> list[dict[str, Any]]:
    """The id item and the place item of a marker."""
    return [i for i in await scan_all(client, table) if i.get("id") == marker_id]


async def test_a_marker_is_added_by_a_signed_in_caller_and_read_by_anyone(
    api: Api, client: Any, table: str
) -> None:
    refused(await api(ADD, input=NEW), "UNAUTHENTICATED", requests=0)
    assert await scan_all(client, table) == []
    added = (await api.signed_in(ALICE)(ADD, input=NEW)).ok()["addMarker"]
    assert added["createdBy"] == "Alice"
    items = await marker_items(client, table, added["id"])
    assert len(items) == 2
    assert {(i["author"], i["authorKey"]) for i in items} == {("Alice", "alice")}
    found = (await api(MARKERS, viewport=PARIS.variables())).ok()["markers"]
    assert found == {"truncated": False, "markers": [{"id": added["id"], "createdBy": "Alice"}]}
    cells = (await api(HEATMAP, viewport=TOWN.variables())).ok()["heatmap"]["cells"]
    assert cells == [{"geohash": added["geohash"][:8], "count": 1}]


async def test_only_the_creator_or_an_admin_removes_a_marker(
    api: Api, client: Any, table: str
) -> None:
    mine, other = await add(api.signed_in(ALICE)), await add(api.signed_in(ALICE))
    before = await snapshot(client, table)
    refused(await api(REMOVE_MARKER, id=mine), "UNAUTHENTICATED", requests=0)
    refused(await api.signed_in(BOB)(REMOVE_MARKER, id=mine), "FORBIDDEN")
    assert await snapshot(client, table) == before
    # Usernames are case-insensitive: "ALICE" created what "Alice" added.
    assert (await api.signed_in(token("ALICE"))(REMOVE_MARKER, id=mine)).ok() == {
        "removeMarker": True
    }
    assert (await api.signed_in(ADMIN)(REMOVE_MARKER, id=other)).ok() == {"removeMarker": True}
    assert [i for i in await scan_all(client, table) if "id" in i] == []
    assert {i["count"] for i in await scan_all(client, table)} == {0}


async def test_a_marker_added_with_identity_off_is_removed_by_admins_only(
    api: Api, opened: Api, client: Any, table: str
) -> None:
    marker_id = await add(opened)
    found = (await api(MARKERS, viewport=PARIS.variables())).ok()["markers"]["markers"]
    assert found == [{"id": marker_id, "createdBy": None}]
    before = await snapshot(client, table)
    for user in (ALICE, BOB):
        refused(await api.signed_in(user)(REMOVE_MARKER, id=marker_id), "FORBIDDEN")
    assert await snapshot(client, table) == before
    assert (await api.signed_in(ADMIN)(REMOVE_MARKER, id=marker_id)).ok() == {"removeMarker": True}
    assert await marker_items(client, table, marker_id) == []


async def test_the_token_comes_first_then_a_missing_marker(
    api: Api, client: Any, table: str
) -> None:
    refused(await api(REMOVE_MARKER, id=MISSING_KSUID), "UNAUTHENTICATED", requests=0)
    refused(await api.signed_in(BOB)(REMOVE_MARKER, id=MISSING_KSUID), "NOT_FOUND", requests=1)
    assert await scan_all(client, table) == []


async def test_the_delete_condition_alone_refuses_a_stranger(
    api: Api, client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker_id = await add(api.signed_in(ALICE))
    before = await snapshot(client, table)
    read = Store.get

    async def forged(self: Store, key: Any, *, consistent: bool = False) -> Any:
        """The id item as if bob had added it."""
        item = await read(self, key, consistent=consistent)
        return None if item is None else {**item, "author": "bob", "authorKey": "bob"}

    monkeypatch.setattr(Store, "get", forged)
    # The read, then the transaction the condition on the id item cancelled.
    refused(await api.signed_in(BOB)(REMOVE_MARKER, id=marker_id), "FORBIDDEN", requests=2)
    monkeypatch.undo()
    assert await snapshot(client, table) == before


async def test_the_creators_writes_cost_what_they_cost_with_identity_off(
    api: Api, opened: Api
) -> None:
    alice = api.signed_in(ALICE)
    added, mine, theirs = await made_both_ways(alice, opened, ADD, NEW)
    removed = [await alice(REMOVE_MARKER, id=mine), await opened(REMOVE_MARKER, id=theirs)]
    # removeMarker: a consistent GetItem and the transaction, as with identity off.
    for secured, open_mode in (added, removed):
        assert_costs_alike(secured, open_mode)
