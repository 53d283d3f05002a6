"""The playground in a real browser with no internet: headless Chromium (Debian's, which
`make test` installs) loads GraphiQL from the gateway, renders it with the query a shared
URL carries, and runs GraphiQL's schema query against the gateway."""

from __future__ import annotations

import asyncio
import re
import socket
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
import strawberry
import uvicorn

from gateway.app import create_app
from gateway.settings import Settings

CHROMIUM = Path("/usr/bin/chromium")
# Every host name fails to resolve, except this machine: the browser has no internet.
NO_INTERNET = "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"
QUERY = '{ product(id: "p1") { id name } }'
CDN_PAGE = Path(strawberry.__file__).parent / "static" / "graphiql.html"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
async def served(endpoint: str, table: str) -> AsyncIterator[str]:
    """The gateway on a real port, as `dynagate serve` runs it."""
    settings = Settings(table=table, endpoint=endpoint, cursor_secret=b"test-secret")
    port = free_port()
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:  # noqa: ASYNC110 (uvicorn offers no event for it)
        await asyncio.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    await task


async def rendered(url: str) -> str:
    """The page's DOM once its scripts have run, as headless Chromium sees it."""
    assert CHROMIUM.exists(), "run `make browser` (Debian's chromium) for this test"  # noqa: ASYNC240
    with tempfile.TemporaryDirectory() as profile:
        browser = await asyncio.create_subprocess_exec(
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            f"--host-resolver-rules={NO_INTERNET}",
            "--virtual-time-budget=20000",
            "--dump-dom",
            url,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        dom, _ = await asyncio.wait_for(browser.communicate(), timeout=90)
    return dom.decode()


async def test_the_playground_renders_offline_and_runs_a_query(served: str) -> None:
    dom = await rendered(f"{served}/graphql?query={quote(QUERY)}")
    # Strawberry's own page, whose files come from a CDN, stays blank offline.
    assert "graphiql-execute-button" not in await rendered(CDN_PAGE.as_uri())
    # React rendered GraphiQL's editors and its run button: every script loaded.
    assert 'class="graphiql-execute-button' in dom
    assert 'class="graphiql-query-editor' in dom
    assert "Loading" not in re.sub(r"<script.*?</script>", "", dom, flags=re.DOTALL)
    assert "product" in dom  # the query from the URL is in the editor
    async with httpx.AsyncClient(base_url=served) as http:
        metrics = (await http.get("/metrics")).text
    # GraphiQL asked the gateway for its schema: a query the playground ran.
    ran = re.search(
        r'dynagate_graphql_requests_total\{code="ok",operation_type="query"\} (\S+)', metrics
    )
    assert ran is not None and float(ran.group(1)) >= 1, metrics
