"""`dynagate verify` on a table whose markers were written before cells of lengths 1 and 2
were counted: the check names the cells, `--repair` rebuilds them from length 3."""

from __future__ import annotations

from typing import Any

from demo import verify as verifier
from tests.client import Api
from tests.demo_map import cell_key
from tests.gateway.test_cli import run

ADD = "mutation ($input: AddMarkerInput!) { addMarker(input: $input) { geohash } }"
WORLD = """{ heatmap(viewport: {north: 90, south: -90, east: 180, west: -180}) {
  precision cells { geohash count } } }"""


async def test_missing_short_counts_are_found_and_rebuilt(
    client: Any, table: str, endpoint: str, api: Api
) -> None:
    places = [(48.85, 2.35), (48.86, 2.34), (-33.87, 151.21)]
    hashes = [
        (await api(ADD, input={"lat": lat, "lon": lon, "label": "m"})).ok()["addMarker"]["geohash"]
        for lat, lon in places
    ]
    assert (await verifier.verify(client, table, progress=False)).counts == []
    # As a table written before lengths 1 and 2 were counted holds them: not at all.
    for cell in {h[:length] for h in hashes for length in (1, 2)}:
        await client.delete_item(
            TableName=table, Key={k: {"S": v} for k, v in cell_key(cell).items()}
        )
    before = (await api(WORLD)).ok()["heatmap"]
    assert before == {"precision": 2, "cells": []}

    env = {"DYNAGATE_DYNAMODB_ENDPOINT": endpoint, "DYNAGATE_TABLE": table}
    checked = run("verify", env=env)
    assert checked.returncode == 1, checked.stderr
    # Length 2 against length 3 (length 1 is then checked against what length 2 holds).
    assert "heatmap counts of lengths 1 and 2: 2 differ" in checked.stdout
    repaired = run("verify", "--repair", env=env)
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "rebuilt 4 cells from their children" in repaired.stdout

    cells = (await api(WORLD)).ok()["heatmap"]["cells"]
    assert sorted((c["geohash"], c["count"]) for c in cells) == sorted(
        [(hashes[0][:2], 2), (hashes[2][:2], 1)]
    )
    assert (await verifier.verify(client, table, progress=False)).exit_code == 0
