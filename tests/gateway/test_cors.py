"""Browsers on other origins (docs/http.md): `DYNAGATE_CORS_ORIGINS` answers their
preflights and lets their pages read the answers; unset, no CORS header is sent at all."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.client import Api, settings_for

APP = "http://localhost:5173"
PREFLIGHT = {
    "Origin": APP,
    "Access-Control-Request-Method": "POST",
    # What Apollo Client and urql send with a token and an Idempotency-Key.
    "Access-Control-Request-Headers": "content-type,authorization,idempotency-key",
}


@pytest.fixture
async def allowing(endpoint: str, shared_table: str) -> AsyncIterator[Api]:
    settings = settings_for(endpoint, shared_table, cors_origins=(APP, "https://app.example"))
    async with Api.serving(settings) as api:
        yield api


async def test_a_listed_origins_preflight_is_answered(allowing: Api) -> None:
    response = await allowing.http.options("/graphql", headers=PREFLIGHT)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == APP
    assert set(response.headers["access-control-allow-methods"].split(", ")) == {"GET", "POST"}
    allowed = response.headers["access-control-allow-headers"].lower()
    for header in ("content-type", "authorization", "idempotency-key", "x-request-id"):
        assert header in allowed


async def test_a_page_traced_by_opentelemetry_may_send_its_trace_context(allowing: Api) -> None:
    traced = {**PREFLIGHT, "Access-Control-Request-Headers": "content-type,traceparent,tracestate"}
    response = await allowing.http.options("/graphql", headers=traced)
    assert response.status_code == 200
    allowed = response.headers["access-control-allow-headers"].lower()
    assert "traceparent" in allowed and "tracestate" in allowed
    assert "access-control-allow-credentials" not in response.headers


async def test_a_listed_origin_reads_the_answer_and_its_headers(allowing: Api) -> None:
    response = await allowing.http.post(
        "/graphql", json={"query": "{ __typename }"}, headers={"Origin": APP}
    )
    assert response.json()["data"] == {"__typename": "Query"}
    assert response.headers["access-control-allow-origin"] == APP
    exposed = response.headers["access-control-expose-headers"].lower()
    assert {"x-request-id", "retry-after", "idempotent-replayed"} <= set(exposed.split(", "))


async def test_an_origin_not_listed_gets_no_allow_origin(allowing: Api) -> None:
    evil = {**PREFLIGHT, "Origin": "https://evil.example"}
    preflight = await allowing.http.options("/graphql", headers=evil)
    assert preflight.status_code == 400
    assert "access-control-allow-origin" not in preflight.headers
    answer = await allowing.http.post(
        "/graphql", json={"query": "{ __typename }"}, headers={"Origin": "https://evil.example"}
    )
    assert "access-control-allow-origin" not in answer.headers


async def test_a_header_not_allowed_fails_the_preflight(allowing: Api) -> None:
    other = {**PREFLIGHT, "Access-Control-Request-Headers": "content-type,x-secret"}
    response = await allowing.http.options("/graphql", headers=other)
    assert response.status_code == 400


async def test_refusals_reach_the_page_too(endpoint: str, shared_table: str) -> None:
    settings = settings_for(endpoint, shared_table, cors_origins=("*",), max_body_bytes=64)
    async with Api.serving(settings) as api:
        large = await api.http.post(
            "/graphql", json={"query": "{ __typename }" + " " * 100}, headers={"Origin": APP}
        )
    assert large.status_code == 413
    assert large.headers["access-control-allow-origin"] == "*"


async def test_without_the_setting_no_cors_header_at_all(app: Api) -> None:
    preflight = await app.http.options("/graphql", headers=PREFLIGHT)
    assert preflight.status_code == 405
    assert not [name for name in preflight.headers if name.startswith("access-control-")]
    answer = await app.http.post(
        "/graphql", json={"query": "{ __typename }"}, headers={"Origin": APP}
    )
    assert not [name for name in answer.headers if name.startswith("access-control-")]
