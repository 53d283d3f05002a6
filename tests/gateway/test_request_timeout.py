"""Every GraphQL request is answered within `request_timeout`, also when DynamoDB hangs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from gateway.settings import Settings
from store.transport.connection import CLIENT_CONFIG
from tests.client import COST_KEYS, Api

TIMEOUT = 1.5
# Far more than the timeout, far less than botocore would wait for a hung DynamoDB.
GENEROUS = TIMEOUT + 5


@dataclass
class HungDynamoDB:
    url: str
    connections: list[asyncio.StreamWriter] = field(default_factory=list)


@pytest.fixture
async def hung_dynamodb() -> AsyncIterator[HungDynamoDB]:
    """A DynamoDB on 127.0.0.1 that accepts connections and never answers."""
    stop = asyncio.Event()
    hung = HungDynamoDB("")

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hung.connections.append(writer)
        try:
            async with asyncio.timeout(60):  # bounded, whatever happens to the test
                await stop.wait()
        except TimeoutError:
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    host, port = server.sockets[0].getsockname()[:2]
    hung.url = f"http://{host}:{port}"
    async with server:
        yield hung
        stop.set()


@pytest.fixture
async def hung(hung_dynamodb: HungDynamoDB) -> AsyncIterator[Api]:
    settings = Settings(
        table="dynagate",
        endpoint=hung_dynamodb.url,
        cursor_secret=b"test-secret",
        request_timeout=TIMEOUT,
    )
    async with Api.serving(settings) as running:
        yield running


async def test_a_hung_dynamodb_is_unavailable_within_the_timeout(
    hung: Api, hung_dynamodb: HungDynamoDB
) -> None:
    started = time.monotonic()
    async with asyncio.timeout(GENEROUS):
        result = await hung('{ customer(id: "alice") { id name } }')
    elapsed = time.monotonic() - started
    assert result.status == 200
    assert result.codes == ["UNAVAILABLE"]
    assert result.data is None
    assert f"{TIMEOUT:g} s" in result.errors[0]["message"]
    assert set(result.cost) == {*COST_KEYS, "estimated"}
    # It was the timeout that answered, not a quick failure.
    assert elapsed >= TIMEOUT
    assert hung_dynamodb.connections


async def test_a_hung_mutation_is_unavailable_within_the_timeout(hung: Api) -> None:
    async with asyncio.timeout(GENEROUS):
        result = await hung(
            'mutation { createCustomer(input: {id: "a", name: "A", email: "a@x.io"}) { id } }'
        )
    assert result.codes == ["UNAVAILABLE"]


async def test_healthz_answers_while_requests_hang(hung: Api) -> None:
    pending = asyncio.create_task(hung('{ customer(id: "alice") { id } }'))
    await asyncio.sleep(TIMEOUT / 3)
    health = await hung.http.get("/healthz")
    assert health.status_code == 200
    assert not pending.done()  # still waiting for DynamoDB while /healthz answered
    async with asyncio.timeout(GENEROUS):
        assert (await pending).codes == ["UNAVAILABLE"]


def test_botocore_gives_up_within_the_default_timeout() -> None:
    """Attempts, each waiting at most read_timeout, with backoff (rand(0, 1) * 2**i) between."""
    attempts = CLIENT_CONFIG.retries["total_max_attempts"]
    assert CLIENT_CONFIG.read_timeout is not None
    worst = attempts * CLIENT_CONFIG.read_timeout + sum(2**i for i in range(attempts - 1))
    assert worst < Settings().request_timeout
