"""Persisted documents as real clients use them (docs/http.md): Apollo Client and urql's
persisted exchange, a registration's write in the cost, and the largest document."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from keys.documents import document_key
from keys.table import TABLE
from store.requests import to_attributes
from tests.client import Api, settings_for
from tests.gateway.test_cli import on_table, run
from tests.identity import SECURED
from tests.live import connected, served

QUERY = '{ product(id: "none") { name } }'
MAX_BYTES = 65_536


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def apq(text: str) -> dict[str, Any]:
    return {"persistedQuery": {"version": 1, "sha256Hash": sha(text)}}


def sized(size: int, filler: str = "a") -> str:
    """A document of `size` bytes in UTF-8: one comment of `filler`, then a query."""
    query = "\n{ __typename }"
    count, rest = divmod(size - len(query.encode()) - 1, len(filler.encode()))
    assert rest == 0, "the filler does not fill the size exactly"
    text = "#" + filler * count + query
    assert len(text.encode()) == size
    return text


async def stored(client: Any, table: str, text: str) -> bool:
    found = await client.get_item(
        TableName=table, Key=to_attributes(document_key(TABLE, sha(text)))
    )
    return "Item" in found


def error(body: dict[str, Any]) -> tuple[str, str]:
    first = body["errors"][0]
    return first["extensions"]["code"], first["message"]


async def test_an_unknown_hash_is_the_message_clients_match(api: Api) -> None:
    """Apollo Client matches the code, urql's persisted exchange the message, exactly."""
    for body in ({"extensions": apq(QUERY)}, {"documentId": f"sha256:{sha(QUERY)}"}):
        answer = (await api.http.post("/graphql", json=body)).json()
        assert error(answer) == ("PERSISTED_QUERY_NOT_FOUND", "PersistedQueryNotFound")
    got = await api.http.get("/graphql", params={"extensions": json.dumps(apq(QUERY))})
    assert error(got.json()) == ("PERSISTED_QUERY_NOT_FOUND", "PersistedQueryNotFound")


async def test_a_registrations_write_is_in_the_cost_and_the_rate_limit(
    endpoint: str, table: str
) -> None:
    async with Api.serving(settings_for(endpoint, table, rate_limit=6.0)) as api:
        await registered_and_drawn(api)


async def registered_and_drawn(api: Api) -> None:
    registering = (
        await api.http.post("/graphql", json={"query": QUERY, "extensions": apq(QUERY)})
    ).json()
    cost = registering["extensions"]["cost"]
    # The operation's read, then the document's write, both in the answer's cost.
    assert (cost["requests"], cost["writeCapacityUnits"]) == (2, 1.0), cost
    drawn = cost["readCapacityUnits"] + cost["writeCapacityUnits"]
    assert cost["budget"]["remaining"] == pytest.approx(6.0 - drawn, abs=0.05), cost
    by_hash = (await api.http.post("/graphql", json={"extensions": apq(QUERY)})).json()
    assert by_hash["data"] == {"product": None}
    # What the first request drew, its write included (the bucket refills 0.1 a second).
    cost = by_hash["extensions"]["cost"]
    drawn += cost["readCapacityUnits"] + cost["writeCapacityUnits"]
    assert cost["budget"]["remaining"] == pytest.approx(6.0 - drawn, abs=0.2), cost


async def test_a_document_over_the_size_limit_is_too_complex_and_never_kept(
    api: Api, client: Any, table: str
) -> None:
    """Comments count: a document of one comment is one token, but not one byte."""
    fits, over = sized(MAX_BYTES), sized(MAX_BYTES + 1)
    assert (await api(fits)).ok() == {"__typename": "Query"}
    for body in ({"query": over}, {"query": over, "extensions": apq(over)}):
        answer = await api.http.post("/graphql", json=body)
        code, message = error(answer.json())
        assert code == "QUERY_TOO_COMPLEX" and f"{MAX_BYTES} bytes" in message, message
    assert not await stored(client, table, over)
    # Bytes, not characters: two bytes each.
    wide = sized(MAX_BYTES + 2, filler="é")
    assert len(wide) < MAX_BYTES
    assert error((await api.http.post("/graphql", json={"query": wide})).json())[0] == (
        "QUERY_TOO_COMPLEX"
    )
    huge = sized(300_000)
    registering = await api.http.post("/graphql", json={"query": huge, "extensions": apq(huge)})
    assert error(registering.json())[0] == "QUERY_TOO_COMPLEX"
    assert not await stored(client, table, huge)


async def test_the_size_limit_is_a_setting_and_holds_for_kept_documents(
    endpoint: str, table: str, client: Any
) -> None:
    small = '{ product(id: "one") { name } }'
    larger = '{ product(id: "one") { name id } }'
    limit = len(small.encode())
    async with Api.serving(settings_for(endpoint, table)) as roomy:
        # Registered where the limit let it in, then named by hash under a smaller one.
        await roomy.http.post("/graphql", json={"query": larger, "extensions": apq(larger)})
    assert await stored(client, table, larger)
    async with Api.serving(settings_for(endpoint, table, max_document_bytes=limit)) as api:
        assert (await api(small)).ok() == {"product": None}
        got = await api.http.get(
            "/graphql",
            params={"query": larger},
            headers={"Accept": "application/graphql-response+json"},
        )
        assert got.status_code == 400 and error(got.json())[0] == "QUERY_TOO_COMPLEX"
        answer = (await api.http.post("/graphql", json={"extensions": apq(larger)})).json()
        assert error(answer)[0] == "QUERY_TOO_COMPLEX"


async def test_a_socket_runs_no_document_over_the_size_limit(endpoint: str, table: str) -> None:
    async with served(settings_for(endpoint, table)) as gateway, connected(gateway) as socket:
        # The parser refuses it, and the socket says why.
        refused = await socket.answer(sized(MAX_BYTES + 1))
        assert refused["type"] == "error", refused
        assert refused["payload"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX"
        fits = await socket.answer(sized(MAX_BYTES))
        assert fits["payload"]["data"] == {"__typename": "Query"}


async def test_in_trusted_mode_a_document_over_the_limit_is_refused_before_any_read(
    endpoint: str, table: str
) -> None:
    settings = settings_for(endpoint, table, **SECURED, trusted_documents=True)
    async with Api.serving(settings) as api:
        over = sized(MAX_BYTES + 1)
        for body in ({"query": over}, {"query": over, "extensions": apq(over)}):
            answer = (await api.http.post("/graphql", json=body)).json()
            assert error(answer)[0] == "QUERY_TOO_COMPLEX"
            assert answer["extensions"]["cost"]["requests"] == 0


def test_documents_add_refuses_a_document_over_the_size_limit(
    endpoint: str, table: str, tmp_path: Path
) -> None:
    env = on_table(endpoint, table)
    manifest = tmp_path / "manifest.json"
    over = sized(MAX_BYTES + 1)
    manifest.write_text(json.dumps({sha(over): over}))
    refused = run("documents", "add", str(manifest), env=env)
    assert refused.returncode == 1 and f"larger than {MAX_BYTES} bytes" in refused.stderr
    fits = sized(200)
    manifest.write_text(json.dumps({sha(fits): fits}))
    smaller = run(
        "documents", "add", str(manifest), env={**env, "DYNAGATE_MAX_DOCUMENT_BYTES": "199"}
    )
    assert smaller.returncode == 1 and "larger than 199 bytes" in smaller.stderr
    assert run("documents", "add", str(manifest), env=env).returncode == 0


async def test_a_document_no_client_could_hash_is_refused_not_failed(
    endpoint: str, table: str
) -> None:
    """A lone surrogate (valid JSON, not UTF-8): no client hashes it, nothing crashes."""
    extensions = json.dumps(apq(QUERY))
    lone = '{"query": "{ __typename } #\\ud800", "extensions": ' + extensions + "}"
    headers = {"Content-Type": "application/json"}
    async with Api.serving(settings_for(endpoint, table)) as api:
        answer = await api.http.post("/graphql", content=lone, headers=headers)
        assert answer.status_code == 200 and error(answer.json())[0] == "BAD_USER_INPUT"
    settings = settings_for(endpoint, table, **SECURED, trusted_documents=True)
    async with Api.serving(settings) as trusted:
        plain = '{"query": "{ __typename } #\\ud800"}'
        answer = await trusted.http.post("/graphql", content=plain, headers=headers)
        assert answer.status_code == 200 and error(answer.json())[0] == "FORBIDDEN"


async def test_a_batch_holds_to_the_same_rules(endpoint: str, table: str, client: Any) -> None:
    """Each request of a batch names its document by hash, registers it, or in trusted
    mode runs only if it is trusted, as a request on its own does."""
    other = '{ order(id: "none") { id } }'
    async with Api.serving(settings_for(endpoint, table, max_batch=5)) as api:
        batch = [{"query": t, "extensions": apq(t)} for t in (QUERY, other)]
        answers = (await api.http.post("/graphql", json=batch)).json()
        assert [a["data"] for a in answers] == [{"product": None}, {"order": None}]
        # Each registration's write in the cost of the operation that sent it.
        assert [a["extensions"]["cost"]["writeCapacityUnits"] for a in answers] == [1.0, 1.0]
        assert await stored(client, table, QUERY) and await stored(client, table, other)
        by_hash = [{"extensions": apq(QUERY)}, {"documentId": f"sha256:{sha(other)}"}]
        answers = (await api.http.post("/graphql", json=by_hash)).json()
        assert [a["data"] for a in answers] == [{"product": None}, {"order": None}]
        unknown = [{"extensions": apq(QUERY)}, {"extensions": apq("{ __typename }")}]
        answered = (await api.http.post("/graphql", json=unknown)).json()
        # The unknown one refused in its place; the other runs.
        assert answered[0]["data"] == {"product": None}
        assert error(answered[1]) == ("PERSISTED_QUERY_NOT_FOUND", "PersistedQueryNotFound")
    settings = settings_for(endpoint, table, **SECURED, trusted_documents=True, max_batch=5)
    async with Api.serving(settings) as trusted:
        refused = await trusted.http.post("/graphql", json=[{"query": "{ __typename }"}])
        assert error(refused.json()[0])[0] == "FORBIDDEN"
