"""The ASGI application: GraphQL at /graphql, health at /healthz and /readyz, metrics at
/metrics, GraphiQL's files at /graphql/assets/."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute

from gateway.http.answers import BodySizeLimit
from gateway.http.spec import cors_options
from gateway.http.tracing import RequestTracing
from gateway.http.view import GraphQLApp
from gateway.metrics import Metrics
from gateway.playground import FIX, asset_path
from gateway.readiness import not_ready
from gateway.runtime import REDIS_DOWN, Runtime, redis_client
from gateway.settings import Settings
from store.cursors import CursorCodec

logger = logging.getLogger("dynagate")


def create_app(settings: Settings | None = None) -> Starlette:
    settings = Settings.from_env() if settings is None else settings
    metrics = Metrics() if settings.metrics else None
    tracing = None
    if settings.traces is not None:
        # Imported only when `OTEL_*` settings ask for traces: without them no tracing code runs.
        from gateway.traces.spans import Traces

        tracing = Traces.start(settings.traces)
    runtime = Runtime(
        settings,
        CursorCodec(settings.cursor_secret),
        metrics=metrics,
        tracing=tracing,
        redis=redis_client(settings, tracing),
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with runtime:
            yield

    app = Starlette(routes=_routes(runtime, GraphQLApp(runtime)), lifespan=lifespan)
    app.state.runtime = runtime
    app.add_middleware(BodySizeLimit, limit=settings.max_body_bytes)
    if tracing is not None:
        from gateway.traces.requests import RequestSpans

        app.add_middleware(RequestSpans, traces=tracing)
    # The 413 that BodySizeLimit makes gets an id too.
    app.add_middleware(RequestTracing, metrics=metrics)
    if settings.cors_origins:
        # Outermost, so that every answer (a 413, a 429) reaches the page that asked.
        app.add_middleware(CORSMiddleware, **cors_options(settings.cors_origins))
    return app


def _routes(runtime: Runtime, graphql: GraphQLApp) -> list[BaseRoute]:
    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def readyz(request: Request) -> Response:
        problem = await not_ready(runtime.require_client(), runtime.settings.table)
        if problem is not None:
            body = {"status": "unavailable", "reason": problem.reason}
            return JSONResponse(body, status_code=503)
        # Still served, with what it works without meanwhile.
        degraded = runtime.degraded()
        if not await runtime.redis_answers() and not any("Redis" in d for d in degraded):
            degraded.append(REDIS_DOWN)
        return JSONResponse({"status": "ready", **({"degraded": degraded} if degraded else {})})

    routes: list[BaseRoute] = [
        Route("/graphql", graphql, methods=["GET", "POST"]),
        WebSocketRoute("/graphql", graphql),
        Route("/healthz", healthz),
        Route("/readyz", readyz),
    ]
    if runtime.metrics is not None:
        routes.append(Route("/metrics", runtime.metrics.endpoint))
    if runtime.settings.graphiql:
        routes.append(Route("/graphql/assets/{name}", playground_asset))
        # Checks the files once, and keeps the page for its first view.
        if graphql.playground.html()[0] != 200:
            logger.warning("GraphiQL's files are missing: run `%s` to fetch them", FIX)
    return routes


async def playground_asset(request: Request) -> Response:
    """`GET /graphql/assets/<name>`: a pinned GraphiQL file, cached by browsers for a year
    (another version has another name)."""
    path = asset_path(request.path_params["name"])
    if path is None:
        return PlainTextResponse("Not Found", status_code=404)
    kind = "text/css" if path.suffix == ".css" else "text/javascript"
    headers = {"Cache-Control": "public, max-age=31536000, immutable"}
    # Streamed from disk off the event loop (the largest is 3.5 MB), with ETag and ranges.
    return FileResponse(path, media_type=kind, headers=headers)
