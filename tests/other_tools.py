"""ElectroDB and dynamodb-onetable driven from the tests as their users run them: with Node,
from the scripts in `tests/tools/` (installed by `make tools`), each answering in JSON."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

TOOLS = Path(__file__).parent / "tools"
NEEDS_NODE = pytest.mark.skipif(
    not (TOOLS / "node_modules").is_dir() or shutil.which("node") is None,
    reason="`make tools` installs ElectroDB and dynamodb-onetable for Node",
)


def tool(script: str, endpoint: str, table: str, action: str, **given: Any) -> Any:
    """What the tool's script (`electrodb.mjs`, `onetable.mjs`) answers to `action`."""
    done = subprocess.run(
        ["node", str(TOOLS / script), endpoint, table, action, json.dumps(given)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NODE_NO_WARNINGS": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def table_made_by(script: str) -> Any:
    """The `table` fixture of a test module: a table the tool made and seeded."""

    @pytest.fixture
    async def table(endpoint: str) -> AsyncIterator[str]:
        async with tool_table(script, endpoint) as name:
            yield name

    return table


@asynccontextmanager
async def tool_table(script: str, endpoint: str) -> AsyncIterator[str]:
    """A table the tool's users made and seeded, dropped afterwards."""
    name = f"{script.removesuffix('.mjs')}-{uuid.uuid4().hex[:12]}"
    await asyncio.to_thread(tool, script, endpoint, name, "create")
    await asyncio.to_thread(tool, script, endpoint, name, "seed")
    try:
        yield name
    finally:
        await asyncio.to_thread(tool, script, endpoint, name, "drop")
