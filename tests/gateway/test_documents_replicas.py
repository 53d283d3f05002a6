"""Persisted documents behind a load balancer (docs/http.md): a document registered through
one replica runs on every other from the moment its registration is answered, though they
found its hash missing (with Redis; within a second without); Redis down, the table is read
again rather than a miss answered wrongly."""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Any

import httpx
import pytest

from data.callers import OPEN
from data.documents import register_document
from errors.vocabulary import UnknownDocument
from gateway.documents.persisted import RECHECK_SECONDS, PersistedDocuments
from keys.documents import document_key
from keys.table import TABLE
from store.client import Store
from store.stream.records import StreamRecord
from tests.client import settings_for
from tests.identity import SECURED, token
from tests.live import Served, replicas_served, served
from tests.redis_server import RedisServer

pytestmark = pytest.mark.streamed
QUERY = '{ product(id: "none") { name } }'
SHA = hashlib.sha256(QUERY.encode()).hexdigest()
BY_HASH = {"extensions": {"persistedQuery": {"version": 1, "sha256Hash": SHA}}}


def code(body: dict[str, Any]) -> str | None:
    errors = body.get("errors") or [{}]
    found: str | None = errors[0].get("extensions", {}).get("code")
    return found


async def post(
    http: httpx.AsyncClient, replica: Served, body: dict[str, Any], bearer: str | None = None
) -> dict[str, Any]:
    headers = {} if bearer is None else {"Authorization": f"Bearer {bearer}"}
    answer: dict[str, Any] = (
        await http.post(f"{replica.url}/graphql", json=body, headers=headers)
    ).json()
    return answer


async def runs_within(
    http: httpx.AsyncClient, replica: Served, seconds: float, bearer: str | None = None
) -> float:
    """Seconds until `replica` runs the document by its hash (polled every 20 ms)."""
    started = time.monotonic()
    while True:
        body = await post(http, replica, BY_HASH, bearer)
        if body.get("data") == {"product": None}:
            return time.monotonic() - started
        assert time.monotonic() - started < seconds, body
        await asyncio.sleep(0.02)


async def test_a_document_registered_on_one_replica_runs_on_the_other_at_once(
    endpoint: str, table: str, redis_server: RedisServer
) -> None:
    settings = settings_for(endpoint, table, redis_url=redis_server.url)
    async with replicas_served(settings) as (first, second), httpx.AsyncClient() as http:
        # Apollo's first request names the hash alone: both replicas find it missing.
        for replica in (first, second):
            assert code(await post(http, replica, BY_HASH)) == "PERSISTED_QUERY_NOT_FOUND"
        registered = await post(http, first, {"query": QUERY, **BY_HASH})
        assert registered["data"] == {"product": None}
        waited = await runs_within(http, second, 1.0)
        print(f"the second replica ran it {waited:.3f} s after its registration")
        assert waited < 1.0 < RECHECK_SECONDS
        # Kept as heard: the second replica did not read the table for it again.
        again = await post(http, second, BY_HASH)
        assert again["extensions"]["cost"]["requests"] == 1


async def test_with_redis_the_next_request_anywhere_runs_it(
    endpoint: str, table: str, redis_server: RedisServer
) -> None:
    """No waiting: the request right after the registration's answer, on the replica that
    remembers the hash missing, runs it; trusted or not, and again after the next miss."""
    settings = settings_for(
        endpoint, table, redis_url=redis_server.url, **SECURED, trusted_documents=True
    )
    root, ada = token("root", admin=True), token("ada")
    async with replicas_served(settings) as (first, second), httpx.AsyncClient() as http:
        for n in range(3):
            query = f'{{ product(id: "none-{n}") {{ name }} }}'
            sha = hashlib.sha256(query.encode()).hexdigest()
            by_hash = {"extensions": {"persistedQuery": {"version": 1, "sha256Hash": sha}}}
            missed = await post(http, second, by_hash, root)
            assert code(missed) == "PERSISTED_QUERY_NOT_FOUND"
            # An admin registers it (trusted) on one replica; anyone runs it on the other.
            registered = await post(http, first, {"query": query, **by_hash}, root)
            assert registered["data"] == {"product": None}, registered
            ran = await post(http, second, by_hash, ada)
            assert ran.get("data") == {"product": None}, ran


async def test_redis_down_the_table_is_read_again_rather_than_a_miss_answered(
    endpoint: str, table: str, redis_server: RedisServer
) -> None:
    settings = settings_for(endpoint, table, redis_url=redis_server.url)
    async with replicas_served(settings) as (first, second), httpx.AsyncClient() as http:
        assert code(await post(http, second, BY_HASH)) == "PERSISTED_QUERY_NOT_FOUND"
        redis_server.stop()  # the registration cannot be told: the second cannot know
        registered = await post(http, first, {"query": QUERY, **BY_HASH})
        assert registered["data"] == {"product": None}
        ran = await post(http, second, BY_HASH)
        assert ran.get("data") == {"product": None}, ran
        # The document's read, as the first time a process sees a hash.
        assert ran["extensions"]["cost"]["requests"] == 2


async def test_a_document_kept_but_never_told_is_told_once_it_is_sent(
    client: Any, table: str
) -> None:
    """Registered by another program (as `dynagate documents add`), so never told: the
    replica a client then sends it to tells the others before answering, once."""
    told: list[tuple[str, bool]] = []

    class Replicas:
        async def announce(self, sha256: str, trusted: bool) -> None:
            told.append((sha256, trusted))

        def listening(self) -> bool:
            return True

        async def caught_up(self) -> bool:
            return True

    store = Store(client, table)
    await register_document(store, QUERY, trusted=True)
    documents = PersistedDocuments(replicas=Replicas())
    assert await documents.document(store, SHA, None, OPEN) == QUERY  # read, kept
    for _ in range(2):
        await documents.register(store, QUERY)
    assert told == [(SHA, True)]


async def test_a_document_trusted_elsewhere_runs_here_at_once(
    endpoint: str, table: str, client: Any
) -> None:
    """One process kept a document untrusted; `dynagate documents add` (another process)
    trusts it: this one hears so from the table's stream."""
    settings = settings_for(endpoint, table, **SECURED, trusted_documents=True)
    store = Store(client, table)
    await register_document(store, QUERY, trusted=False)  # as open mode registers it
    async with served(settings) as gateway, httpx.AsyncClient() as http:
        ada = token("ada")
        assert code(await post(http, gateway, BY_HASH, ada)) == "FORBIDDEN"
        await register_document(store, QUERY, trusted=True)
        assert await runs_within(http, gateway, 1.0, ada) < 1.0


async def test_a_registration_heard_while_reading_is_not_taken_for_a_miss(
    client: Any, table: str
) -> None:
    """The table is read before the registration lands, its record heard before the read
    answers: the document is kept, not remembered as missing for RECHECK_SECONDS."""
    documents = PersistedDocuments()
    item = {**document_key(TABLE, SHA), "sha256": SHA, "document": QUERY, "trusted": False}
    record = StreamRecord(
        "INSERT", document_key(TABLE, SHA), None, item, "1", "shard-1", time.time()
    )

    async def follow() -> None:  # the record comes in while the table is read
        asyncio.get_running_loop().call_soon(documents.heard, record)

    documents.follow = follow
    text = await documents.document(Store(client, table), SHA, None, OPEN)
    assert text == QUERY and SHA not in documents.missing


async def test_a_registration_announced_while_reading_is_not_taken_for_a_miss(
    client: Any, table: str
) -> None:
    """The table is read before the registration lands; a replica announces it before the
    read answers: the hash is not remembered missing, so the next request reads again."""
    documents = PersistedDocuments()

    async def follow() -> None:  # the announcement comes in while the table is read
        asyncio.get_running_loop().call_soon(documents.announced, SHA, False)

    documents.follow = follow
    with pytest.raises(UnknownDocument):
        await documents.document(Store(client, table), SHA, None, OPEN)
    assert SHA not in documents.missing and not documents.raced
