"""ElectroDB and dynamodb-onetable driven from the tests as their users run them: with Node,
from the scripts in `tests/tools/` (installed by `make tools`), each answering in JSON."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.client import Api, Result

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


def list_query(parent: str, field: str, nodes: Sequence[str]) -> str:
    """A query of `parent`'s name and a page of its list `field` (`$first` after `$after`),
    each node's `nodes`: the list each tool's test reads as the tool's own query does."""
    return (
        f"query ($first: Int, $after: String) {{ {parent} {{ name"
        f" {field}(first: $first, after: $after) {{ edges {{ node {{ {' '.join(nodes)} }} }}"
        " pageInfo { hasNextPage endCursor } } } }"
    )


async def both_pages(
    api: Api, query: str, parent: str, field: str
) -> tuple[Result, dict[str, Any], list[dict[str, Any]]]:
    """The first page's answer (two nodes), its `parent`, and the nodes of both pages, the
    second read after the first's end cursor: a list read as a client pages through it."""
    first = await api(query, first=2)
    owner = first.ok()[parent]
    after = owner[field]["pageInfo"]["endCursor"]
    rest = (await api(query, first=2, after=after)).ok()[parent][field]
    return first, owner, [edge["node"] for edge in (*owner[field]["edges"], *rest["edges"])]


@dataclass(frozen=True)
class Tool:
    """One tool as a test module drives it: its script, and the fields of the list it
    compares (dynagate's nodes show those; the tool's items hold more)."""

    script: str
    fields: tuple[str, ...]

    async def __call__(self, endpoint: str, table: str, action: str, **given: Any) -> Any:
        """What the script answers to `action`, run beside the event loop."""
        return await asyncio.to_thread(tool, self.script, endpoint, table, action, **given)

    def shown(self, item: Mapping[str, Any]) -> dict[str, Any]:
        return {name: item[name] for name in self.fields}

    def list_query(self, parent: str, field: str) -> str:
        return list_query(parent, field, self.fields)

    async def same_list(
        self, api: Api, query: str, parent: str, field: str, theirs: Sequence[Mapping[str, Any]]
    ) -> tuple[Result, dict[str, Any]]:
        """Dynagate's pages of a list (`both_pages`), which show the items of the tool's own
        query of it (`theirs`) in the same order: the first page's answer and its `parent`."""
        first, owner, ours = await both_pages(api, query, parent, field)
        assert ours == [self.shown(item) for item in theirs]
        return first, owner
