"""The ASGI application: GraphQL at /graphql, health at /healthz and /readyz."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cross_web import HTTPException
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from gateway.schema import build_schema
from gateway.settings import Settings
from resolvers.context import Context
from store.cursors import CursorCodec
from store.tables import table_status

if TYPE_CHECKING:
    from store.client import DynamoDBClient


# Orchestrators probe readiness every few seconds; a probe must answer within that time.
READY_CHECK_SECONDS = 3.0


@dataclass
class Runtime:
    """What the lifespan opens once and every request shares."""

    settings: Settings
    cursors: CursorCodec
    client: DynamoDBClient | None = field(default=None)

    def require_client(self) -> DynamoDBClient:
        if self.client is None:
            raise RuntimeError("the DynamoDB client is opened by the application lifespan")
        return self.client


class GraphQLApp(GraphQL[Context, None]):
    def __init__(self, runtime: Runtime) -> None:
        super().__init__(
            build_schema(cost_report=runtime.settings.cost_report),
            graphql_ide="graphiql" if runtime.settings.graphiql else None,
            allow_queries_via_get=False,
        )
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except HTTPException as exc:
            # Strawberry answers unparseable requests in plain text; clients expect JSON.
            response = error_response(exc.reason, exc.status_code)
        await response(scope, receive, send)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        runtime = self.runtime
        return Context.create(runtime.require_client(), runtime.settings.table, runtime.cursors)


class BodySizeLimit:
    """Refuses request bodies over `limit` bytes with 413, before they are parsed."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await self._refuse(scope, receive, send)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, counting_receive, send)
        except _TooLarge:
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(f"the request body is over {self.limit:,} bytes", 413)
        await response(scope, receive, send)


class _TooLarge(Exception):
    pass


def error_response(message: str, status_code: int) -> Response:
    """A GraphQL-shaped JSON error for a request refused before GraphQL could run."""
    body = {"errors": [{"message": message, "extensions": {"code": "BAD_USER_INPUT"}}]}
    return JSONResponse(body, status_code=status_code)


def create_app(settings: Settings | None = None) -> Starlette:
    settings = Settings.from_env() if settings is None else settings
    runtime = Runtime(settings, CursorCodec(settings.cursor_secret))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with settings.open_client() as client:
            runtime.client = client
            # What start-up allocated lives as long as the process: keep the collector
            # from walking it again on every young-generation collection.
            gc.freeze()
            yield
            runtime.client = None

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def readyz(request: Request) -> Response:
        try:
            async with asyncio.timeout(READY_CHECK_SECONDS):
                reason = await table_status(runtime.require_client(), settings.table)
        except TimeoutError:
            reason = f"DynamoDB did not answer within {READY_CHECK_SECONDS:.0f} s"
        if reason is None:
            return JSONResponse({"status": "ready"})
        return JSONResponse({"status": "unavailable", "reason": reason}, status_code=503)

    graphql = GraphQLApp(runtime)
    app = Starlette(
        routes=[
            Route("/graphql", graphql, methods=["GET", "POST"]),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
        ],
        lifespan=lifespan,
    )
    app.add_middleware(BodySizeLimit, limit=settings.max_body_bytes)
    return app
