"""Test fixtures: one DynamoDB Local for the session, a fresh table per test.

Documents that never reach DynamoDB can share one table per module through `app`; tests
that write get a fresh one through `api`.

Set DYNAGATE_TEST_ENDPOINT to use an already running DynamoDB Local instead. Tests that
need it (through any fixture) are marked `dynamodb`; `make test-offline` runs the others.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from gateway.cli.dynamodb_local import DynamoDBLocal
from gateway.settings import Settings
from store.client import Store
from store.tables import create_table
from store.transport.connection import open_client
from tests.client import Api, settings_for
from tests.faults import FaultProxy, without_backoff
from tests.jwks import JwksServer
from tests.redis_server import RedisServer

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

# CI machines are shared and slow at times: no deadlines or speed health checks, and the
# same examples every run so a red build is reproducible. `HYPOTHESIS_PROFILE=explore`
# draws fresh, more numerous examples for a deeper search.
_RELAXED: dict[str, Any] = {
    "deadline": None,
    "database": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
hypothesis_settings.register_profile("ci", derandomize=True, **_RELAXED)
hypothesis_settings.register_profile("explore", max_examples=1_000, **_RELAXED)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "overrides(**settings): the Settings a module's `api` and `app` change"
    )
    config.addinivalue_line("markers", "streamed: the test's table has its stream on")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that reaches DynamoDB Local (the session's, or `make run`'s), so
    `-m "not dynamodb"` runs the rest."""
    for item in items:
        if {"endpoint", "make_run"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.dynamodb)


@pytest.fixture(scope="session")
def endpoint() -> Iterator[str]:
    given = os.environ.get("DYNAGATE_TEST_ENDPOINT")
    if given:
        yield given
        return
    with DynamoDBLocal() as local:
        yield local.endpoint


@pytest.fixture(scope="session")
async def client(endpoint: str) -> AsyncIterator[DynamoDBClient]:
    async with open_client(endpoint, "us-east-1", local=True, env={}) as dynamodb:
        yield dynamodb


@asynccontextmanager
async def new_table(
    client: DynamoDBClient, prefix: str, *, stream: bool = False
) -> AsyncIterator[str]:
    """A table of its own for as long as the block runs; with its stream (as `dynagate
    create-table` makes every table) only for `stream`: DynamoDB Local is about twice as
    slow to write a table with one, and only subscriptions read it."""
    name = f"{prefix}-{uuid.uuid4().hex[:12]}"
    await create_table(client, name, stream=stream)
    yield name
    await client.delete_table(TableName=name)


@pytest.fixture
async def table(client: DynamoDBClient, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """The test's table; with its stream in modules marked `streamed`."""
    streamed = request.node.get_closest_marker("streamed") is not None
    async with new_table(client, "test", stream=streamed) as name:
        yield name


@pytest.fixture(scope="session")
def provider() -> Iterator[JwksServer]:
    """An identity provider's key endpoint on a loopback port (`tests/jwks.py`)."""
    with JwksServer() as running:
        yield running


@pytest.fixture
async def proxy(endpoint: str) -> AsyncIterator[FaultProxy]:
    """A fault-injecting proxy in front of the session's DynamoDB Local (`tests/faults.py`)."""
    async with FaultProxy(endpoint) as running:
        yield running


@pytest.fixture
def no_pauses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Botocore retrying at once (`tests.faults.without_backoff`), for the fault tests."""
    without_backoff(monkeypatch)


@pytest.fixture
async def faulty(proxy: FaultProxy, table: str) -> AsyncIterator[Store]:
    """A store reaching the test's table through `proxy`; modules may give their own."""
    async with open_client(proxy.url, "us-east-1", local=True, env={}) as dynamodb:
        yield Store(dynamodb, table)


@pytest.fixture(scope="module")
def overrides(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Settings a test module changes for its `api` and `app`, given by its
    `pytestmark = pytest.mark.overrides(...)` (or by a fixture of its own)."""
    marker = request.node.get_closest_marker("overrides")
    return {} if marker is None else dict(marker.kwargs)


@pytest.fixture
def settings(endpoint: str, table: str, overrides: dict[str, Any]) -> Settings:
    return settings_for(endpoint, table, **overrides)


@pytest.fixture
async def api(settings: Settings) -> AsyncIterator[Api]:
    async with Api.serving(settings) as running:
        yield running


@pytest.fixture(scope="module")
async def shared_table(client: DynamoDBClient) -> AsyncIterator[str]:
    async with new_table(client, "test-app") as name:
        yield name


@pytest.fixture(scope="module")
async def app(endpoint: str, shared_table: str, overrides: dict[str, Any]) -> AsyncIterator[Api]:
    async with Api.serving(settings_for(endpoint, shared_table, **overrides)) as running:
        yield running


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A Redis server of the test's own (`tests/redis_server.py`): stop and start it at will."""
    with RedisServer() as server:
        yield server
