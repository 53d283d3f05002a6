"""X-Request-ID on every response: the client's own when valid, else a new one."""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from gateway.http.tracing import RequestTracing
from gateway.settings import Settings
from tests.client import Api
from tests.identity import SECURED

LOOKUP = "query ($id: ID!) { customer(id: $id) { id } }"
CREATE = """mutation ($id: ID!) {
  createCustomer(input: {id: $id, name: "Alice", email: "alice@x.io"}) { id } }"""
GENERATED = re.compile(r"[0-9a-f]{32}")


@asynccontextmanager
async def serving(endpoint: str, table: str, **overrides: Any) -> AsyncIterator[Api]:
    settings = Settings(table=table, endpoint=endpoint, cursor_secret=b"test-secret", **overrides)
    async with Api.serving(settings) as running:
        yield running


async def post(api: Api, headers: dict[str, str] | None = None, **body: Any) -> httpx.Response:
    body = body or {"query": LOOKUP, "variables": {"id": "nobody"}}
    return await api.http.post("/graphql", json=body, headers=headers or {})


@pytest.mark.parametrize(
    "given", ["abc", "0f8c-11:22.33_x", "A" * 128, str(uuid.uuid4()), "req:1.2-3_4"]
)
async def test_a_valid_id_is_echoed(app: Api, given: str) -> None:
    response = await post(app, {"X-Request-ID": given})
    assert response.status_code == 200
    assert response.headers["X-Request-ID"] == given


@pytest.mark.parametrize("given", ["", "A" * 129, "a b", "a/b", "a;b", "ab\tc", 'x"y', "é"])
async def test_an_invalid_id_is_replaced(app: Api, given: str) -> None:
    body = {"query": LOOKUP, "variables": {"id": "nobody"}}
    # As bytes: httpx would refuse to send what is not ASCII.
    response = await app.http.post("/graphql", json=body, headers={"X-Request-ID": given.encode()})
    assert response.status_code == 200
    assert GENERATED.fullmatch(response.headers["X-Request-ID"])


async def test_a_new_id_is_generated_for_each_request_without_one(app: Api) -> None:
    first, second = await post(app), await post(app)
    ids = [first.headers["X-Request-ID"], second.headers["X-Request-ID"]]
    assert all(GENERATED.fullmatch(i) for i in ids)
    assert ids[0] != ids[1]
    # One header, not the client's and a new one.
    assert len(first.headers.get_list("X-Request-ID")) == 1


async def test_health_metrics_and_refusals_carry_the_id(app: Api) -> None:
    headers = {"X-Request-ID": "probe-1"}
    for path in ("/healthz", "/readyz", "/metrics", "/nowhere"):
        response = await app.http.get(path, headers=headers)
        assert response.headers["X-Request-ID"] == "probe-1", path
    not_json = await app.http.post("/graphql", content=b"{", headers=headers)
    assert not_json.status_code == 400
    assert not_json.headers["X-Request-ID"] == "probe-1"
    declared = await app.http.post("/graphql", content=b"x" * (1024 * 1024 + 1), headers=headers)
    assert declared.status_code == 413
    assert declared.headers["X-Request-ID"] == "probe-1"

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(3):
            yield b" " * (512 * 1024)

    streamed = await app.http.post(
        "/graphql", content=chunks(), headers={**headers, "Content-Type": "application/json"}
    )
    assert streamed.status_code == 413
    assert streamed.headers["X-Request-ID"] == "probe-1"


async def test_401_and_429_carry_the_id(endpoint: str, shared_table: str) -> None:
    async with serving(endpoint, shared_table, **SECURED) as api:
        response = await post(api, {"X-Request-ID": "who-1", "Authorization": "Bearer nope"})
        assert response.status_code == 401
        assert response.headers["X-Request-ID"] == "who-1"
    async with serving(endpoint, shared_table, rate_limit=0.1) as api:
        created = await post(api, query=CREATE, variables={"id": f"i-{uuid.uuid4().hex[:8]}"})
        assert created.status_code == 200
        response = await post(api, {"X-Request-ID": "busy-1"})
        assert response.status_code == 429
        assert response.headers["X-Request-ID"] == "busy-1"


async def test_an_unhandled_error_is_a_500_with_the_id_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("boom")

    transport = httpx.ASGITransport(app=RequestTracing(broken))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        with caplog.at_level(logging.ERROR, logger="dynagate.errors"):
            response = await http.get("/", headers={"X-Request-ID": "oops-1"})
    assert response.status_code == 500
    assert response.headers["X-Request-ID"] == "oops-1"
    assert response.json()["errors"][0]["extensions"]["code"] == "INTERNAL_SERVER_ERROR"
    assert "oops-1" in caplog.text
    assert "boom" in caplog.text
