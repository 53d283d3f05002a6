"""docs/model.md's "Adopting an existing table", kept true: the app's own boto3 code makes
and writes its table, `model infer` drafts a model, the reviewed model is checked against
the table, served, and both apps write, each reading what the other wrote.

The guide marks what this reads with an HTML comment before each fenced block:

    <!-- adopting: app.py -->     the app's module, written to the reader's directory
    <!-- adopting: python -->     run with Python in that directory, as the app runs
    <!-- adopting: prints -->     what the Python before it prints
    <!-- adopting: console -->    `$ dynagate …`, then what it prints
    <!-- adopting: legacy.py -->  the reviewed model, written over the draft
    <!-- adopting: request -->    a GraphQL document, run on the served model
    <!-- adopting: answer -->     its answer, without `extensions` and `locations`
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gateway.served_model import declared
from model import Model
from tests.client import Api, settings_for
from tests.docs.test_model_guide import GUIDE, as_shown, dynagate

MARKED = re.compile(
    r"<!-- adopting: (?P<what>.*?) -->\n```(?P<language>\w*)\n(?P<body>.*?)\n```", re.S
)
TABLE = "legacy"


@dataclass(frozen=True)
class Block:
    what: str
    body: str


def marked() -> list[Block]:
    text = GUIDE.read_text(encoding="utf-8")
    return [Block(m["what"], m["body"]) for m in MARKED.finditer(text)]


def test_the_guide_marks_each_step() -> None:
    kinds = [b.what for b in marked()]
    assert kinds.count("app.py") == kinds.count("legacy.py") == 1
    assert kinds.index("app.py") < kinds.index("legacy.py") < kinds.index("request")
    for at, kind in enumerate(kinds):
        if kind == "prints":
            assert kinds[at - 1] == "python"
        if kind == "answer":
            assert kinds[at - 1] == "request"
            json.loads(marked()[at].body)
    assert kinds.count("request") >= 4 and kinds.count("prints") >= 2


@dataclass
class Reader:
    """The walk-through as a reader follows it, in a directory of their own, the table
    named for this run (shown as `legacy`)."""

    endpoint: str
    table: str
    root: Path
    stack: AsyncExitStack
    api: Api | None = None
    answered: dict[str, Any] | None = None
    printed: str | None = None

    @property
    def env(self) -> dict[str, str]:
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
        return {
            **clean,
            "AWS_ENDPOINT_URL_DYNAMODB": self.endpoint,
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "local",
            "AWS_SECRET_ACCESS_KEY": "local",
            "DYNAGATE_DYNAMODB_ENDPOINT": self.endpoint,
            "DYNAGATE_TABLE": self.table,
        }

    def write(self, name: str, text: str) -> None:
        (self.root / name).write_text(text.replace(f'"{TABLE}"', f'"{self.table}"') + "\n")

    async def python(self, code: str) -> None:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, cwd=self.root, env=self.env, stdout=-1, stderr=-1
        )
        out, err = await asyncio.wait_for(process.communicate(), timeout=120)
        assert process.returncode == 0, err.decode()
        self.printed = out.decode()

    def check_printed(self, shown: str) -> None:
        assert self.printed is not None
        assert self.printed.splitlines() == shown.splitlines()
        self.printed = None

    async def run(self, console: str) -> None:
        command, *printed = console.splitlines()
        command = command.removeprefix("$ ").replace(f"--table {TABLE}", f"--table {self.table}")
        code, out, err = await dynagate(command, self.root, self.env)
        lines = [line.replace(f"'{self.table}'", f"'{TABLE}'") for line in out.splitlines()]
        assert (code, lines) == (0, printed), (command, out, err)
        # The SDK's notes on where it found credentials are no part of a command's output.
        assert "Found credentials" not in err, err

    async def ask(self, document: str) -> None:
        if self.api is None:
            model = str(self.root / "legacy.py")
            settings = settings_for(self.endpoint, self.table, model=model)
            self.api = await self.stack.enter_async_context(Api.serving(settings))
        result = await self.api(document)
        assert result.status == 200, result.body
        self.answered = as_shown(result.body)

    def check_answer(self, shown: str) -> None:
        assert self.answered == json.loads(shown)
        self.answered = None


@pytest.fixture
async def reader(endpoint: str, client: Any, tmp_path: Path) -> AsyncIterator[Reader]:
    table = f"{TABLE}-{uuid.uuid4().hex[:12]}"
    async with AsyncExitStack() as stack:
        yield Reader(endpoint, table, tmp_path, stack)
    if table in (await client.list_tables())["TableNames"]:
        await client.delete_table(TableName=table)


async def test_the_walk_through_runs_as_written(reader: Reader) -> None:
    for block in marked():
        if block.what == "app.py":
            reader.write(block.what, block.body)
        elif block.what == "legacy.py":
            # What the reader reviews is infer's draft: a model that builds (loaded from a
            # path of its own, since a model module is loaded once per path).
            draft = reader.root / "draft" / "legacy.py"
            draft.parent.mkdir()
            draft.write_text((reader.root / "legacy.py").read_text())
            assert isinstance(declared(str(draft)), Model)
            reader.write(block.what, block.body)
        elif block.what == "python":
            await reader.python(block.body)
        elif block.what == "prints":
            reader.check_printed(block.body)
        elif block.what == "console":
            await reader.run(block.body)
        elif block.what == "request":
            await reader.ask(block.body)
        elif block.what == "answer":
            reader.check_answer(block.body)
    assert reader.answered is None and reader.printed is None
