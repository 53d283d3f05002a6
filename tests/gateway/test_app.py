"""The HTTP surface: error codes and masking, health, GraphiQL and the cost report.

Documents that never reach DynamoDB share one table for the module; tests that write get a
fresh one through the `api` fixture.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import uuid
from collections.abc import AsyncIterator
from typing import Any, NoReturn

import pytest
from aiobotocore.config import AioConfig

from data.writes import entities as entity_writes
from gateway.settings import Settings
from store.client import Store
from store.transport import connection
from store.transport.connection import CLIENT_CONFIG
from tests.client import COST_KEYS, Api, assert_well_formed

CREATE = """mutation ($id: ID!) {
  createCustomer(input: {id: $id, name: "Alice", email: "alice@x.io"}) { id name } }"""


# ---- errors carry codes


@pytest.mark.parametrize(
    ("document", "variables"),
    [
        ("{ customer(id: ", {}),
        ('{ customer(id: "a") { id } ', {}),
        ("}", {}),
        ("{ nope }", {}),
        ('{ customer(id: "a") { nope } }', {}),
        ('{ customer(id: "a") { id orders { edges { node { status(x: 1) } } } } }', {}),
        ("{ customer { id } }", {}),
        ("{ customer(id: 5, extra: 1) { id } }", {}),
        ('{ customer(id: "a") }', {}),
        ("query ($id: ID!) { customer(id: $id) { id } }", {}),
        ("query ($id: ID!) { customer(id: $id) { id } }", {"id": {"not": "an id"}}),
        ("query ($n: Int) { __typename }", {}),
        ("{ ...Missing }", {}),
        ('{ customer(id: "a") { orders(status: SOLD) { pageInfo { hasNextPage } } } }', {}),
        ("subscription { __typename }", {}),
    ],
)
async def test_client_mistakes_are_bad_user_input(
    app: Api, document: str, variables: dict[str, Any]
) -> None:
    result = await app(document, **variables)
    assert_well_formed(result)
    assert result.errors
    assert set(result.codes) == {"BAD_USER_INPUT"}
    assert result.cost["requests"] == 0


async def test_a_bad_identifier_is_bad_user_input_with_a_path(app: Api) -> None:
    result = await app('{ customer(id: "a#b") { id } }')
    assert_well_formed(result)
    assert result.codes == ["BAD_USER_INPUT"]
    assert result.errors[0]["path"] == ["customer"]


async def test_several_errors_each_carry_a_code(app: Api) -> None:
    result = await app('{ a: customer(id: "x/y") { id } b: customer(id: "~") { id } }')
    assert_well_formed(result)
    assert result.codes == ["BAD_USER_INPUT", "BAD_USER_INPUT"]


def leaks(text: str) -> list[str]:
    return [s for s in ("secret detail", "Traceback", "RuntimeError", ".py") if s in text]


async def test_an_unexpected_error_in_a_mutation_is_masked(
    api: Api, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def boom(*args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(entity_writes, "create", boom)
    with caplog.at_level(logging.ERROR, logger="dynagate.errors"):
        response = await api.http.post(
            "/graphql", json={"query": CREATE, "variables": {"id": "alice"}}
        )
    assert response.status_code == 200
    assert leaks(response.text) == []
    body = response.json()
    assert body["data"] is None
    assert body["errors"] == [
        {
            "message": "Internal server error.",
            "locations": [{"line": 2, "column": 3}],
            "path": ["createCustomer"],
            "extensions": {"code": "INTERNAL_SERVER_ERROR"},
        }
    ]
    assert set(body["extensions"]["cost"]) == {*COST_KEYS, "estimated"}
    # The details are for the operator, in the log.
    assert "secret detail" in caplog.text


async def test_an_unexpected_error_in_the_store_is_masked_and_spares_the_rest(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    (await api(CREATE, id="alice")).ok()

    async def boom(*args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(Store, "query", boom)
    response = await api.http.post(
        "/graphql",
        json={
            "query": '{ customer(id: "alice") { name orders { edges { node { id } } } }'
            ' same: customer(id: "alice") { name } }'
        },
    )
    assert leaks(response.text) == []
    body = response.json()
    assert [e["extensions"]["code"] for e in body["errors"]] == ["INTERNAL_SERVER_ERROR"]
    assert body["errors"][0]["message"] == "Internal server error."
    assert body["errors"][0]["path"] == ["customer", "orders"]
    # The non-null connection nulls its parent; the sibling field is unharmed.
    assert body["data"] == {"customer": None, "same": {"name": "Alice"}}


# ---- an unreachable DynamoDB


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.fixture
async def unreachable(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Api]:
    # Botocore's standard retries back off for 15 s on average before giving up on a refused
    # connection; two attempts are enough to see what the client gets.
    fast = CLIENT_CONFIG.merge(
        AioConfig(retries={"max_attempts": 2, "mode": "standard"}, connect_timeout=1)
    )
    monkeypatch.setattr(connection, "CLIENT_CONFIG", fast)
    settings = Settings(
        table="dynagate",
        endpoint=f"http://127.0.0.1:{closed_port()}",
        cursor_secret=b"test-secret",
    )
    async with Api.serving(settings) as running:
        yield running


async def test_an_unreachable_database_is_unavailable(unreachable: Api) -> None:
    async with asyncio.timeout(20):
        response = await unreachable.http.post(
            "/graphql", json={"query": '{ customer(id: "alice") { id } }'}
        )
    body = response.json()
    assert response.status_code == 200
    assert [e["extensions"]["code"] for e in body["errors"]] == ["UNAVAILABLE"]
    assert body["data"] == {"customer": None}
    # No AWS or botocore text, no endpoint.
    assert "127.0.0.1" not in response.text
    assert "endpoint" not in response.text.lower()
    assert set(body["extensions"]["cost"]) == {*COST_KEYS, "estimated"}


async def test_an_unreachable_database_fails_readyz_not_healthz(unreachable: Api) -> None:
    health = await unreachable.http.get("/healthz")
    assert health.status_code == 200
    async with asyncio.timeout(20):
        ready = await unreachable.http.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["reason"]
    assert "unreachable" in ready.json()["reason"]


# ---- readiness


async def test_readyz_on_an_active_table(app: Api) -> None:
    response = await app.http.get("/readyz")
    assert response.status_code == 200
    assert response.json()["status"] == "ready"
    assert (await app.http.get("/healthz")).status_code == 200


async def test_readyz_names_a_missing_table(endpoint: str) -> None:
    missing = f"missing-{uuid.uuid4().hex[:8]}"
    settings = Settings(table=missing, endpoint=endpoint, cursor_secret=b"test-secret")
    async with Api.serving(settings) as api:
        response = await api.http.get("/readyz")
        assert (await api.http.get("/healthz")).status_code == 200
        query = await api('{ customer(id: "alice") { id } }')
    assert response.status_code == 503
    assert missing in response.json()["reason"]
    assert "does not exist" in response.json()["reason"]
    # A client sees the table missing as unavailable, without the table's name.
    assert query.codes == ["UNAVAILABLE"]
    assert missing not in json.dumps(query.body)


# ---- GraphiQL


async def test_a_browser_gets_graphiql(app: Api) -> None:
    response = await app.http.get("/graphql", headers={"Accept": "text/html"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "graphiql" in response.text.lower()


async def test_graphiql_can_be_switched_off(endpoint: str, shared_table: str) -> None:
    settings = Settings(
        table=shared_table, endpoint=endpoint, cursor_secret=b"test-secret", graphiql=False
    )
    async with Api.serving(settings) as api:
        response = await api.http.get("/graphql", headers={"Accept": "text/html"})
        still = await api("{ __typename }")
    assert response.status_code == 404
    assert "graphiql" not in response.text.lower()
    assert still.ok() == {"__typename": "Query"}


async def test_mutations_are_not_taken_over_get(app: Api) -> None:
    response = await app.http.get(
        "/graphql",
        params={"query": 'mutation { deleteComment(id: "x") }'},
        headers={"Accept": "application/json"},
    )
    assert response.status_code == 405 and response.headers["allow"] == "POST"


# ---- the cost report


async def test_every_response_carries_the_cost(app: Api) -> None:
    result = await app('{ customer(id: "nobody") { id } }')
    assert result.ok() == {"customer": None}
    cost = result.cost
    assert set(cost) == {*COST_KEYS, "estimated"}
    # The bound computed before it ran: one item by key.
    assert cost["estimated"] == {"requests": 1, "itemsScanned": 1, "fields": 2}
    assert isinstance(cost["requests"], int)
    assert isinstance(cost["itemsScanned"], int)
    assert isinstance(cost["itemsReturned"], int)
    assert isinstance(cost["readCapacityUnits"], float)
    assert isinstance(cost["writeCapacityUnits"], float)
    assert cost["requests"] == 1
    assert cost["writeCapacityUnits"] == 0
    assert cost["itemsReturned"] == 0


async def test_the_cost_report_can_be_switched_off(endpoint: str, shared_table: str) -> None:
    settings = Settings(
        table=shared_table, endpoint=endpoint, cursor_secret=b"test-secret", cost_report=False
    )
    async with Api.serving(settings) as api:
        result = await api('{ customer(id: "nobody") { id } }')
        failed = await api("{ nope }")
    assert result.ok() == {"customer": None}
    assert "cost" not in (result.body.get("extensions") or {})
    assert "cost" not in (failed.body.get("extensions") or {})


async def test_a_create_is_one_write_and_a_read_is_one_read(api: Api) -> None:
    created = await api(CREATE, id="alice")
    assert created.ok() == {"createCustomer": {"id": "alice", "name": "Alice"}}
    assert created.cost["requests"] == 1
    assert created.cost["writeCapacityUnits"] > 0
    assert created.cost["readCapacityUnits"] == 0
    assert created.cost["itemsScanned"] == created.cost["itemsReturned"] == 0

    found = await api('{ customer(id: "alice") { name } again: customer(id: "alice") { id } }')
    assert found.ok() == {"customer": {"name": "Alice"}, "again": {"id": "alice"}}
    assert found.cost["requests"] == 1
    assert found.cost["readCapacityUnits"] > 0
    assert found.cost["writeCapacityUnits"] == 0
    assert found.cost["itemsReturned"] == 1

    # A refused duplicate still made its request, and says so.
    again = await api(CREATE, id="alice")
    assert again.codes == ["CONFLICT"]
    assert again.cost["requests"] == 1


async def test_the_cost_is_per_request_not_cumulative(app: Api) -> None:
    first = await app('{ customer(id: "nobody") { id } }')
    second = await app('{ customer(id: "nobody") { id } }')
    assert first.cost == second.cost


@pytest.mark.parametrize(
    ("body", "content_type"),
    [(b"{not json", "application/json"), (b'{"variables": {}}', "application/json")],
)
async def test_unparseable_requests_get_coded_json_errors(
    app: Api, body: bytes, content_type: str
) -> None:
    response = await app.http.post("/graphql", content=body, headers={"content-type": content_type})
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/json")
    assert [e["extensions"]["code"] for e in response.json()["errors"]] == ["BAD_USER_INPUT"]
