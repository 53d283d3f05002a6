"""`dynagate model check` (`gateway/cli/model_check.py`), in-process: a model built as
`serve` builds it, each access pattern printed with its requests and worst case, and a
model the engine cannot serve refused with the declaration named."""

from __future__ import annotations

from pathlib import Path

import pytest

from demo.model import MODEL
from gateway.cli.main import main

COLLIDING = """
from model import Entity, Identifier, Lookup, Model, key, same

A = Entity("Alpha", {"id": Identifier()}, key=same(key("THING", "id")))
B = Entity("Beta", {"id": Identifier()}, key=same(key("THING", "id")))
MODEL = Model((A, B), (Lookup(A, "alpha"), Lookup(B, "beta")))
"""


def colliding_model(folder: Path) -> str:
    """The path of a model the engine cannot serve (two entities' keys can collide), written
    in `folder`, for each command that must refuse it."""
    model = folder / "colliding.py"
    model.write_text(COLLIDING)
    return str(model)


@pytest.fixture(autouse=True)
def restored_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DYNAGATE_MODEL", "demo.model")


def test_the_demo_model_prints_each_pattern_with_its_requests(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["model", "check"]) == 0
    *lines, summary = capsys.readouterr().out.splitlines()
    assert len(lines) == len(MODEL.patterns)
    assert summary == "model 'demo.model': 13 entities, 33 access patterns, ok"
    by_field = dict(line.split(": ", 1) for line in lines)
    orders = by_field["Customer.orders"]
    assert "Query GSI2 GSI2PK=CUSTOMER#<customerId>" in orders
    assert "without status: Query GSI1" in orders
    assert "GSI3PK=ORDERS#PLACED" in by_field["Query.openOrders"]
    assert by_field["Mutation.setOrderStatus"].endswith("worst 2 calls, 1 read")
    assert "every item, at most 100" in by_field["Organization.teams"]


def test_a_model_the_engine_cannot_serve_is_refused_by_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["model", "check", "--model", colliding_model(tmp_path)]) == 2
    assert "Beta and Alpha keys on the table can collide" in capsys.readouterr().err


def checked(model: str, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """What `model check` says of each field of `model`, by field."""
    assert main(["model", "check", "--model", model]) == 0
    lines = capsys.readouterr().out.splitlines()[:-1]
    return dict(line.split(": ", 1) for line in lines)


def test_writes_held_to_an_owner_say_what_they_read_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    by_field = checked("tests.model.ticketing", capsys)
    assert by_field["Mutation.reseat"].startswith("GetItem of its parent (consistent)")
    assert by_field["Mutation.dropOrder"] == (
        "GetItem of its parent (consistent), TransactWriteItems (ConditionCheck on the"
        " parent's owner, Delete); worst 5 calls, 1 read"
    )
    assert by_field["Mutation.cancelOrder"].startswith("GetItem (consistent)")


def test_an_update_of_an_entity_kept_by_place_says_it_moves_its_place(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert checked("tests.model.sites", capsys)["Mutation.changeSite"] == (
        "GetItem (consistent), then TransactWriteItems (the item and its place; on a move the"
        " old place and the cell counts left and entered), again when raced; worst 15 calls,"
        " 3 read"
    )
