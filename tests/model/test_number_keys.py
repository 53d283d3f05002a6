"""Indexes whose sort keys are numbers (`tests/model/number_keys.py`), on a table an app
made with boto3: lists come in number order (9 before 10 before 100, which text would not
give), ranges bound numbers, pages go on past equal numbers, and what dynagate writes holds
its index keys as numbers the app reads back."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from tests.client import Api
from tests.model.test_adopted_table import app_created, app_table, table_made_by_the_app

pytestmark = pytest.mark.overrides(model="tests.model.number_keys")
# player, game, points, when played (milliseconds since 1970)
SCORES = [
    ("ann", "g1", 9, 1_740_823_200_000),
    ("bob", "g2", 10, 1_740_823_260_000),
    ("cid", "g3", 100, 1_740_823_320_000),
    ("ann", "g4", 10, 1_740_823_380_000),
    ("dee", "g5", 7, 1_740_823_440_000),
]
BOARD = """query ($points: IntRange, $first: Int, $after: String) {
  leaderboard(board: "spring", points: $points, first: $first, after: $after) {
    edges { node { player game points } } pageInfo { hasNextPage endCursor } } }"""
GAMES = """query ($played: DateTimeRange) { gamesOf(player: "ann", played: $played) {
  edges { node { game playedAt } } } }"""


def score_item(player: str, game: str, points: int, played: int) -> dict[str, Any]:
    """A score as the app writes it: its index keys are numbers."""
    return {
        "pk": f"PLAYER#{player}",
        "sk": f"GAME#{game}",
        "gsi1pk": "BOARD#spring",
        "gsi1sk": points,
        "lsi1sk": played,
        "_type": "score",
        "player": player,
        "game": game,
        "board": "spring",
        "points": points,
        "playedAt": played,
    }


def made_by_the_app(endpoint: str, name: str) -> None:
    types = {"pk": "S", "sk": "S", "gsi1pk": "S", "gsi1sk": "N", "lsi1sk": "N"}
    app_created(
        endpoint,
        name,
        types,
        global_indexes={"gsi1": ("gsi1pk", "gsi1sk")},
        local_indexes={"lsi1": "lsi1sk"},
    )
    table = app_table(endpoint, name)
    for score in SCORES:
        table.put_item(Item=score_item(*score))


table = table_made_by_the_app("numbers", made_by_the_app)


def ranked(answer: dict[str, Any]) -> list[tuple[str, int]]:
    return [(e["node"]["game"], e["node"]["points"]) for e in answer["edges"]]


async def test_a_number_key_orders_and_bounds_as_numbers(api: Api) -> None:
    whole = (await api(BOARD)).ok()["leaderboard"]
    assert ranked(whole) == [("g3", 100), ("g4", 10), ("g2", 10), ("g1", 9), ("g5", 7)]
    bounded = (await api(BOARD, points={"from": 9, "to": 10})).ok()["leaderboard"]
    assert ranked(bounded) == [("g4", 10), ("g2", 10), ("g1", 9)]
    above = (await api(BOARD, points={"from": 10})).ok()["leaderboard"]
    assert ranked(above) == [("g3", 100), ("g4", 10), ("g2", 10)]


async def test_pages_go_on_between_equal_numbers(api: Api) -> None:
    seen: list[tuple[str, int]] = []
    after = None
    for _ in range(5):
        page = (await api(BOARD, first=2, after=after)).ok()["leaderboard"]
        seen += ranked(page)
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [("g3", 100), ("g4", 10), ("g2", 10), ("g1", 9), ("g5", 7)]


async def test_an_epoch_time_key_bounds_by_time(api: Api) -> None:
    games = (await api(GAMES)).ok()["gamesOf"]
    assert [e["node"] for e in games["edges"]] == [
        {"game": "g1", "playedAt": "2025-03-01T10:00:00.000Z"},
        {"game": "g4", "playedAt": "2025-03-01T10:03:00.000Z"},
    ]
    later = (await api(GAMES, played={"from": "2025-03-01T10:01:00Z"})).ok()["gamesOf"]
    assert [e["node"]["game"] for e in later["edges"]] == ["g4"]


async def test_what_dynagate_writes_holds_numbers(api: Api, endpoint: str, table: str) -> None:
    added = await api(
        """mutation { addScore(input: {player: "eve", game: "g6", board: "spring",
        points: 55, playedAt: "2025-03-01T11:00:00.250Z"}) { points } }"""
    )
    assert added.ok()["addScore"] == {"points": 55}
    mine = app_table(endpoint, table)
    found = await asyncio.to_thread(mine.get_item, Key={"pk": "PLAYER#eve", "sk": "GAME#g6"})
    item = found["Item"]
    played = int(datetime(2025, 3, 1, 11, 0, 0, 250_000, tzinfo=UTC).timestamp() * 1000)
    assert (item["gsi1sk"], item["lsi1sk"], item["playedAt"]) == (
        Decimal(55),
        Decimal(played),
        Decimal(played),
    )
    moved = await api(
        'mutation { rescore(input: {player: "ann", game: "g1", points: 1000}) { points } }'
    )
    assert moved.ok()["rescore"] == {"points": 1000}
    stored = await asyncio.to_thread(mine.get_item, Key={"pk": "PLAYER#ann", "sk": "GAME#g1"})
    assert stored["Item"]["gsi1sk"] == Decimal(1000)
    top = (await api(BOARD, first=2)).ok()["leaderboard"]
    assert ranked(top) == [("g1", 1000), ("g3", 100)]


def test_a_number_key_holds_one_number_alone() -> None:
    import model as m
    from tests.model.number_keys import BY_POINTS, PK_SK

    for written in ("SCORE#${points}", "${board}"):
        with pytest.raises(m.ModelError, match="is a number"):
            m.Entity(
                "Score",
                {"player": m.Identifier(), "board": m.Identifier(), "points": m.Number()},
                key=m.same(m.template("PLAYER#${player}")),
                indexes={BY_POINTS: m.Keys(m.template("BOARD#${board}"), m.template(written))},
                table=PK_SK,
            )


async def test_model_inspect_reads_number_keys_back(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, endpoint: str, table: str
) -> None:
    from gateway.cli.main import main

    for name, value in {
        "DYNAGATE_DYNAMODB_ENDPOINT": endpoint,
        "DYNAGATE_TABLE": table,
        "DYNAGATE_ENV": "development",
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    inspect = ["model", "inspect", "--model", "tests.model.number_keys"]
    assert await asyncio.to_thread(main, inspect) == 0
    said = capsys.readouterr().out.splitlines()
    assert "  layout: as declared" in said
    assert "  Score: 5 items, 5 read as the model's, 5 whose keys render back" in said
