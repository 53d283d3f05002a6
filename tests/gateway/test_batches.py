"""Batches (docs/http.md): with `DYNAGATE_MAX_BATCH` set, an array body (Apollo's
BatchHttpLink, Relay) gets an array of answers in order, bounded and limited as a whole."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from gateway.demand.control import Limits
from tests.client import Api, settings_for
from tests.documents import CREATE_CUSTOMER
from tests.identity import SECRET, as_user
from tests.table import scan_all

PRODUCT = "query Product($id: ID!) { product(id: $id) { id name } }"
CREATE = "mutation Create($input: CreateProductInput!) { createProduct(input: $input) { id } }"


def apollo_batch(*operations: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The body Apollo's BatchHttpLink posts: each operation with its name and extensions."""
    return [
        {
            "operationName": query.split()[1].split("(")[0] or None,
            "variables": variables,
            "extensions": {"clientLibrary": {"name": "@apollo/client", "version": "3.14.0"}},
            "query": query,
        }
        for query, variables in operations
    ]


@pytest.fixture
async def batching(endpoint: str, table: str) -> AsyncIterator[Api]:
    async with Api.serving(settings_for(endpoint, table, max_batch=5)) as api:
        yield api


async def test_an_array_gets_its_answers_in_order(batching: Api) -> None:
    body = apollo_batch(
        (CREATE, {"input": {"id": "p1", "name": "One"}}),
        (PRODUCT, {"id": "p1"}),
        (PRODUCT, {"id": "nothing"}),
    )
    response = await batching.http.post("/graphql", json=body)
    assert response.status_code == 200
    answers = response.json()
    assert isinstance(answers, list) and len(answers) == 3
    assert answers[0]["data"] == {"createProduct": {"id": "p1"}}
    assert answers[2]["data"] == {"product": None}
    # Each answer reports its own cost and bound.
    for answer in answers:
        assert answer["extensions"]["cost"]["requests"] >= 1
        assert answer["extensions"]["cost"]["estimated"]["requests"] >= 1


async def test_one_failing_operation_leaves_the_others_answered(batching: Api) -> None:
    body = apollo_batch((PRODUCT, {"id": "bad id!"}), (PRODUCT, {"id": "p2"}))
    answers = (await batching.http.post("/graphql", json=body)).json()
    assert answers[0]["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert answers[1]["data"] == {"product": None}


async def test_a_longer_array_is_refused_whole(batching: Api, client: Any, table: str) -> None:
    body = apollo_batch(*[(CREATE, {"input": {"id": f"p{i}", "name": "P"}}) for i in range(6)])
    response = await batching.http.post("/graphql", json=body)
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert "6 requests, over the limit of 5" in error["message"]
    assert await scan_all(client, table) == []


async def test_the_bound_holds_for_the_batch_as_a_whole(
    endpoint: str, table: str, client: Any
) -> None:
    # Each operation fits alone (2 calls at most); the three together do not.
    limits = Limits(requests=5)
    settings = settings_for(endpoint, table, max_batch=5, max_requests=limits.requests)
    body = apollo_batch(*[(CREATE, {"input": {"id": f"p{i}", "name": "P"}}) for i in range(3)])
    async with Api.serving(settings) as api:
        alone = (await api.http.post("/graphql", json=body[0])).json()
        assert alone["data"] == {"createProduct": {"id": "p0"}}
        assert alone["extensions"]["cost"]["estimated"]["requests"] * 3 > limits.requests
        answers = (await api.http.post("/graphql", json=body[1:] + body[:1])).json()
    assert [a["errors"][0]["extensions"]["code"] for a in answers] == ["QUERY_TOO_COMPLEX"] * 3
    assert all(a["data"] is None for a in answers)
    assert "the batch of 3 could need" in answers[0]["errors"][0]["message"]
    # Nothing of the refused batch ran.
    products = [i for i in await scan_all(client, table) if i.get("type") == "PRODUCT"]
    assert [p["id"] for p in products] == ["p0"]


async def test_off_by_default_an_array_is_400(app: Api) -> None:
    response = await app.http.post("/graphql", json=apollo_batch((PRODUCT, {"id": "p"})))
    assert response.status_code == 400
    assert "batches are off here" in response.json()["errors"][0]["message"]
    # Like every response, it says what it cost: nothing.
    assert response.json()["extensions"]["cost"]["requests"] == 0


@pytest.mark.parametrize("body", [[], [1], [{"query": PRODUCT}, "x"]])
async def test_malformed_batches_are_400(batching: Api, body: list[Any]) -> None:
    response = await batching.http.post("/graphql", json=body)
    assert response.status_code == 400
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_a_batch_draws_its_whole_cost_from_the_rate_limit(endpoint: str, table: str) -> None:
    # 3 capacity units a minute: one batch of writes spends more than that.
    settings = settings_for(endpoint, table, max_batch=5, rate_limit=3.0)
    body = apollo_batch(*[(CREATE, {"input": {"id": f"p{i}", "name": "P"}}) for i in range(4)])
    async with Api.serving(settings) as api:
        first = await api.http.post("/graphql", json=body)
        assert first.status_code == 200
        assert all("errors" not in answer for answer in first.json())
        refused = await api.http.post("/graphql", json=apollo_batch((PRODUCT, {"id": "p0"})))
    assert refused.status_code == 429


@pytest.mark.parametrize("key", ["k1", "not a key"])
async def test_an_idempotency_key_is_refused_with_a_batch(
    batching: Api, client: Any, table: str, key: str
) -> None:
    body = apollo_batch((CREATE, {"input": {"id": "p1", "name": "One"}}))
    response = await batching.http.post("/graphql", json=body, headers={"Idempotency-Key": key})
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["errors"][0]["message"]
    assert await scan_all(client, table) == []


async def test_each_operation_follows_the_callers_rules(endpoint: str, table: str) -> None:
    settings = settings_for(endpoint, table, max_batch=5, auth_secret=SECRET)
    async with Api.serving(settings) as api:
        ada = as_user(api, "ada")
        body = apollo_batch(
            (CREATE_CUSTOMER, {"input": {"id": "ada", "name": "Ada", "email": "a@x.io"}}),
            (CREATE_CUSTOMER, {"input": {"id": "bob", "name": "Bob", "email": "b@x.io"}}),
        )
        answers = (await ada.http.post("/graphql", json=body, headers=ada.headers)).json()
    assert answers[0]["data"]["createCustomer"]["id"] == "ada"
    assert answers[1]["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_an_unknown_hash_is_refused_alone_in_its_batch(batching: Api) -> None:
    # Apollo's batching with persisted queries: each answer in its place, an unknown hash
    # answered PersistedQueryNotFound so the client sends that document again.
    unknown = {
        "operationName": "Unknown",
        "variables": {},
        "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "0" * 64}},
    }
    body = [unknown, *apollo_batch((PRODUCT, {"id": "p1"}))]
    response = await batching.http.post("/graphql", json=body)
    assert response.status_code == 200
    answers = response.json()
    assert isinstance(answers, list) and len(answers) == 2, answers
    assert answers[0]["errors"][0]["message"] == "PersistedQueryNotFound"
    assert answers[0]["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND"
    assert answers[1]["data"] == {"product": None}
    # Every answer says what it cost, the refused one too.
    assert all("cost" in answer["extensions"] for answer in answers)
