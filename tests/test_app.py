"""The HTTP surface: guard rails, error codes and masking, health, GraphiQL and the cost report.

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
from typing import TYPE_CHECKING, Any, NoReturn

import pytest
from aiobotocore.config import AioConfig
from graphql.language import Lexer, Source, TokenKind

from gateway import dynamodb
from gateway.data import orders as order_data
from gateway.dynamodb import create_table
from gateway.settings import Settings
from gateway.store import CLIENT_CONFIG, Store
from tests.api import Api, Result

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

CODES = {
    "BAD_USER_INPUT",
    "BAD_CURSOR",
    "NOT_FOUND",
    "CONFLICT",
    "QUERY_TOO_COMPLEX",
    "UNAVAILABLE",
    "INTERNAL_SERVER_ERROR",
}
COST_KEYS = {"requests", "readCapacityUnits", "writeCapacityUnits", "itemsScanned", "itemsReturned"}
MIB = 1024 * 1024
CREATE = """mutation ($id: ID!) {
  createCustomer(input: {id: $id, name: "Alice", email: "alice@x.io"}) { id name } }"""


@pytest.fixture(scope="module")
async def shared_table(client: DynamoDBClient) -> AsyncIterator[str]:
    name = f"test-app-{uuid.uuid4().hex[:12]}"
    await create_table(client, name)
    yield name
    await client.delete_table(TableName=name)


@pytest.fixture(scope="module")
async def app(endpoint: str, shared_table: str) -> AsyncIterator[Api]:
    settings = Settings(table=shared_table, endpoint=endpoint, cursor_secret=b"test-secret")
    async with Api.serving(settings) as running:
        yield running


def assert_well_formed(result: Result) -> None:
    """What every GraphQL response owes its client: a code on each error and the cost."""
    assert result.status == 200, result.body
    for error in result.errors:
        assert error["extensions"]["code"] in CODES, error
    assert set(result.cost) == COST_KEYS


def assert_passes_validation(result: Result) -> None:
    assert_well_formed(result)
    assert result.errors == []
    assert result.data is not None


def assert_too_complex(result: Result) -> None:
    assert_well_formed(result)
    assert result.codes == ["QUERY_TOO_COMPLEX"]
    assert result.data is None
    assert result.cost["requests"] == 0  # refused before anything was read


# ---- guard rails

# Customer.orders.edges.node.customer… nests without end; the leaf is `__typename`.
_CYCLE = ("orders", "edges", "node", "customer")


def nested(depth: int) -> str:
    """A selection whose leaf sits `depth` levels below the root field (level 0).

    Levels are counted as graphql-depth-limit and strawberry's QueryDepthLimiter count
    them: `{ customer(id: "x") { __typename } }` has depth 1.
    """
    fields = ['customer(id: "nobody")', *(_CYCLE[i % 4] for i in range(depth - 1))]
    return " { ".join(fields) + " { __typename" + " }" * depth


@pytest.mark.parametrize("depth", [1, 14, 15])
async def test_depth_up_to_15_is_allowed(app: Api, depth: int) -> None:
    result = await app("{ " + nested(depth) + " }")
    assert_passes_validation(result)
    assert result.data == {"customer": None}


@pytest.mark.parametrize("depth", [16, 17, 40])
async def test_deeper_than_15_is_too_complex(app: Api, depth: int) -> None:
    result = await app("{ " + nested(depth) + " }")
    assert_too_complex(result)
    assert "depth" in result.errors[0]["message"]


async def test_depth_counts_through_fragments(app: Api) -> None:
    result = await app(
        "query { ...Deep } fragment Deep on Query { " + nested(16) + " }",
    )
    assert_too_complex(result)


def aliased(count: int) -> str:
    return " ".join(f"a{n}: __typename" for n in range(count))


async def test_30_aliases_are_allowed(app: Api) -> None:
    result = await app("{ " + aliased(30) + " }")
    assert_passes_validation(result)
    assert len(result.data) == 30


@pytest.mark.parametrize("count", [31, 100])
async def test_more_than_30_aliases_are_too_complex(app: Api, count: int) -> None:
    result = await app("{ " + aliased(count) + " }")
    assert_too_complex(result)
    assert "aliases" in result.errors[0]["message"]


async def test_aliases_count_in_nested_fields_and_fragments(app: Api) -> None:
    # 1 + 14 in a nested selection + 15 in a fragment = 30.
    nested_aliases = 'c: customer(id: "x") { ' + " ".join(f"i{n}: id" for n in range(14)) + " }"
    fragment = "fragment F on Query { " + aliased(15) + " }"
    assert_passes_validation(await app("{ " + nested_aliases + " ...F } " + fragment))
    one_more = await app("{ " + nested_aliases + " ...F z: __typename } " + fragment)
    assert_too_complex(one_more)
    assert one_more.errors[0]["message"].startswith("31 aliases")
    spread_twice = await app("{ " + nested_aliases + " ...F ... on Query { ...F } } " + fragment)
    assert_too_complex(spread_twice)


def count_tokens(document: str) -> int:
    """Tokens as graphql-core's parser counts them against `max_tokens` (no comments, no EOF)."""
    lexer = Lexer(Source(document))
    count = 0
    while lexer.advance().kind is not TokenKind.EOF:
        count += 1
    return count


def with_tokens(wanted: int) -> str:
    """A valid document of exactly `wanted` tokens, cheap to validate.

    Each field carries two directives (15 tokens), so few fields share a response name:
    graphql-core's overlap check has a budget that thousands of same-named fields exhaust.
    """
    names = ("id", "name", "email", "createdAt", "__typename")
    fields = [f"{names[n % 5]} @include(if: true) @skip(if: false)" for n in range(wanted // 15)]
    document = '{ customer(id: "nobody") { ' + " ".join(fields[:-1]) + " } }"
    document = document[:-4] + " id" * (wanted - count_tokens(document)) + " } }"
    assert count_tokens(document) == wanted
    return document


async def test_5000_tokens_are_allowed(app: Api) -> None:
    result = await app(with_tokens(5000))
    assert_passes_validation(result)
    assert result.data == {"customer": None}


@pytest.mark.parametrize("tokens", [5001, 20_000])
async def test_more_than_5000_tokens_are_too_complex(app: Api, tokens: int) -> None:
    result = await app(with_tokens(tokens))
    assert_too_complex(result)
    assert "5000 tokens" in result.errors[0]["message"]


async def test_commas_and_white_space_are_not_tokens(app: Api) -> None:
    padding = ",\n\t " * 10_000
    result = await app(padding + with_tokens(5000) + padding)
    assert_passes_validation(result)


async def test_a_document_too_costly_to_validate_is_too_complex(app: Api) -> None:
    # Under 5,000 tokens, but thousands of same-named fields to compare pairwise.
    result = await app("{" + " __typename" * 4_000 + " }")
    assert_too_complex(result)


# ---- body size


def padded_body(size: int) -> bytes:
    """A valid GraphQL-over-HTTP JSON body of exactly `size` bytes (JSON white space)."""
    body = json.dumps({"query": "{ __typename }"}).encode()
    return body[:-1] + b" " * (size - len(body)) + b"}"


async def test_a_body_of_exactly_1_mib_is_read(app: Api) -> None:
    body = padded_body(MIB)
    assert len(body) == MIB
    response = await app.http.post(
        "/graphql", content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200
    assert response.json()["data"] == {"__typename": "Query"}


async def test_a_body_over_1_mib_is_413(app: Api) -> None:
    response = await app.http.post(
        "/graphql", content=padded_body(MIB + 1), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_a_declared_length_over_1_mib_is_refused_before_reading(app: Api) -> None:
    sent = 0

    async def chunks() -> AsyncIterator[bytes]:
        nonlocal sent
        for _ in range(64):
            sent += 1
            yield b" " * 65_536

    response = await app.http.post(
        "/graphql",
        content=chunks(),
        headers={"Content-Type": "application/json", "Content-Length": str(64 * 65_536)},
    )
    assert response.status_code == 413
    assert sent <= 1


async def test_a_streamed_body_without_length_is_cut_at_1_mib(app: Api) -> None:
    sent = 0

    async def chunks() -> AsyncIterator[bytes]:
        nonlocal sent
        yield b'{"query": "{ __typename }"'
        for _ in range(1_000):  # 64 MB, were it all read
            sent += 1
            yield b" " * 65_536
        yield b"}"

    response = await app.http.post(
        "/graphql", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert sent <= MIB // 65_536 + 2


async def test_a_small_streamed_body_is_read(app: Api) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"query": '
        yield b'"{ __typename }"}'

    response = await app.http.post(
        "/graphql", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200
    assert response.json()["data"] == {"__typename": "Query"}


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

    monkeypatch.setattr(order_data, "create_customer", boom)
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
    assert set(body["extensions"]["cost"]) == COST_KEYS
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
    monkeypatch.setattr(dynamodb, "CLIENT_CONFIG", fast)
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
    assert set(body["extensions"]["cost"]) == COST_KEYS


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


async def test_queries_are_not_taken_over_get(app: Api) -> None:
    response = await app.http.get(
        "/graphql", params={"query": "{ __typename }"}, headers={"Accept": "application/json"}
    )
    assert response.status_code != 200


# ---- the cost report


async def test_every_response_carries_the_cost(app: Api) -> None:
    result = await app('{ customer(id: "nobody") { id } }')
    assert result.ok() == {"customer": None}
    cost = result.cost
    assert set(cost) == COST_KEYS
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


async def test_a_quoted_limit_message_in_a_variable_is_not_too_complex(app: Api) -> None:
    result = await app(
        "query ($id: ID!) { customer(id: $id) { id } }",
        id="Document contains more than 5000 tokens. Parsing aborted.",
    )
    assert result.codes == ["BAD_USER_INPUT"]
