"""The ASGI application: GraphQL at /graphql, health at /healthz and /readyz, metrics at
/metrics."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.routing import Route, WebSocketRoute

from gateway.http.answers import BodySizeLimit
from gateway.http.readiness import not_ready, warn_unless_ready
from gateway.http.spec import cors_options
from gateway.http.tracing import RequestTracing
from gateway.http.view import GraphQLApp
from gateway.metrics import Metrics
from gateway.playground import FIX, asset_path
from gateway.replicas.shared_limits import SharedRateLimiter
from gateway.runtime import STOP_SECONDS, Runtime, redis_client
from gateway.settings import Settings
from store.client import open_streams_client
from store.cursors import CursorCodec

logger = logging.getLogger("dynagate")


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


def create_app(settings: Settings | None = None) -> Starlette:
    settings = Settings.from_env() if settings is None else settings
    metrics = Metrics() if settings.metrics else None
    runtime = Runtime(
        settings, CursorCodec(settings.cursor_secret), metrics=metrics, redis=redis_client(settings)
    )
    if metrics is not None:
        runtime.feed.observers.append(metrics.event)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        streams_client = open_streams_client(
            settings.endpoint, settings.region, local=settings.custom_endpoint
        )
        async with settings.open_client() as client, streams_client as streams:
            runtime.client = client
            # Before the metrics watch the client: this call serves no request.
            await warn_unless_ready(client, settings)
            unwatch = None if metrics is None else metrics.watch(client)
            unwatch_stream = None if metrics is None else metrics.watch(streams)
            # One reader of the table's stream feeds every subscription of the process; with
            # Redis, one reader per shard across the replicas feeds them all.
            runtime.reader = runtime.stream_reader(client, streams)
            # What start-up allocated lives as long as the process: keep the collector
            # from walking it again on every young-generation collection.
            gc.freeze()
            limiter = graphql.limiter
            flushing = (
                asyncio.create_task(limiter.flushing(), name="dynagate-rate-limit-flush")
                if isinstance(limiter, SharedRateLimiter)
                else None
            )
            try:
                yield
            finally:
                # Reading stops first (leases given back), then what is owed goes to Redis.
                await runtime.stop_following()
                if flushing is not None and isinstance(limiter, SharedRateLimiter):
                    flushing.cancel()
                    await limiter.flush()
                if runtime.redis is not None:
                    try:
                        async with asyncio.timeout(STOP_SECONDS):
                            await runtime.redis.aclose()
                    except TimeoutError:
                        logger.warning("the Redis client did not close within %g s", STOP_SECONDS)
                if metrics is not None:
                    metrics.close()
                for stop in (unwatch, unwatch_stream):
                    if stop is not None:
                        stop()
                runtime.client = None

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def readyz(request: Request) -> Response:
        problem = await not_ready(runtime.require_client(), settings.table)
        if problem is None:
            # Still served, with what it works without meanwhile.
            degraded = []
            limiter = graphql.limiter
            if isinstance(limiter, SharedRateLimiter) and limiter.degraded:
                degraded.append(
                    "Redis is unreachable: rate limits are per process until it returns"
                )
            if runtime.fanout is not None and runtime.fanout.degraded:
                degraded.append("Redis is unreachable: subscribers hear of changes once it returns")
            if degraded:
                return JSONResponse({"status": "ready", "degraded": degraded})
            return JSONResponse({"status": "ready"})
        return JSONResponse({"status": "unavailable", "reason": problem.reason}, status_code=503)

    graphql = GraphQLApp(runtime)
    routes = [
        Route("/graphql", graphql, methods=["GET", "POST"]),
        WebSocketRoute("/graphql", graphql),
        Route("/healthz", healthz),
        Route("/readyz", readyz),
    ]
    if metrics is not None:
        routes.append(Route("/metrics", metrics.endpoint))
    if settings.graphiql:
        routes.append(Route("/graphql/assets/{name}", playground_asset))
        # Checks the files once, and keeps the page for its first view.
        if graphql.playground.html()[0] != 200:
            logger.warning("GraphiQL's files are missing: run `%s` to fetch them", FIX)
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.runtime = runtime
    app.add_middleware(BodySizeLimit, limit=settings.max_body_bytes)
    # The 413 that BodySizeLimit makes gets an id too.
    app.add_middleware(RequestTracing, metrics=metrics)
    if settings.cors_origins:
        # Outermost, so that every answer (a 413, a 429) reaches the page that asked.
        app.add_middleware(CORSMiddleware, **cors_options(settings.cors_origins))
    return app
