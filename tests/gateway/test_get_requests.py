"""GET /graphql as clients send it (docs/http.md): only a browser asking for a page gets
GraphiQL; every other GET is a GraphQL request, `Accept: */*` included, so the hash-only
GETs of Apollo Client (`useGETForHashedQueries`) and curl are answered in JSON."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.client import Api

PRODUCT = '{ product(id: "nothing") { name } }'
SHA256 = hashlib.sha256(PRODUCT.encode()).hexdigest()
PERSISTED = json.dumps({"persistedQuery": {"version": 1, "sha256Hash": SHA256}})
# What Chromium sends for a page.
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"
# What Apollo Client's HttpLink sends, then curl's default.
APOLLO = "application/graphql-response+json,application/json;q=0.9"


@pytest.mark.parametrize("accept", ["*/*", APOLLO, "application/json", None])
@pytest.mark.parametrize(
    "params",
    [{"extensions": PERSISTED}, {"documentId": f"sha256:{SHA256}"}],
    ids=["apollo", "document-id"],
)
async def test_a_hash_only_get_is_answered_in_json_never_a_page(
    app: Api, accept: str | None, params: dict[str, str]
) -> None:
    headers = {} if accept is None else {"Accept": accept}
    response = await app.http.get("/graphql", params=params, headers=headers)
    assert "json" in response.headers["content-type"], response.text[:80]
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND"


async def test_a_hash_get_after_registration_answers_the_query(app: Api) -> None:
    register = await app.http.get(
        "/graphql", params={"query": PRODUCT, "extensions": PERSISTED}, headers={"Accept": "*/*"}
    )
    assert register.json()["data"] == {"product": None}
    again = await app.http.get(
        "/graphql", params={"extensions": PERSISTED}, headers={"Accept": "*/*"}
    )
    assert again.headers["content-type"].startswith("application/json")
    assert again.json()["data"] == {"product": None}


@pytest.mark.parametrize("params", [{}, {"query": PRODUCT}])
async def test_a_browser_asking_for_a_page_gets_graphiql(app: Api, params: dict[str, str]) -> None:
    page = await app.http.get("/graphql", params=params, headers={"Accept": BROWSER})
    assert page.headers["content-type"].startswith("text/html")
    assert "<!doctype html>" in page.text.lower()


async def test_a_get_without_a_document_is_a_json_request_error(app: Api) -> None:
    response = await app.http.get("/graphql", headers={"Accept": "*/*"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
