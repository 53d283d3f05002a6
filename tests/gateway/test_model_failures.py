"""A model that fails to load, on every command that takes `--model`: one message naming
the file, the line of the model's own code and the error, the model's own frames only,
exit 2 (never the engine's traceback)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.cli.main import main
from gateway.cli.parser import command_parser
from tests.programs import serve_refused

ROOT = Path(__file__).parents[2]
# A positional argument a command needs, as a file that is there.
GIVEN = {
    "old": str(ROOT / "schema.graphql"),
    "manifest": str(ROOT / "examples" / "trusted-documents.json"),
    "entity": "Customer",
    "key": "id=c1",
}

RAISES = """\
import json


def declare():
    raise RuntimeError("not a model")


MODEL = declare()
"""
# (file's text, the line named, what the error says)
FAILURES = {
    "raises": (RAISES, 5, "RuntimeError: not a model"),
    "syntax": ("MODEL = (\n", 1, "SyntaxError: '(' was never closed"),
    "imports": ("import json\nimport no_such_package\n", 2, "No module named 'no_such_package'"),
}


def commands_with_a_model(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[list[str]]:
    """Every command of `dynagate` that takes `--model`, with what it must be given."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for name, command in action.choices.items():
            options = {o for a in command._actions for o in a.option_strings}
            if "--model" in options:
                given = [GIVEN[a.dest] for a in command._actions if not a.option_strings]
                yield [*path, name, *given]
            yield from commands_with_a_model(command, (*path, name))


COMMANDS = list(commands_with_a_model(command_parser()))


@pytest.fixture(autouse=True)
def nowhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """A DynamoDB that refuses at once: a command that reached for it before loading the
    model would fail otherwise than a model's failure does."""
    monkeypatch.setenv("DYNAGATE_MODEL", "demo.model")
    monkeypatch.setenv("DYNAGATE_ENV", "development")
    monkeypatch.setenv("DYNAGATE_DYNAMODB_ENDPOINT", "http://127.0.0.1:9")


def written(folder: Path, failure: str) -> Path:
    text, _, _ = FAILURES[failure]
    file = folder / f"{failure}_model.py"
    file.write_text(text)
    return file


def assert_named(said: str, file: Path, failure: str) -> None:
    _, line, error = FAILURES[failure]
    # The settings' warnings come first, as on any start.
    said = "\n".join(line for line in said.splitlines() if not line.startswith("WARNING "))
    first = said.splitlines()[0]
    assert first.startswith("dynagate: ") and f"{file}, line {line}: " in first, said
    assert error in first, said
    assert "Traceback (most recent call last)" not in said
    # Only the model's own frames: nothing of the engine, importlib or the standard library.
    frames = [line for line in said.splitlines() if line.lstrip().startswith('File "')]
    assert frames and all(f'File "{file}"' in frame for frame in frames), said


def test_every_command_that_reads_a_model_is_tried() -> None:
    named = {
        " ".join(c[:2]) if c[0] in {"documents", "model", "migrate"} else c[0] for c in COMMANDS
    }
    assert {
        "serve",
        "check",
        "seed",
        "export-schema",
        "model check",
        "migrate apply",
        "remove",
    } <= named


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_a_model_that_fails_is_named_with_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str], failure: str
) -> None:
    file = written(tmp_path, failure)
    if command[0] == "serve":
        return  # in a process of its own, below
    assert main([*command, "--model", str(file)]) == 2
    assert_named(capsys.readouterr().err, file, failure)


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_serve_stops_at_once_with_the_same_message(tmp_path: Path, failure: str) -> None:
    file = written(tmp_path, failure)
    served = serve_refused({"DYNAGATE_MODEL": str(file)}, cwd=tmp_path)
    assert served.returncode == 2
    assert_named(served.stderr, file, failure)


def test_a_model_module_by_name_is_named_by_its_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "shop_models"
    package.mkdir()
    (package / "__init__.py").write_text("")
    file = package / "shop.py"
    file.write_text(RAISES)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["export-schema", "--model", "shop_models.shop"]) == 2
    _, line, error = FAILURES["raises"]
    said = capsys.readouterr().err
    assert f"{file}, line {line}: {error}" in said.splitlines()[0]


def test_a_module_without_model_names_its_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    file = tmp_path / "empty_model.py"
    file.write_text("X = 1\n")
    assert main(["model", "check", "--model", str(file)]) == 2
    assert f"{file} declares no FACE or MODEL" in capsys.readouterr().err
