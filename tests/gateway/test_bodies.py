"""Whatever the body of `POST /graphql`, the answer is JSON with coded errors.

A body that cannot be read as a GraphQL request (not JSON, JSON that is not an object,
invalid UTF-8, nested past what can be read) is HTTP 400 `BAD_USER_INPUT`.
"""

from __future__ import annotations

import json

import pytest

from tests.client import Api


def deep_variables(depth: int) -> bytes:
    nested = "[" * depth + "]" * depth
    return b'{"query": "{ __typename }", "variables": {"v": ' + nested.encode() + b"}}"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        pytest.param(b"null", "null", id="null"),
        pytest.param(b'"str"', "a string", id="string"),
        pytest.param(b"5", "a number", id="number"),
        pytest.param(b"NaN", "NaN", id="NaN"),
        pytest.param(b"true", "a boolean", id="boolean"),
        pytest.param(b'[{"query": "{ __typename }"}]', "an array", id="array"),
        pytest.param(b'{"query": "\xff{ __typename }"}', "UTF-8", id="invalid-utf-8"),
        pytest.param(b"\xc3\x28", "UTF-8", id="invalid-utf-8-alone"),
        pytest.param('{"query": "{ __typename }"}'.encode("utf-16"), "UTF-8", id="utf-16"),
        pytest.param(b"[" * 50_000, "nested too deeply", id="50000-brackets"),
        pytest.param(deep_variables(5_000), "nested too deeply", id="variables-5000-deep"),
        pytest.param(b'{"query": "{ __typename }", "variables": {"x": NaN}}', "NaN", id="NaN-in"),
        pytest.param(b'{"variables": {"x": -Infinity}}', "Infinity", id="Infinity-in"),
        pytest.param(b'{"query": "{ __typename "', "not JSON", id="truncated"),
        pytest.param(b"", "not JSON", id="empty"),
    ],
)
async def test_an_unreadable_body_is_a_coded_400(app: Api, body: bytes, says: str) -> None:
    response = await app.http.post(
        "/graphql", content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("application/json")
    errors = response.json()["errors"]
    assert [e["extensions"]["code"] for e in errors] == ["BAD_USER_INPUT"]
    assert says in errors[0]["message"]


@pytest.mark.parametrize(
    "request_",
    [
        {"query": 5},
        {"query": "{ __typename }", "variables": [1]},
        {"query": "{ __typename }", "extensions": "x"},
        {"variables": {}},
        {"query": "{ __typename }", "operationName": 5},
    ],
    ids=["query-not-a-string", "variables-not-an-object", "extensions", "no-query", "name"],
)
async def test_an_object_that_is_no_graphql_request_is_a_coded_400(
    app: Api, request_: dict[str, object]
) -> None:
    response = await app.http.post("/graphql", json=request_)
    assert response.status_code == 400, response.text
    assert [e["extensions"]["code"] for e in response.json()["errors"]] == ["BAD_USER_INPUT"]


async def test_a_body_of_another_type_is_a_coded_400(app: Api) -> None:
    response = await app.http.post(
        "/graphql", content=b"query=%7B__typename%7D", headers={"Content-Type": "text/plain"}
    )
    assert response.status_code == 400
    assert [e["extensions"]["code"] for e in response.json()["errors"]] == ["BAD_USER_INPUT"]


async def test_json_escapes_are_read(app: Api) -> None:
    # The same request written with escapes, a surrogate pair among them: the body is fine.
    body = json.dumps({"query": "{ __typename }", "variables": {"s": "\U0001f600"}})
    assert "\\ud83d\\ude00" in body
    response = await app.http.post(
        "/graphql", content=body.encode(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200
    assert response.json()["data"] == {"__typename": "Query"}


@pytest.mark.parametrize(
    ("query", "variables"),
    [
        pytest.param(
            'query ($s: OrderStatus) { customer(id: "x") { orders(status: $s) { __typename } } }',
            '{"s": "\\ud800"}',
            id="enum-value",
        ),
        pytest.param(
            'query ($p: DateTimeRange) { customer(id: "x") { orders(placed: $p) { __typename } } }',
            '{"p": {"\\udfff": 1}}',
            id="input-field-name",
        ),
    ],
)
async def test_a_lone_surrogate_quoted_back_is_answered_in_json(
    app: Api, query: str, variables: str
) -> None:
    # Valid JSON, but no UTF-8 text can hold it: the error that quotes it is still JSON
    # (escaped), a 200 with a coded error, never a 500.
    body = '{"query": ' + json.dumps(query) + ', "variables": ' + variables + "}"
    response = await app.http.post(
        "/graphql", content=body.encode(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200
    assert b"\\ud" in response.content
    errors = response.json()["errors"]
    assert [e["extensions"]["code"] for e in errors] == ["BAD_USER_INPUT"]


async def test_variables_nested_within_reach_are_answered_in_json(app: Api) -> None:
    response = await app.http.post(
        "/graphql",
        content=deep_variables(400),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 200
    assert response.json()["data"] == {"__typename": "Query"}


async def test_a_get_without_a_browser_is_a_coded_error(app: Api) -> None:
    response = await app.http.get("/graphql", headers={"Accept": "application/json"})
    assert response.status_code >= 400
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
