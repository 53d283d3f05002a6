"""Real client libraries' scripts (`tests/clients/*.mjs`, installed by `make clients`) run
with Node against a gateway on a real port, each case printed as a JSON line."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

CLIENTS = Path(__file__).parent / "clients"
INSTALL = "run `make clients` (npm ci in tests/clients) to install the client libraries"


async def client_cases(
    script: str, *arguments: str, seconds: float
) -> tuple[list[dict[str, Any]], int | None, str]:
    """The cases `script` runs given `arguments` (a gateway's URL first), within `seconds`:
    one result per case ({name, ok, detail}), how the script exited and the end of what it
    said on stderr. No node on the PATH is a skip; no libraries, a failure saying why."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no `node` on the PATH: the client libraries run on Node.js")
    if not (CLIENTS / "node_modules" / "@apollo" / "client").is_dir():
        pytest.fail(INSTALL, pytrace=False)
    run = await asyncio.create_subprocess_exec(
        node,
        str(CLIENTS / script),
        *arguments,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(run.communicate(), seconds)
    finally:
        if run.returncode is None:
            run.kill()
            await run.wait()
    results = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
    return results, run.returncode, err.decode()[-4000:]
