"""Persisted documents (docs/http.md): Apollo's automatic persisted queries and GraphQL
over HTTP's `documentId`, kept in the table so another replica knows them."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from errors.vocabulary import BadUserInput
from gateway.documents.persisted import requested_hash
from keys.documents import document_key
from keys.table import TABLE
from store.requests import to_attributes
from tests.client import Api

QUERY = '{ product(id: "none") { name } }'
SHA = hashlib.sha256(QUERY.encode()).hexdigest()


def apq(sha256: str = SHA) -> dict[str, Any]:
    return {"persistedQuery": {"version": 1, "sha256Hash": sha256}}


def code(body: dict[str, Any]) -> str:
    return str(body["errors"][0]["extensions"]["code"])


def test_the_hash_a_request_names() -> None:
    assert requested_hash(None, None) is None
    assert requested_hash(None, {"other": 1}) is None
    assert requested_hash(f"sha256:{SHA}", None) == SHA
    assert requested_hash(None, apq(SHA.upper())) == SHA
    for document_id in ("md5:abc", f"sha256:{SHA[:10]}", 7):
        with pytest.raises(BadUserInput, match="documentId"):
            requested_hash(document_id, None)
    with pytest.raises(BadUserInput, match="version 1"):
        requested_hash(None, {"persistedQuery": {"version": 2, "sha256Hash": SHA}})


async def test_apollos_flow_registers_then_runs_by_hash(api: Api, client: Any, table: str) -> None:
    unknown = (await api.http.post("/graphql", json={"extensions": apq()})).json()
    assert code(unknown) == "PERSISTED_QUERY_NOT_FOUND"
    assert "data" not in unknown or unknown["data"] is None
    sent = (await api.http.post("/graphql", json={"query": QUERY, "extensions": apq()})).json()
    assert sent["data"] == {"product": None}
    stored = await client.get_item(TableName=table, Key=to_attributes(document_key(TABLE, SHA)))
    assert stored["Item"]["document"] == {"S": QUERY}
    # With the bound it was computed to have when it first ran.
    assert stored["Item"]["bound"]["M"]["requests"] == {"N": "1"}
    by_hash = (await api.http.post("/graphql", json={"extensions": apq()})).json()
    assert by_hash["data"] == {"product": None}
    # Over GET too, as Apollo sends hashed queries to be cached.
    got = await api.http.get(
        "/graphql",
        params={"extensions": json.dumps(apq())},
        headers={"Accept": "application/json"},
    )
    assert got.json()["data"] == {"product": None}


async def test_another_replica_reads_the_document_from_the_table(api: Api) -> None:
    await api.http.post("/graphql", json={"query": QUERY, "extensions": apq()})
    async with Api.serving(api.settings) as replica:
        answer = await replica.http.post("/graphql", json={"documentId": f"sha256:{SHA}"})
        body = answer.json()
        assert body["data"] == {"product": None} and "errors" not in body, body
        # One read more than the document sent in full: the document's own, once.
        assert body["extensions"]["cost"]["requests"] == 2
        again = (await replica.http.post("/graphql", json={"documentId": f"sha256:{SHA}"})).json()
        assert again["extensions"]["cost"]["requests"] == 1


async def test_a_wrong_hash_or_a_bad_document_is_never_registered(
    api: Api, client: Any, table: str
) -> None:
    wrong = (
        await api.http.post("/graphql", json={"query": QUERY, "extensions": apq("0" * 64)})
    ).json()
    assert code(wrong) == "BAD_USER_INPUT"
    broken = "{ nope }"
    sha = hashlib.sha256(broken.encode()).hexdigest()
    refused = (
        await api.http.post("/graphql", json={"query": broken, "extensions": apq(sha)})
    ).json()
    assert code(refused) == "BAD_USER_INPUT"
    for key in (document_key(TABLE, "0" * 64), document_key(TABLE, sha)):
        stored = await client.get_item(TableName=table, Key=to_attributes(key))
        assert "Item" not in stored
    unknown = (await api.http.post("/graphql", json={"documentId": f"sha256:{sha}"})).json()
    assert code(unknown) == "PERSISTED_QUERY_NOT_FOUND"
