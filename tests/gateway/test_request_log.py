"""One log line per GraphQL request, in text or JSON, naming the request."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from graphql import GraphQLError

from gateway.logs import TEXT_FORMAT, JsonFormatter, logging_config
from gateway.request_scope import RequestScope, closed, opened
from gateway.schema.extensions import CodedMaskErrors
from tests.client import COST_KEYS, Api, settings_for
from tests.identity import SECURED, as_user

LOOKUP = "query Lookup($id: ID!) { customer(id: $id) { id } }"


def request_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "dynagate.requests"]


def fields(record: logging.LogRecord) -> dict[str, Any]:
    found: dict[str, Any] = record.__dict__["fields"]
    return found


async def test_one_line_per_request_with_its_fields(
    app: Api, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="dynagate.requests"):
        response = await app.http.post(
            "/graphql",
            json={"query": LOOKUP, "variables": {"id": "nobody"}},
            headers={"X-Request-ID": "log-1"},
        )
    assert response.status_code == 200
    [record] = request_lines(caplog)
    assert record.levelno == logging.INFO
    logged = fields(record)
    assert logged["requestId"] == "log-1"
    assert logged["operationName"] == "Lookup"
    assert logged["operationType"] == "query"
    assert logged["status"] == 200
    assert logged["errorCodes"] == []
    assert logged["durationMs"] >= 0
    assert set(logged["cost"]) == COST_KEYS
    reported = response.json()["extensions"]["cost"]
    assert logged["cost"] == {key: reported[key] for key in COST_KEYS}
    message = record.getMessage()
    for part in ("request=log-1", "operation=Lookup", "type=query", "status=200", "codes=-"):
        assert part in message
    assert f"requests={logged['cost']['requests']}" in message


async def test_the_line_names_the_caller_by_subject_else_by_address(
    endpoint: str, table: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with Api.serving(settings_for(endpoint, table, **SECURED)) as api:
        with caplog.at_level(logging.INFO, logger="dynagate.requests"):
            await api.http.post(
                "/graphql", json={"query": "{ __typename }"}, headers=as_user(api, "ada").headers
            )
            await api.http.post("/graphql", json={"query": "{ __typename }"})
            await api.http.post(
                "/graphql",
                json={"query": "{ __typename }"},
                headers={"Authorization": "Bearer not-a-token"},
            )
    callers = [fields(record)["caller"] for record in request_lines(caplog)]
    # httpx's ASGI transport calls itself 127.0.0.1; a refused token is its address's.
    assert callers == ["ada", "127.0.0.1", "127.0.0.1"]
    assert "caller=ada" in request_lines(caplog)[0].getMessage()


@pytest.mark.parametrize(
    ("body", "status", "kind", "codes"),
    [
        ({"query": "{"}, 200, "none", ["BAD_USER_INPUT"]),
        ({"query": "{ nothing }"}, 200, "query", ["BAD_USER_INPUT"]),
        ({"query": "mutation { nothing }"}, 200, "mutation", ["BAD_USER_INPUT"]),
        ([], 400, "none", ["BAD_USER_INPUT"]),
    ],
)
async def test_errors_are_logged_with_their_codes(
    app: Api,
    caplog: pytest.LogCaptureFixture,
    body: Any,
    status: int,
    kind: str,
    codes: list[str],
) -> None:
    with caplog.at_level(logging.INFO, logger="dynagate.requests"):
        response = await app.http.post("/graphql", json=body)
    assert response.status_code == status
    [record] = request_lines(caplog)
    logged = fields(record)
    assert (logged["status"], logged["operationType"], logged["errorCodes"]) == (
        status,
        kind,
        codes,
    )
    assert logged["requestId"] == response.headers["X-Request-ID"]


async def test_only_graphql_requests_are_logged(app: Api, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="dynagate.requests"):
        await app.http.get("/healthz")
        await app.http.get("/metrics")
        await app.http.get("/graphql", headers={"Accept": "text/html"})
    assert request_lines(caplog) == []


async def test_the_json_line_parses(app: Api, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="dynagate.requests"):
        await app.http.post(
            "/graphql",
            json={"query": LOOKUP, "variables": {"id": "x"}},
            headers={"X-Request-ID": "j-1"},
        )
    [record] = request_lines(caplog)
    line = JsonFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["level"] == "INFO"
    assert entry["logger"] == "dynagate.requests"
    assert entry["requestId"] == "j-1"
    assert entry["operationName"] == "Lookup"
    assert entry["operationType"] == "query"
    assert entry["status"] == 200
    assert set(entry["cost"]) == COST_KEYS
    assert entry["time"].endswith("+00:00")


def test_json_records_name_the_request_and_keep_tracebacks() -> None:
    formatter = JsonFormatter()
    try:
        raise ValueError("bad")
    except ValueError as exc:
        record = logging.LogRecord("dynagate.x", logging.ERROR, "f", 1, "at %s", ("y",), None)
        record.exc_info = (type(exc), exc, exc.__traceback__)
    outside = json.loads(formatter.format(record))
    assert outside["message"] == "at y"
    assert "requestId" not in outside
    assert "ValueError: bad" in outside["exception"]
    token = opened(RequestScope("r-9"))
    try:
        assert json.loads(formatter.format(record))["requestId"] == "r-9"
    finally:
        closed(token)


def test_masked_errors_log_the_request_id(caplog: pytest.LogCaptureFixture) -> None:
    error = GraphQLError("secret detail", path=["customer"], original_error=RuntimeError("x"))
    token = opened(RequestScope("masked-1"))
    try:
        with caplog.at_level(logging.ERROR, logger="dynagate.errors"):
            masked = CodedMaskErrors().anonymise_error(error)
    finally:
        closed(token)
    assert masked.message == "Internal server error."
    [record] = [r for r in caplog.records if r.name == "dynagate.errors"]
    assert "masked-1" in record.getMessage()


def test_the_format_setting(capsys: pytest.CaptureFixture[str]) -> None:
    def formatter(env: dict[str, str]) -> dict[str, Any]:
        found: dict[str, Any] = logging_config(env)["formatters"]["dynagate"]
        return found

    assert formatter({"DYNAGATE_LOG_FORMAT": "json"}) == {"()": JsonFormatter}
    assert formatter({"DYNAGATE_LOG_FORMAT": "JSON"}) == {"()": JsonFormatter}
    for env in ({}, {"DYNAGATE_LOG_FORMAT": ""}, {"DYNAGATE_LOG_FORMAT": "text"}):
        assert formatter(env) == {"format": TEXT_FORMAT}
    assert capsys.readouterr().err == ""
    logging_config({"DYNAGATE_LOG_FORMAT": "yaml"})
    assert "DYNAGATE_LOG_FORMAT='yaml'" in capsys.readouterr().err
