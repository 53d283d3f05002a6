"""The two floors of the speed benchmark, offline: the aioboto3 floor stays as users write
it (no project code, so none of the store's client), the lean floor takes the store's, and
both answer the same items for the same DynamoDB responses."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench import floor, floor_lean
from bench.servers import REPOSITORY
from bench.speed import FLOOR_APPS
from bench.speed_report import FLOORS
from gateway.settings import Settings
from store.transport.connection import CLIENT_CONFIG

QUERY = {
    "Items": [
        {
            "pk": {"S": "CUSTOMER#bench"},
            "total": {"N": "1250"},
            "ratio": {"N": "2.5"},
            "whole": {"N": "3.0"},
            "open": {"BOOL": True},
            "none": {"NULL": True},
            "lines": {"L": [{"M": {"sku": {"S": "SKU-001"}, "quantity": {"N": "2"}}}]},
        }
    ],
    "Count": 1,
}
BATCH = {"Responses": {"bench": [{"pk": {"S": "a"}}, {"pk": {"S": "b"}}]}}
CALLS = [["query", {"TableName": "bench"}], ["batch_get_item", {"RequestItems": {}}]]
BODY = '{"query": "orders"}'


class _Client:
    async def query(self, **request: Any) -> Mapping[str, Any]:
        return QUERY

    async def batch_get_item(self, **request: Any) -> Mapping[str, Any]:
        return BATCH


@asynccontextmanager
async def _fake_client() -> AsyncIterator[Any]:
    yield _Client()


class _Settings(Settings):
    def open_client(self) -> AbstractAsyncContextManager[Any]:
        return _fake_client()


@pytest.fixture
def calls_file(tmp_path: Path) -> Path:
    path = tmp_path / "calls.json"
    path.write_text(json.dumps({BODY: CALLS}))
    return path


def test_the_aioboto3_floor_loads_no_project_code() -> None:
    # Whatever faster path the store's client takes, it cannot reach a process without it.
    shown = subprocess.run(
        [sys.executable, "-c", "import bench.floor as f; print(f.project_modules())"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.strip() == "[]"


async def test_the_aioboto3_floor_refuses_to_open_beside_the_store() -> None:
    assert "store.transport.connection" in floor.project_modules()
    with pytest.raises(RuntimeError, match=r"must not run beside .*store\.transport\.connection"):
        async with floor.plain_client():
            pass


def test_the_aioboto3_floor_connects_as_the_store_does() -> None:
    settings = ("retries", "connect_timeout", "read_timeout", "tcp_keepalive")
    for setting in (*settings, "max_pool_connections"):
        assert getattr(floor.CONNECTIONS, setting) == getattr(CLIENT_CONFIG, setting), setting


async def test_both_floors_answer_the_same_items(calls_file: Path) -> None:
    answers = []
    for app in (
        floor.endpoint(_fake_client, floor.answer, calls_file),
        floor_lean.create_app(_Settings(), calls_file),
    ):
        transport = httpx.ASGITransport(app=app)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, base_url="http://floor") as http,
        ):
            answered = await http.post("/graphql", content=BODY)
            assert answered.status_code == 200, answered.text
            answers.append(answered.json())
            refused = await http.post("/graphql", content='{"query": "other"}')
            assert refused.status_code == 400
    aioboto3, lean = answers
    assert aioboto3 == lean
    [[order], batch] = lean["data"]
    assert (order["total"], order["ratio"], order["whole"]) == (1250, 2.5, 3)
    assert order["lines"] == [{"sku": "SKU-001", "quantity": 2}]
    assert [i["pk"] for i in batch] == ["a", "b"]


def test_every_floor_of_the_report_is_served() -> None:
    assert set(FLOOR_APPS) == {f.name for f in FLOORS}
    assert FLOOR_APPS["aioboto3"] == "bench.floor:create_app"
    assert FLOOR_APPS["lean"] == "bench.floor_lean:create_app"
