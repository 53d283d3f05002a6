"""The hand-written floor: a minimal Starlette + aioboto3 endpoint per operation.

For each operation it sends exactly the DynamoDB calls the gateway made for it (recorded
by `bench/capture.py`), all at once, decodes the items with boto3's TypeDeserializer (as
hand-written aioboto3 code does) and answers them as JSON. It parses no GraphQL (the
request body picks the operation), validates, bounds, authenticates and shapes nothing:
what the gateway does beyond this is its overhead.

Serve it with `uvicorn bench.floor:create_app --factory`, with `DYNAGATE_FLOOR_CALLS`
naming the JSON file `{request body: [[client method, request], …]}` and the gateway's
settings (`DYNAGATE_DYNAMODB_ENDPOINT`, `DYNAGATE_TABLE`).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boto3.dynamodb.types import TypeDeserializer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from gateway.settings import Settings

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

CALLS_FILE = "DYNAGATE_FLOOR_CALLS"


_deserializer = TypeDeserializer()


def _items(response: dict[str, Any]) -> list[dict[str, Any]]:
    raw = response.get("Items")
    if raw is None:  # BatchGetItem
        raw = [i for items in response.get("Responses", {}).values() for i in items]
    return [{name: _deserializer.deserialize(v) for name, v in i.items()} for i in raw]


def _number(value: object) -> int | float:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


class _ItemsResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json.dumps(content, separators=(",", ":"), default=_number).encode()


async def replay(client: DynamoDBClient, calls: list[list[Any]]) -> list[list[dict[str, Any]]]:
    """The items of each call, every call in flight at once."""
    responses = await asyncio.gather(*(getattr(client, name)(**request) for name, request in calls))
    return [_items(r) for r in responses]


def create_app(settings: Settings | None = None, calls_file: Path | None = None) -> Starlette:
    settings = Settings.from_env() if settings is None else settings
    path = Path(os.environ[CALLS_FILE]) if calls_file is None else calls_file
    by_body: dict[bytes, list[list[Any]]] = {
        body.encode(): calls for body, calls in json.loads(path.read_text()).items()
    }
    clients: list[DynamoDBClient] = []

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with settings.open_client() as client:
            clients.append(client)
            yield
            clients.clear()

    async def graphql(request: Request) -> Response:
        calls = by_body.get(await request.body())
        if calls is None:
            error = {"message": "the floor serves only the benchmark's operations"}
            return JSONResponse({"errors": [error]}, status_code=400)
        return _ItemsResponse({"data": await replay(clients[0], calls)})

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    return Starlette(
        routes=[Route("/graphql", graphql, methods=["POST"]), Route("/healthz", healthz)],
        lifespan=lifespan,
    )
