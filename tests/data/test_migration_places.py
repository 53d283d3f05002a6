"""A migration of an entity kept by place (`tests/model/sites_v1.py` to `sites.py`: a
category with an initial value and a list by category on GSI1): `migrate plan` finds every
site, `apply` — killed at random points and started again — gives each own item its
category and GSI1 keys and each place item its category, `verify` is then clean, the new
list lists every site, and the cell counts are untouched."""

from __future__ import annotations

import random
from typing import Any

from data.migration.items import Derived, ItemChange, change_of, entity_labels
from gateway.cli.seeding import Seeding
from keys.geohash import encode
from tests.client import Api, settings_for
from tests.data.migration_setup import cli_env, killed_and_resumed
from tests.gateway.test_cli import DYNAGATE
from tests.gateway.test_cli import run as run_cli
from tests.model import sites
from tests.table import scan_all

V1, V2 = "tests.model.sites_v1", "tests.model.sites"
ADD = "mutation ($input: AddSiteInput!) { addSite(input: $input) { id } }"
SITES = 30


def spots() -> list[tuple[float, float]]:
    draw = random.Random(7)
    return [(draw.uniform(-60, 60), draw.uniform(-170, 170)) for _ in range(SITES)]


async def written_by_v1(client: Any, table: str) -> None:
    api = Seeding(client, table, V1)
    for n, (lat, lon) in enumerate(spots()):
        given = {"id": f"s{n}", "name": f"Site {n}", "lat": lat, "lon": lon}
        await api.execute(ADD, {"input": given})


def test_every_item_of_a_placed_entity_is_found() -> None:
    """Pure: the own item (no discriminator: its place holds it), the place item and a
    cell count are each known for what they are."""
    labels = entity_labels(sites.MODEL)
    own = {"PK": "SITE#s1", "SK": "SITE#s1", "id": "s1", "name": "A", "lat": 1.0, "lon": 2.0}
    own["updatedAt"] = "2026-12-01T10:00:00.000Z"
    own["cell"] = encode(1.0, 2.0, 12)
    found = change_of(labels, {"GSI1PK", "GSI1SK"}, own)
    assert isinstance(found, ItemChange) and not found.derived
    assert found.sets == {"GSI1PK": "SITES#OTHER", "GSI1SK": "SITE#s1", "category": "OTHER"}
    assert found.expect["category"] is None  # still absent when written
    cell = own["cell"]
    place = {**own, "PK": f"StPl#{cell[:3]}", "SK": f"{cell[3:]}#s1", "type": "SITE"}
    placed = change_of(labels, {"GSI1PK", "GSI1SK"}, place)
    assert isinstance(placed, ItemChange) and placed.derived
    assert placed.sets == {"category": "OTHER"}
    counted = change_of(labels, (), {"PK": f"StCe#{cell[:2]}", "SK": cell[2:5], "count": 1})
    assert counted == Derived(sites.SITE)
    assert isinstance(change_of(labels, (), {"PK": "StCe1#", "SK": "s", "count": 1}), Derived)


async def test_killed_and_resumed_it_brings_every_site_to_the_model(
    client: Any, table: str, endpoint: str
) -> None:
    await written_by_v1(client, table)
    before = await scan_all(client, table)
    counts = {(i["PK"], i["SK"]): i["count"] for i in before if i["PK"].startswith("StCe")}
    env = cli_env(endpoint, table)
    planned = run_cli("migrate", "plan", "--model", V2, env=env)
    assert planned.returncode == 1, (planned.stdout, planned.stderr)  # work to do
    assert f"({sites.SITE.name} {SITES})" in planned.stdout, planned.stdout
    assert f"Site: {SITES} items to write: GSI1PK, GSI1SK, category given" in planned.stdout
    assert "derived from them" in planned.stdout
    command = [DYNAGATE, "migrate", "apply", "--model", V2, "--max-wcu", "40"]
    await killed_and_resumed(command, env, seed=13, shortest=1.5)
    verified = run_cli("verify", "--model", V2, env=env)
    assert verified.returncode == 0, (verified.stdout, verified.stderr)
    items = await scan_all(client, table)
    own = [i for i in items if i["PK"].startswith("SITE#")]
    places = [i for i in items if i["PK"].startswith("StPl#")]
    assert len(own) == len(places) == SITES
    for item in own:
        assert (item["category"], item["GSI1PK"], item["GSI1SK"]) == (
            "OTHER",
            "SITES#OTHER",
            item["SK"],
        )
    assert all(p["category"] == "OTHER" and "GSI1PK" not in p for p in places)
    after = {(i["PK"], i["SK"]): i["count"] for i in items if i["PK"].startswith("StCe")}
    assert after == counts
    settings = settings_for(endpoint, table, model=V2)
    async with Api.serving(settings) as api:
        listed: list[str] = []
        after_cursor = None
        while True:
            page = await api(
                "query ($a: String) { sitesOf(category: OTHER, first: 20, after: $a)"
                " { edges { node { id } } pageInfo { hasNextPage endCursor } } }",
                a=after_cursor,
            )
            found = page.ok()["sitesOf"]
            listed += [e["node"]["id"] for e in found["edges"]]
            if not found["pageInfo"]["hasNextPage"]:
                break
            after_cursor = found["pageInfo"]["endCursor"]
        assert sorted(listed) == sorted(f"s{n}" for n in range(SITES))
