"""`dynagate serve`: one log stream in one format, and a warning at start when DynamoDB or
the table is not there yet."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from gateway.cli.dynamodb_local import free_port
from gateway.readiness import READY_CHECK_SECONDS
from gateway.settings import Settings
from store.tables import create_table
from tests.client import Api

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

DYNAGATE = str(Path(sys.executable).with_name("dynagate"))


async def _until_up(http: httpx.AsyncClient, process: asyncio.subprocess.Process) -> None:
    deadline = time.monotonic() + 30
    while True:
        assert process.returncode is None, "serve exited"
        try:
            if (await http.get("/healthz")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "serve did not answer within 30 s"
        await asyncio.sleep(0.1)


async def test_serve_logs_every_record_as_json_and_each_request_once(
    endpoint: str, table: str
) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
    env = {
        **clean,
        "DYNAGATE_DYNAMODB_ENDPOINT": endpoint,
        "DYNAGATE_TABLE": table,
        "DYNAGATE_LOG_FORMAT": "json",
    }
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        *(DYNAGATE, "serve", "--port", str(port)),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base, trust_env=False) as http:
            await _until_up(http, process)
            response = await http.post(
                "/graphql", json={"query": "{ __typename }"}, headers={"X-Request-ID": "serve-1"}
            )
        assert response.status_code == 200
    finally:
        if process.returncode is None:
            process.terminate()
        stdout, stderr = await asyncio.wait_for(process.communicate(), 30)
    lines = (stdout + stderr).decode().splitlines()
    entries = []
    for line in lines:
        try:
            entries.append(json.loads(line))
        except ValueError:
            pytest.fail(f"not a JSON line: {line!r}")
    # uvicorn's own records (start-up, shutdown) take the same format.
    assert any(entry["logger"].startswith("uvicorn") for entry in entries), lines
    about = [line for line in lines if "serve-1" in line or "/graphql" in line]
    assert len(about) == 1, about
    [entry] = [entry for entry in entries if entry.get("requestId") == "serve-1"]
    assert entry["logger"] == "dynagate.requests"
    assert entry["status"] == 200


def _start_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "dynagate" and r.levelno == logging.WARNING and "/readyz" in r.getMessage()
    ]


async def test_start_warns_once_when_nothing_listens(caplog: pytest.LogCaptureFixture) -> None:
    endpoint = f"http://127.0.0.1:{free_port()}"
    settings = Settings(table="start-check", endpoint=endpoint, cursor_secret=b"test-secret")
    loop = asyncio.get_running_loop()
    with caplog.at_level(logging.WARNING, logger="dynagate"):
        started = loop.time()
        async with Api.serving(settings) as api:
            took = loop.time() - started
            ready = await api.http.get("/readyz")
            assert (await api.http.get("/healthz")).status_code == 200
    assert took < READY_CHECK_SECONDS + 1  # start-up is not held up for long
    [warning] = _start_warnings(caplog)
    assert endpoint in warning
    assert "'start-check'" in warning
    assert "`dynagate dynamodb-local`" in warning
    assert "DYNAGATE_DYNAMODB_ENDPOINT" in warning
    assert "\n" not in warning
    assert ready.status_code == 503
    assert ready.json()["reason"]


async def test_start_warns_of_a_missing_table_and_readyz_follows_it(
    endpoint: str, client: DynamoDBClient, caplog: pytest.LogCaptureFixture
) -> None:
    table = f"later-{uuid.uuid4().hex[:8]}"
    settings = Settings(table=table, endpoint=endpoint, cursor_secret=b"test-secret")
    with caplog.at_level(logging.WARNING, logger="dynagate"):
        async with Api.serving(settings) as api:
            missing = await api.http.get("/readyz")
            await create_table(client, table)
            try:
                ready = await api.http.get("/readyz")
            finally:
                await client.delete_table(TableName=table)
    [warning] = _start_warnings(caplog)
    assert endpoint in warning
    assert repr(table) in warning
    assert "`dynagate create-table`" in warning
    assert "dynamodb-local" not in warning  # DynamoDB itself answered
    assert missing.status_code == 503
    assert "does not exist" in missing.json()["reason"]
    assert ready.status_code == 200


async def test_no_warning_when_the_table_is_ready(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="dynagate"):
        async with Api.serving(settings) as api:
            assert (await api.http.get("/readyz")).status_code == 200
    assert _start_warnings(caplog) == []
