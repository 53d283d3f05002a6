"""Nearest first (`model.Nearest`) on the tests' library, against DynamoDB Local: the
branches within a radius of a point by great-circle distance, paged to the end by signed
cursors bound to the point and radius, across the antimeridian and at a pole, the
arguments checked, and every answer's cost within the bound computed before it ran (each
response checks it, `tests/client.py`), which is the one the field declares."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest

from data.places import nearest as entity_nearest
from data.places.nearest import bound
from keys import nearest as keys_nearest
from model import Nearest
from tests.client import Api
from tests.model.library import MODEL
from tests.model.test_library import LIBRARY

pytestmark = pytest.mark.overrides(model=LIBRARY)
OPEN = "mutation ($input: OpenBranchInput!) { openBranch(input: $input) { id } }"
NEARBY = """query ($lat: Float!, $lon: Float!, $r: Float!, $first: Int, $after: String) {
  branchesNearby(latitude: $lat, longitude: $lon, radiusMeters: $r, first: $first,
      after: $after) {
    edges { cursor distanceMeters node { id name } }
    pageInfo { hasNextPage hasPreviousPage endCursor } } }"""
[PATTERN] = MODEL.of_kind(Nearest)
OSLO = (59.9139, 10.7522)
# Branches about Oslo's centre: two at one spot (ordered by id), some beyond 5 km.
SPOTS = {
    "b0": (59.9139, 10.7522),
    "b1": (59.92, 10.76),
    "b2": (59.93, 10.70),
    "b3": (59.90, 10.80),
    "b4": (59.93, 10.70),
    "b5": (59.95, 10.75),
    "b6": (59.8, 10.6),  # about 15 km away
    "b7": (60.2, 11.1),
    "b8": (-33.9, 151.2),
}


def metres(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle metres on the mean Earth radius, by the spherical law of cosines."""
    (p1, l1), (p2, l2) = (tuple(map(math.radians, x)) for x in (a, b))
    cosine = math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2) * math.cos(l2 - l1)
    return 6_371_008.8 * math.acos(max(-1.0, min(1.0, cosine)))


async def opened(api: Api, spots: dict[str, tuple[float, float]]) -> None:
    for name, (lat, lon) in spots.items():
        given = {"id": name, "lat": lat, "lon": lon, "name": f"Branch {name}"}
        (await api(OPEN, input=given)).ok()


def expected(at: tuple[float, float], radius: float, spots: dict[str, Any]) -> list[str]:
    near = [(metres(at, spot), name) for name, spot in spots.items()]
    return [name for d, name in sorted(near) if d <= radius]


async def pages(api: Api, at: tuple[float, float], radius: float, first: int) -> list[Any]:
    """Every page, each after the last one's end cursor."""
    answers = []
    after = None
    while True:
        found = await api(NEARBY, lat=at[0], lon=at[1], r=radius, first=first, after=after)
        page = found.ok()["branchesNearby"]
        answers.append((page, found))
        if not page["pageInfo"]["hasNextPage"]:
            return answers
        after = page["pageInfo"]["endCursor"]


async def test_branches_within_a_radius_come_nearest_first_page_by_page(api: Api) -> None:
    await opened(api, SPOTS)
    wanted = expected(OSLO, 5_000.0, SPOTS)
    assert wanted[:2] == ["b0", "b1"] and {"b2", "b4"} <= set(wanted) and "b6" not in wanted
    walked = await pages(api, OSLO, 5_000.0, 2)
    edges = [edge for page, _ in walked for edge in page["edges"]]
    assert [edge["node"]["id"] for edge in edges] == wanted
    for edge in edges:
        spot = SPOTS[edge["node"]["id"]]
        assert edge["distanceMeters"] == pytest.approx(metres(OSLO, spot), abs=1e-3)
    assert [page["pageInfo"]["hasPreviousPage"] for page, _ in walked] == [False] + [True] * (
        len(walked) - 1
    )
    for _, answer in walked:
        # The bound the gateway computed is the field's own, and the answer within it.
        args = {"latitude": OSLO[0], "longitude": OSLO[1], "radiusMeters": 5_000.0, "first": 2}
        calls, items = bound(PATTERN, args)
        assert answer.cost["estimated"]["requests"] == calls
        assert answer.cost["requests"] <= calls
        assert answer.cost["itemsScanned"] <= items
    # Wider, in one page: the far ones too, never the other side of the world.
    wide = (await api(NEARBY, lat=OSLO[0], lon=OSLO[1], r=50_000.0, first=100)).ok()
    ids = [edge["node"]["id"] for edge in wide["branchesNearby"]["edges"]]
    assert ids == expected(OSLO, 50_000.0, SPOTS) and "b8" not in ids


async def test_cursors_are_bound_to_the_point_and_the_radius(api: Api) -> None:
    await opened(api, SPOTS)
    first = (await api(NEARBY, lat=OSLO[0], lon=OSLO[1], r=5_000.0, first=2)).ok()
    cursor = first["branchesNearby"]["pageInfo"]["endCursor"]
    elsewhere = await api(NEARBY, lat=OSLO[0], lon=10.76, r=5_000.0, first=2, after=cursor)
    assert elsewhere.codes == ["BAD_CURSOR"]
    wider = await api(NEARBY, lat=OSLO[0], lon=OSLO[1], r=6_000.0, first=2, after=cursor)
    assert wider.codes == ["BAD_CURSOR"]
    altered = cursor[:-2] + ("A" if cursor[-2] != "A" else "B") + cursor[-1]
    tampered = await api(NEARBY, lat=OSLO[0], lon=OSLO[1], r=5_000.0, first=2, after=altered)
    assert tampered.codes == ["BAD_CURSOR"]
    again = await api(NEARBY, lat=OSLO[0], lon=OSLO[1], r=5_000.0, first=2, after=cursor)
    assert again.ok()


@pytest.mark.parametrize(
    ("variables", "argument"),
    [
        ({"lat": 91.0, "lon": 0.0, "r": 10.0}, "latitude"),
        ({"lat": 0.0, "lon": -180.5, "r": 10.0}, "longitude"),
        ({"lat": 0.0, "lon": 0.0, "r": 0.0}, "radiusMeters"),
        ({"lat": 0.0, "lon": 0.0, "r": -5.0}, "radiusMeters"),
        ({"lat": 0.0, "lon": 0.0, "r": 50_001.0}, "radiusMeters"),
        ({"lat": 0.0, "lon": 0.0, "r": 10.0, "first": 0}, "first"),
        ({"lat": 0.0, "lon": 0.0, "r": 10.0, "first": 101}, "first"),
    ],
)
async def test_bad_arguments_are_refused_naming_them(
    api: Api, variables: dict[str, Any], argument: str
) -> None:
    refused = await api(NEARBY, **variables)
    assert refused.codes == ["BAD_USER_INPUT"]
    assert argument in refused.errors[0]["message"]
    assert refused.cost["requests"] == 0


async def test_a_circle_across_the_antimeridian_finds_both_sides(api: Api) -> None:
    spots = {"east": (-16.5, 179.99), "west": (-16.5, -179.99), "far": (-16.5, -179.5)}
    await opened(api, spots)
    at = (-16.5, 179.999)
    found = (await api(NEARBY, lat=at[0], lon=at[1], r=3_000.0)).ok()["branchesNearby"]
    assert [edge["node"]["id"] for edge in found["edges"]] == expected(at, 3_000.0, spots)
    assert [edge["node"]["id"] for edge in found["edges"]] == ["east", "west"]


async def test_at_a_pole_every_partition_meeting_there_is_read(api: Api) -> None:
    """Every longitude is as near to a pole: branches in partitions far apart, by distance.
    Such a circle reads the 256 place partitions meeting at the pole, more than the
    default limit of 50 calls allows: refused before any read unless the limit is raised."""
    spots = {"p0": (89.99, 170.0), "p1": (89.995, -60.0), "p2": (89.98, 0.0), "p3": (89.5, 0.0)}
    await opened(api, spots)
    refused = await api(NEARBY, lat=90.0, lon=0.0, r=5_000.0)
    assert refused.codes == ["QUERY_TOO_COMPLEX"]
    async with Api.serving(replace(api.settings, max_requests=1_000)) as raised:
        walked = await pages(raised, (90.0, 0.0), 5_000.0, 1)
        ids = [edge["node"]["id"] for page, _ in walked for edge in page["edges"]]
        assert ids == expected((90.0, 0.0), 5_000.0, spots) == ["p1", "p0", "p2"]


async def test_a_dense_spot_reads_up_to_its_bound_and_no_further(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With reads of one place each, full cells are cut into quarters until the search's
    reads are spent: a page then reads exactly the calls its bound allowed (one more, and
    the gateway would have stopped it), and answers only places it could order."""
    for module in (keys_nearest, entity_nearest):
        monkeypatch.setattr(module, "READ_ITEMS", 1)
    spots = {
        f"d{n:02d}": (OSLO[0] + (n % 6) * 0.002, OSLO[1] + (n // 6) * 0.004) for n in range(30)
    }
    await opened(api, spots)
    wanted = expected(OSLO, 5_000.0, spots)
    answered: list[str] = []
    spent = []
    after = None
    while True:
        found = await api(NEARBY, lat=OSLO[0], lon=OSLO[1], r=5_000.0, first=1, after=after)
        spent.append((found.cost["requests"], found.cost["estimated"]["requests"]))
        if found.codes == ["BAD_USER_INPUT"]:  # a spot too dense for the reads left
            assert "radiusMeters" in found.errors[0]["message"]
            break
        page = found.ok()["branchesNearby"]
        answered += [edge["node"]["id"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert answered == wanted[: len(answered)] and len(answered) >= 10
    assert all(used <= most for used, most in spent)
    assert any(used == most for used, most in spent), spent
