"""The aioboto3 floor: a minimal Starlette endpoint written as aioboto3's users write one.

For each operation it sends exactly the DynamoDB calls the gateway made for it (recorded
by `bench/capture.py`), all at once, decodes the items with boto3's TypeDeserializer and
answers them with the standard library's json. It parses no GraphQL (the request body
picks the operation), validates, bounds, authenticates and shapes nothing: what the
gateway does beyond this is its overhead.

Its client is plain `aioboto3.Session().client("dynamodb", …)`, with the store's
connection settings (pool, timeouts, retries: the same connections) but nothing of the
store's: this module imports no project package, so no faster path of the store's client
can reach it, and it refuses to start in a process that has loaded the store.
`bench/floor_lean.py` builds the other floor on the same endpoint (`endpoint`).

Serve it with `uvicorn bench.floor:create_app --factory`, with `DYNAGATE_FLOOR_CALLS`
naming the JSON file `{request body: [[client method, request], …]}` and
`DYNAGATE_DYNAMODB_ENDPOINT` the DynamoDB (Local) to ask (`AWS_REGION` as usual).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aioboto3
from aiobotocore.config import AioConfig
from boto3.dynamodb.types import TypeDeserializer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

CALLS_FILE = "DYNAGATE_FLOOR_CALLS"
ENDPOINT = "DYNAGATE_DYNAMODB_ENDPOINT"
# The store's CLIENT_CONFIG, written out (tests/bench/test_floors.py keeps them equal).
CONNECTIONS = AioConfig(
    retries={"total_max_attempts": 3, "mode": "standard"},
    connect_timeout=1,
    read_timeout=2,
    tcp_keepalive=True,
    max_pool_connections=64,
)
# Packages whose presence would mean the store's client could be in this process.
_PROJECT = ("store", "gateway", "resolvers", "data", "keys")

# [[client method, request], …] of one operation, and what a floor makes of its responses.
Calls = Sequence[Sequence[Any]]
Answer = Callable[[Sequence[Mapping[str, Any]]], bytes]
OpenClient = Callable[[], AbstractAsyncContextManager["DynamoDBClient"]]


def raw_items(response: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The typed items of a Query's or a BatchGetItem's response."""
    raw = response.get("Items")
    if raw is None:  # BatchGetItem
        raw = [i for items in response.get("Responses", {}).values() for i in items]
    return list(raw)


def endpoint(open_client: OpenClient, answer: Answer, calls_file: Path | None = None) -> Starlette:
    """POST /graphql replays the calls its body names, every call in flight at once, and
    answers `answer(responses)`; GET /healthz for the harness."""
    path = Path(os.environ[CALLS_FILE]) if calls_file is None else calls_file
    by_body: dict[bytes, Calls] = {
        body.encode(): calls for body, calls in json.loads(path.read_text()).items()
    }
    clients: list[DynamoDBClient] = []

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with open_client() as client:
            clients.append(client)
            yield
            clients.clear()

    async def graphql(request: Request) -> Response:
        calls = by_body.get(await request.body())
        if calls is None:
            error = {"message": "the floor serves only the benchmark's operations"}
            return JSONResponse({"errors": [error]}, status_code=400)
        client = clients[0]
        responses = await asyncio.gather(
            *(getattr(client, name)(**request) for name, request in calls)
        )
        return Response(answer(responses), media_type="application/json")

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    return Starlette(
        routes=[Route("/graphql", graphql, methods=["POST"]), Route("/healthz", healthz)],
        lifespan=lifespan,
    )


_deserializer = TypeDeserializer()


def _number(value: object) -> int | float:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def answer(responses: Sequence[Mapping[str, Any]]) -> bytes:
    """The items of each call, decoded by boto3 and encoded by json."""
    data = [
        [{name: _deserializer.deserialize(v) for name, v in item.items()} for item in raw_items(r)]
        for r in responses
    ]
    return json.dumps({"data": data}, separators=(",", ":"), default=_number).encode()


def project_modules() -> list[str]:
    """The project's packages loaded in this process."""
    return sorted(name for name in sys.modules if name.split(".", 1)[0] in _PROJECT)


@asynccontextmanager
async def plain_client() -> AsyncIterator[DynamoDBClient]:
    """The client as a hand-written aioboto3 service opens it (DynamoDB Local takes any
    credentials)."""
    if loaded := project_modules():
        raise RuntimeError(f"the aioboto3 floor must not run beside {', '.join(loaded)}")
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    async with aioboto3.Session().client(
        "dynamodb",
        endpoint_url=os.environ.get(ENDPOINT) or None,
        region_name=region,
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=CONNECTIONS,
    ) as client:
        yield client


def create_app(calls_file: Path | None = None) -> Starlette:
    return endpoint(plain_client, answer, calls_file)
