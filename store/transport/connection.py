"""The connections to DynamoDB: the table's client and its stream's, opened once for the
application's lifetime, with the credentials and timeouts every call shares."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import aioboto3
from aiobotocore.config import AioConfig

from store.transport.direct_calls import send_directly
from store.transport.responses import session as lean_session
from store.transport.user_agent import remember_user_agent

if TYPE_CHECKING:
    from store.client import DynamoDBClient

# DynamoDB answers in milliseconds. Three attempts in all (botocore's `max_attempts` would
# count the retries only) ride out brief throttling; a DynamoDB that accepts connections
# and never answers is given up on after three waits of 2 s and at most 1 + 2 s of
# backoff: within the default request timeout (10 s), which bounds the whole request.
CLIENT_CONFIG = AioConfig(
    retries={"total_max_attempts": 3, "mode": "standard"},
    connect_timeout=1,
    read_timeout=2,
    tcp_keepalive=True,
    max_pool_connections=64,
)

# DynamoDB Local accepts any credentials; these let it work on a machine with none.
LOCAL_CREDENTIALS = {"aws_access_key_id": "local", "aws_secret_access_key": "local"}


def _has_credentials(env: Mapping[str, str]) -> bool:
    return bool(env.get("AWS_ACCESS_KEY_ID") or env.get("AWS_PROFILE")) or os.path.exists(
        os.path.expanduser("~/.aws/credentials")
    )


def _credentials(local: bool, env: Mapping[str, str]) -> dict[str, Any]:
    return LOCAL_CREDENTIALS if local and not _has_credentials(env) else {}


@asynccontextmanager
async def open_client(
    endpoint: str | None,
    region: str,
    *,
    local: bool,
    env: Mapping[str, str] | None = None,
    lean: bool = True,
) -> AsyncIterator[DynamoDBClient]:
    """The client for the application's lifetime; `local` for DynamoDB Local, which takes
    made-up credentials on a machine that has none. Unless `lean` is False, its calls that
    read and write items are sent without botocore's event system (`store.transport.direct_calls`)
    and their answers read without botocore's shape walk (`store.transport.responses`)."""
    extra = _credentials(local, os.environ if env is None else env)
    session = lean_session() if lean else aioboto3.Session()
    async with session.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name=region,
        config=CLIENT_CONFIG,
        **extra,
    ) as client:
        if lean:
            remember_user_agent(client)
            send_directly(client)
        yield client


@asynccontextmanager
async def open_streams_client(
    endpoint: str | None,
    region: str,
    *,
    local: bool,
    env: Mapping[str, str] | None = None,
) -> AsyncIterator[Any]:
    """The client of the table's stream (`store.stream.reader`), made as `open_client` makes the
    table's: the same endpoint (DynamoDB Local serves both), credentials and timeouts."""
    extra = _credentials(local, os.environ if env is None else env)
    async with lean_session().client(
        "dynamodbstreams",
        endpoint_url=endpoint,
        region_name=region,
        config=CLIENT_CONFIG,
        **extra,
    ) as client:
        remember_user_agent(client)
        yield client
