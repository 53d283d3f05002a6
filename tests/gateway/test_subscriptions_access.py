"""Subscriptions over a real WebSocket: sign-in (4403), the rules of the query
counterparts, sockets per caller, operations per socket and the rate limit, and what the
protocol says of ids and sockets that never sign in."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from gateway.http import view as view_module
from gateway.live import handler as live
from tests.client import settings_for
from tests.identity import token
from tests.live import Served, connected, served
from tests.subscribing import ISSUES, ORDERS, TICKETS, close_code, code_of, until

pytestmark = pytest.mark.streamed


async def test_a_bad_token_closes_the_socket_with_4403(secured: Served) -> None:
    async with connected(secured, init=False) as client:
        await client.send(
            {"type": "connection_init", "payload": {"Authorization": "Bearer not.a.token"}}
        )
        assert await close_code(client) == 4403


async def test_the_upgrade_request_may_carry_the_token(secured: Served) -> None:
    headers = {"Authorization": f"Bearer {token('ada')}"}
    async with connected(secured, headers=headers) as client:
        ident = await client.subscribe(TICKETS)
        await until(lambda: secured.runtime.feed.active == 1)
        assert client.held == [] and ident == "1"


async def test_an_expiring_token_closes_the_socket_with_4403(secured: Served) -> None:
    async with connected(secured, init=False) as client:
        await client.send(
            {
                "type": "connection_init",
                "payload": {"Authorization": f"Bearer {token('ada', ttl=2)}"},
            }
        )
        assert (await client.receive())["type"] == "connection_ack"
        assert await close_code(client) == 4403


async def test_rules_of_the_query_counterparts(secured: Served) -> None:
    async with connected(secured) as anonymous:
        refused = await anonymous.answer(TICKETS)
        assert code_of(refused) == "UNAUTHENTICATED"
        # The connection stays open: an open subscription still works.
        await anonymous.subscribe(ISSUES)
        await until(lambda: secured.runtime.feed.active == 1)
    async with connected(secured, token("ada")) as ada:
        refused = await ada.answer(ORDERS, c="grace")
        assert code_of(refused) == "FORBIDDEN"
        await ada.subscribe(ORDERS, c="ada")
        await until(lambda: secured.runtime.feed.active == 1)


async def test_subscriptions_and_sockets_are_limited(secured: Served) -> None:
    async with connected(secured, token("ada")) as first, connected(secured, token("ada")):
        await first.subscribe(ISSUES)
        await first.subscribe(ISSUES)
        third = await first.answer(ISSUES)
        assert code_of(third) == "RATE_LIMITED"
        async with connected(secured, init=False) as extra:
            await extra.send(
                {"type": "connection_init", "payload": {"Authorization": f"Bearer {token('ada')}"}}
            )
            assert await close_code(extra) == 4429
    # Another caller is not held back by ada's sockets.
    async with connected(secured, token("grace")):
        pass


async def test_a_token_expired_within_the_leeway_is_refused_before_the_ack(
    secured: Served,
) -> None:
    async with connected(secured, init=False) as client:
        expired = token("ada", ttl=-5)  # within the verifier's leeway: it signs in
        await client.send(
            {"type": "connection_init", "payload": {"Authorization": f"Bearer {expired}"}}
        )
        assert await close_code(client) == 4403
    await until(lambda: not secured.graphql.sockets.open)


async def test_an_id_in_use_is_refused_as_the_protocol_says_even_at_the_limit(
    secured: Served,
) -> None:
    async with connected(secured, token("ada")) as client:
        await client.subscribe(ISSUES)
        await client.subscribe(ISSUES)
        await client.send(
            {"id": "1", "type": "subscribe", "payload": {"query": ISSUES, "variables": {}}}
        )
        assert await close_code(client) == 4409


def test_a_huge_document_is_read_no_further_than_the_token_limit() -> None:
    huge = "subscription { " + "a " * (live.MAX_TOKENS + 10) + "}"
    assert live._subscription(huge, None) is None
    assert live._subscription(ISSUES, None) is not None


async def test_a_socket_that_never_signs_in_is_closed(
    endpoint: str, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(view_module, "CONNECTION_INIT_SECONDS", 0.3)
    async with (
        served(settings_for(endpoint, table)) as gateway,
        connected(gateway, init=False) as client,
    ):
        assert await close_code(client) == 4408


@pytest.fixture
async def frugal(endpoint: str, table: str) -> AsyncIterator[Served]:
    async with served(settings_for(endpoint, table, rate_limit=1.0)) as running:
        yield running


async def test_queries_and_mutations_over_the_socket_draw_on_the_rate_limit(
    frugal: Served,
) -> None:
    async with connected(frugal) as client:
        created = await client.answer(
            'mutation { createProduct(input: {id: "p9", name: "P"}) { id } }'
        )
        assert created["payload"]["data"] == {"createProduct": {"id": "p9"}}
        again = await client.answer(
            'mutation { createProduct(input: {id: "p8", name: "P"}) { id } }'
        )
        assert again["payload"]["data"] == {"createProduct": {"id": "p8"}}
        limiter = frugal.runtime.limiter
        assert limiter is not None
        # Two writes of a unit each, drawn as each operation ends: the bucket of one unit a
        # minute is a unit in debt.
        await until(lambda: limiter.retry_after("127.0.0.1") is not None)
        refused = await client.answer('{ product(id: "p9") { name } }')
        assert code_of(refused) == "RATE_LIMITED", refused
