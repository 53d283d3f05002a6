"""The GraphQL over HTTP specification's own server audits (the `graphql-http` package,
pinned in tests/conformance/package.json and installed by `make test`), run with Node
against the gateway on a real port: every audit, MUST, SHOULD and MAY, passes."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from tests.client import settings_for
from tests.live import served

AUDIT = Path(__file__).parents[1] / "conformance" / "audit.mjs"
INSTALL = "run `make conformance` (npm ci in tests/conformance) to install the audits"


async def test_every_audit_of_the_specification_passes(endpoint: str, table: str) -> None:
    node = shutil.which("node")
    if node is None or not (AUDIT.parent / "node_modules" / "graphql-http").is_dir():
        pytest.fail(f"the audits need Node and graphql-http: {INSTALL}", pytrace=False)
    async with served(settings_for(endpoint, table)) as gateway:
        audit = await asyncio.create_subprocess_exec(
            node, str(AUDIT), gateway.url + "/graphql", stdout=asyncio.subprocess.PIPE
        )
        out, _ = await asyncio.wait_for(audit.communicate(), 120)
    results = [json.loads(line) for line in out.decode().splitlines()]
    assert len(results) >= 60, results
    failed = [f"{r['id']} {r['name']}: {r.get('reason')}" for r in results if r["status"] != "ok"]
    assert failed == []
