"""`--model` on the commands that touch the table or the schema, and `DYNAGATE_MODEL`: a
module's dotted name or a `.py` file's path (docs/model.md), run in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.cli.main import main

LIBRARY = Path(__file__).parents[1] / "model" / "library.py"


@pytest.fixture(autouse=True)
def restored_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--model` sets DYNAGATE_MODEL for the process: put it back after each test."""
    monkeypatch.setenv("DYNAGATE_MODEL", "demo.model")


@pytest.mark.parametrize("named", [str(LIBRARY), "tests.model.library"])
def test_a_model_by_path_or_module_exports_its_own_schema(
    capsys: pytest.CaptureFixture[str], named: str
) -> None:
    assert main(["export-schema", "--model", named]) == 0
    sdl = capsys.readouterr().out
    assert "type Shelf {" in sdl and "type Order {" not in sdl
    assert main(["export-schema", "--model", "demo.model"]) == 0
    assert "type Order {" in capsys.readouterr().out


def test_the_setting_takes_a_path_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DYNAGATE_MODEL", str(LIBRARY))
    assert main(["export-schema"]) == 0
    assert "type Shelf {" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("named", "said"),
    [
        ("nowhere/model.py", "no such file"),
        ("no.such.module", "there is no module 'no'"),
        ("json", "declares no FACE or MODEL"),
    ],
)
def test_a_model_that_is_not_there_stops_with_one_line(
    capsys: pytest.CaptureFixture[str], named: str, said: str
) -> None:
    assert main(["export-schema", "--model", named]) == 2
    assert said in capsys.readouterr().err
