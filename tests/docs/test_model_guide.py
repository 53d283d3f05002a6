"""docs/model.md's tutorial, kept true: its model files, its commands and their output,
its GraphQL documents and their answers, run in the order the guide gives them.

The guide marks what this reads with an HTML comment before each fenced block:

    <!-- tutorial: clinic.py step N -->   the whole of clinic.py at step N
    <!-- tutorial: clinic.py seed -->     added to the end of clinic.py, then and after
    <!-- tutorial: console -->            `$ dynagate …`, then what it prints
    <!-- tutorial: request -->            a GraphQL document, run on the model of the moment
    <!-- tutorial: answer -->             its answer, without `extensions` and `locations`
    <!-- tutorial: refusal A -> B -->     what `model check` says of step 1 with A made B

Generated ids (KSUIDs) in an answer stand for whatever id the gateway made; the same id
in a later document is the one made.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gateway.schema.build import schema_sdl
from gateway.served_model import declared, served
from model import Model
from tests.client import Api, settings_for

GUIDE = Path(__file__).parents[2] / "docs" / "model.md"
DYNAGATE = str(Path(sys.executable).with_name("dynagate"))
MARKED = re.compile(
    r"<!-- tutorial: (?P<what>.*?) -->\n```(?P<language>\w*)\n(?P<body>.*?)\n```", re.S
)
KSUID = re.compile(r"[0-9A-Za-z]{27}")
# The guide's table, and how `apply` says what it wrote (the time and rate vary).
TABLE = "clinic"
PACED = re.compile(r"\d[\d,]* write units in [\d.,]+ s \([\d.,]+ a second; at most [\d.,]+\)")


@dataclass(frozen=True)
class Block:
    what: str
    language: str
    body: str


def marked() -> list[Block]:
    text = GUIDE.read_text(encoding="utf-8")
    return [Block(m["what"], m["language"], m["body"]) for m in MARKED.finditer(text)]


def model_files() -> dict[str, str]:
    """Each state of clinic.py the guide gives, in order: a step's file ends with the seed
    functions once they were added."""
    files: dict[str, str] = {}
    current, seed = "", ""
    for block in marked():
        if block.what == "clinic.py seed":
            seed = block.body
            current = f"{current}\n\n\n{seed}\n"
            files["seed"] = current
        elif block.what.startswith("clinic.py step "):
            current = block.body + "\n" + (f"\n\n{seed}\n" if seed else "")
            files[block.what.removeprefix("clinic.py ")] = current
    return files


def written(directory: Path, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "clinic.py"
    path.write_text(text, encoding="utf-8")
    return path


def same_answer(expected: Any, found: Any, ids: dict[str, str]) -> bool:
    """`found` is `expected`, an id of the guide's standing for the id found (and bound
    to it from then on)."""
    if isinstance(expected, str) and KSUID.fullmatch(expected) and isinstance(found, str):
        return ids.setdefault(expected, found) == found and bool(KSUID.fullmatch(found))
    if isinstance(expected, dict) and isinstance(found, dict):
        return expected.keys() == found.keys() and all(
            same_answer(expected[k], found[k], ids) for k in expected
        )
    if isinstance(expected, list) and isinstance(found, list):
        return len(expected) == len(found) and all(
            same_answer(e, f, ids) for e, f in zip(expected, found, strict=True)
        )
    return bool(expected == found)


def as_shown(body: dict[str, Any]) -> dict[str, Any]:
    """An answer as the guide shows it: no `extensions`, errors without `locations`."""
    shown = {k: v for k, v in body.items() if k != "extensions"}
    if "errors" in shown:
        shown["errors"] = [
            {k: v for k, v in error.items() if k != "locations"} for error in shown["errors"]
        ]
    return shown


def cli_env(endpoint: str, table: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
    return {**clean, "DYNAGATE_DYNAMODB_ENDPOINT": endpoint, "DYNAGATE_TABLE": table}


async def dynagate(command: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """`$ dynagate …` as the guide gives it, in `cwd`."""
    words = shlex.split(command)
    assert words[0] == "dynagate", command
    process = await asyncio.create_subprocess_exec(
        DYNAGATE, *words[1:], cwd=cwd, env=env, stdout=-1, stderr=-1
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=300)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


# ---- without DynamoDB


def test_the_guide_marks_each_step_of_the_tutorial() -> None:
    blocks = marked()
    assert list(model_files()) == ["step 1", "step 3", "seed", "step 5"]
    kinds = [b.what.split()[0] for b in blocks]
    for at, kind in enumerate(kinds):
        if kind == "request":
            assert kinds[at + 1] == "answer", blocks[at].body
            assert blocks[at].language == "graphql"
        if kind == "answer":
            assert kinds[at - 1] == "request"
            json.loads(blocks[at].body)
        if kind == "console":
            assert blocks[at].body.startswith("$ dynagate "), blocks[at].body
    assert kinds.count("request") >= 10
    assert sum(b.body.startswith("$ dynagate migrate apply") for b in blocks) == 1


@pytest.mark.parametrize("state", ["step 1", "step 3", "seed", "step 5"])
def test_each_model_of_the_tutorial_builds(tmp_path: Path, state: str) -> None:
    path = str(written(tmp_path, model_files()[state]))
    assert isinstance(declared(path), Model)
    served(path)
    sdl = schema_sdl(path)  # the whole schema: a type named twice fails here
    assert "type Doctor {" in sdl


async def test_the_refusal_the_guide_shows(endpoint: str, tmp_path: Path) -> None:
    (refusal,) = [b for b in marked() if b.what.startswith("refusal ")]
    old, new = refusal.what.removeprefix("refusal ").split(" -> ")
    first = model_files()["step 1"]
    assert old in first
    written(tmp_path, first.replace(old, new))
    code, out, err = await dynagate(
        "dynagate model check --model clinic.py", tmp_path, cli_env(endpoint, TABLE)
    )
    assert (code, err.strip()) == (2, refusal.body), out


# ---- against DynamoDB Local


@dataclass
class Reader:
    """The tutorial as a reader follows it: the model of the moment, served in-process."""

    endpoint: str
    table: str
    root: Path
    stack: AsyncExitStack
    model: Path | None = None
    api: Api | None = None
    ids: dict[str, str] = field(default_factory=dict)
    answered: dict[str, Any] | None = None

    async def write_model(self, state: str, text: str) -> None:
        """A new clinic.py, in a directory of its own (a model module is loaded once per
        path); the server of the previous one stops being asked."""
        self.model = written(self.root / state.replace(" ", "-"), text)
        self.api = None

    async def ask(self, document: str) -> None:
        assert self.model is not None
        if self.api is None:
            settings = settings_for(self.endpoint, self.table, model=str(self.model))
            self.api = await self.stack.enter_async_context(Api.serving(settings))
        for shown, made in self.ids.items():
            document = document.replace(shown, made)
        result = await self.api(document)
        assert result.status == 200, result.body
        self.answered = as_shown(result.body)

    def check_answer(self, shown: str) -> None:
        assert self.answered is not None
        expected = json.loads(shown)
        assert same_answer(expected, self.answered, self.ids), (expected, self.answered)
        self.answered = None

    async def run(self, console: str) -> None:
        assert self.model is not None
        command, *printed = console.splitlines()
        env = cli_env(self.endpoint, self.table)
        code, out, err = await dynagate(command.removeprefix("$ "), self.model.parent, env)
        lines = [line.replace(f"'{self.table}'", f"'{TABLE}'") for line in out.splitlines()]
        expected = list(printed)
        for at, line in enumerate(expected):
            if PACED.fullmatch(line) and at < len(lines) and PACED.fullmatch(lines[at]):
                lines[at] = line
        assert lines == expected, (command, out, err)
        work = expected[-1] == "run `dynagate migrate apply` to make these changes"
        assert code == (1 if work else 0), (command, out, err)


@pytest.fixture
async def reader(endpoint: str, client: Any, tmp_path: Path) -> AsyncIterator[Reader]:
    table = f"{TABLE}-{uuid.uuid4().hex[:12]}"
    async with AsyncExitStack() as stack:
        yield Reader(endpoint, table, tmp_path, stack)
    tables = await client.list_tables()
    if table in tables["TableNames"]:
        await client.delete_table(TableName=table)


async def test_the_tutorial_runs_as_written(reader: Reader) -> None:
    """From an empty table: every command prints what the guide shows, every document
    answers what it shows, through the change of the model and its migration, after which
    the new list holds the appointments written before it."""
    files = model_files()
    for block in marked():
        kind = block.what.split()[0]
        if block.what.startswith("clinic.py "):
            state = block.what.removeprefix("clinic.py ")
            await reader.write_model(state, files[state])
        elif kind == "console":
            await reader.run(block.body)
        elif kind == "request":
            await reader.ask(block.body)
        elif kind == "answer":
            reader.check_answer(block.body)
    assert reader.model is not None and reader.model.parent.name == "step-5"
    assert reader.answered is None
    # The seeded doctors' appointments, written before the change, are in the new list.
    await reader.ask(
        '{ doctor(id: "doctor-0") { appointmentsByStatus(status: BOOKED) {'
        " edges { node { patient status } } } } }"
    )
    assert reader.answered is not None
    edges = reader.answered["data"]["doctor"]["appointmentsByStatus"]["edges"]
    assert [e["node"] for e in edges] == [
        {"patient": p, "status": "BOOKED"}
        for p in ("Jon Baker", "Mia Chen", "Ravi Nair", "Lea Roth")
    ]
