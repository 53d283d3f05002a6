"""The gateway as real clients call it: Apollo Client, urql and graphql-ws (pinned in
tests/clients/package.json, installed by `make test`), set up as their documentation sets
them up, run with Node against the gateway on a real port. Each case is named in the
failure: HttpLink, persisted queries over POST and over hash-only GET, BatchHttpLink, a
token in a header, urql's persistedExchange, and subscriptions over graphql-transport-ws."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from tests.client import settings_for
from tests.identity import SECURED, token
from tests.live import served

pytestmark = pytest.mark.streamed
SCRIPT = Path(__file__).parents[1] / "clients" / "clients.mjs"
INSTALL = "run `make clients` (npm ci in tests/clients) to install the client libraries"
# BatchHttpLink sends up to 10 operations in one request by default.
MAX_BATCH = 10
RUN_SECONDS = 240


async def test_apollo_urql_and_graphql_ws_work_as_set_up(endpoint: str, table: str) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no `node` on the PATH: the client libraries run on Node.js")
    if not (SCRIPT.parent / "node_modules" / "@apollo" / "client").is_dir():
        pytest.fail(INSTALL, pytrace=False)
    # The shipped defaults, but batches on; a second gateway on the same table checks tokens.
    batching = settings_for(endpoint, table, max_batch=MAX_BATCH)
    secured = settings_for(endpoint, table, **SECURED)
    async with served(batching) as gateway, served(secured) as signing:
        run = await asyncio.create_subprocess_exec(
            node,
            str(SCRIPT),
            gateway.url + "/graphql",
            signing.url + "/graphql",
            token("Ada", ttl=RUN_SECONDS * 2),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(run.communicate(), RUN_SECONDS)
        finally:
            if run.returncode is None:
                run.kill()
                await run.wait()
    results = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
    failed = [f"{r['name']}: {r['detail']}" for r in results if not r["ok"]]
    assert failed == [], "\n".join(failed)
    assert run.returncode == 0 and len(results) >= 25, err.decode()[-4000:]
