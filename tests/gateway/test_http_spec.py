"""GraphQL over HTTP by the specification (docs/http.md): the media type clients ask
for, request errors as 400 under it, queries over GET and mutations refused there."""

from __future__ import annotations

import logging

import pytest
from graphql import GraphQLError

from gateway.http.spec import GRAPHQL_RESPONSE, prefers_graphql_response
from gateway.request_scope import is_request_error
from tests.client import Api

SPEC = {"Accept": GRAPHQL_RESPONSE}
PLAIN = {"Accept": "application/json"}


@pytest.mark.parametrize(
    ("accept", "preferred"),
    [
        (GRAPHQL_RESPONSE, True),
        (f"{GRAPHQL_RESPONSE}, application/json;q=0.9", True),
        (f"application/json, {GRAPHQL_RESPONSE}", True),  # equal: the specification's
        (f"application/json, {GRAPHQL_RESPONSE};q=0.5", False),
        (f"{GRAPHQL_RESPONSE};q=0", False),
        (f"{GRAPHQL_RESPONSE};q=oops", False),
        ("application/json", False),
        ("*/*", False),
        ("", False),
    ],
)
def test_the_media_type_a_client_prefers(accept: str, preferred: bool) -> None:
    assert prefers_graphql_response(accept) is preferred


def test_a_request_error_ran_nothing() -> None:
    before = GraphQLError("Syntax Error")
    during = GraphQLError("boom", path=["customer"])
    assert is_request_error(None, [before])
    assert not is_request_error(None, [during])
    assert not is_request_error(None, [before, during])
    assert not is_request_error({"a": 1}, [before])
    assert not is_request_error(None, None)


async def test_a_document_that_does_not_parse_is_400_without_data(app: Api) -> None:
    spec = await app.http.post("/graphql", json={"query": "{"}, headers=SPEC)
    assert spec.status_code == 400
    assert spec.headers["content-type"].startswith(GRAPHQL_RESPONSE)
    assert "data" not in spec.json()
    assert spec.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    plain = await app.http.post("/graphql", json={"query": "{"}, headers=PLAIN)
    assert plain.status_code == 200
    assert plain.headers["content-type"].startswith("application/json")
    assert plain.json()["data"] is None


async def test_validation_and_variable_errors_are_400_under_the_specification(app: Api) -> None:
    invalid = await app.http.post("/graphql", json={"query": "{ nope }"}, headers=SPEC)
    assert invalid.status_code == 400 and "data" not in invalid.json()
    coercion = await app.http.post(
        "/graphql",
        json={"query": "query ($id: ID!) { product(id: $id) { name } }", "variables": {}},
        headers=SPEC,
    )
    assert coercion.status_code == 400 and "data" not in coercion.json()


async def test_an_answer_is_200_with_data_under_the_specification(app: Api) -> None:
    answer = await app.http.post("/graphql", json={"query": "{ __typename }"}, headers=SPEC)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith(GRAPHQL_RESPONSE)
    assert answer.json()["data"] == {"__typename": "Query"}


async def test_queries_run_over_get_and_mutations_do_not(app: Api) -> None:
    query = '{ product(id: "none") { name } }'
    answer = await app.http.get("/graphql", params={"query": query}, headers=PLAIN)
    assert answer.status_code == 200, answer.text
    assert answer.json()["data"] == {"product": None}
    assert answer.json()["extensions"]["cost"]["requests"] == 1
    named = await app.http.get(
        "/graphql",
        params={
            "query": "query P($id: ID!) { product(id: $id) { id } }",
            "variables": '{"id": "none"}',
            "operationName": "P",
        },
        headers=SPEC,
    )
    assert named.status_code == 200 and named.json()["data"] == {"product": None}
    mutation = 'mutation { createProduct(input: {id: "x", name: "X"}) { id } }'
    refused = await app.http.get("/graphql", params={"query": mutation}, headers=PLAIN)
    assert refused.status_code == 405
    assert refused.headers["allow"] == "POST"
    assert refused.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    # A browser asking for a page still gets the playground, whatever the URL holds.
    page = await app.http.get("/graphql", params={"query": query}, headers={"Accept": "text/html"})
    assert page.status_code == 200 and "<html" in page.text.lower()


async def test_a_query_over_get_is_logged_and_counted_and_the_page_is_not(
    app: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="dynagate")
    await app.http.get("/graphql", params={"query": "{ __typename }"}, headers=PLAIN)
    await app.http.get("/graphql", headers={"Accept": "text/html"})
    lines = [r for r in caplog.records if r.getMessage().startswith("graphql request=")]
    assert len(lines) == 1
    assert lines[0].fields["operationType"] == "query"  # type: ignore[attr-defined]
