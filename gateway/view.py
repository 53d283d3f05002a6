"""The GraphQL view: Strawberry's, with every answer JSON in the media type the client
prefers, each request signed in, in time and within its rate, documents named by hash
(and, in trusted mode, only registered ones), Idempotency-Keys, and subscriptions over
`graphql-transport-ws` (`gateway/live.py`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import timedelta
from functools import partial
from typing import Any

import orjson
from cross_web import AsyncHTTPRequestAdapter, HTTPException
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    Response,
)
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.http.base import BaseRequestProtocol
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult

from data.callers import ANONYMOUS, OPEN, Caller
from gateway.answers import error_response, errors_body, json_object
from gateway.exchange import note_codes, note_cost
from gateway.http_spec import GRAPHQL_RESPONSE, is_request_error, prefers_graphql_response
from gateway.idempotency import REPLAYED, kept, requested_key
from gateway.identity import TokenVerifier
from gateway.live import LiveHandler, Sockets, TextWebSocketAdapter
from gateway.persisted import (
    DOCUMENT_ID,
    PERSISTING,
    PersistedDocuments,
    Persisting,
    requested_hash,
)
from gateway.playground import Playground
from gateway.ratelimit import RateLimiter, bucket, capacity_units
from gateway.runtime import Runtime
from gateway.schema import build_schema
from keys.errors import BadUserInput, Code, DynagateError, Unauthenticated, Unavailable
from resolvers.context import Context
from store.client import Store
from store.cost import Cost

CONNECTION_INIT_SECONDS = 5


class GraphQLApp(GraphQL[Context, None]):
    """Strawberry's view, with every answer JSON, each request in time and within its rate;
    subscriptions over `graphql-transport-ws` (`gateway/live.py`)."""

    graphql_transport_ws_handler_class = LiveHandler
    websocket_adapter_class = TextWebSocketAdapter

    def __init__(self, runtime: Runtime) -> None:
        settings = runtime.settings
        super().__init__(
            build_schema(
                cost_report=settings.cost_report,
                limits=settings.limits,
                introspection=settings.introspection,
                request_timeout=settings.request_timeout,
            ),
            graphql_ide="graphiql" if settings.graphiql else None,
            allow_queries_via_get=True,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            # A socket that does not sign in soon is closed (4408), not kept uncounted.
            connection_init_wait_timeout=timedelta(seconds=CONNECTION_INIT_SECONDS),
        )
        self.runtime = runtime
        self.playground = Playground()
        self.limiter = runtime.rate_limiter()
        self.verifier = TokenVerifier.from_settings(settings)
        self.sockets = Sockets(settings.max_connections)
        self.persisted = PersistedDocuments(trusted_only=settings.trusted_documents)
        self.max_subscriptions = settings.max_subscriptions
        self.request_timeout = settings.request_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        response = await self._respond(Request(scope=scope, receive=receive))
        await response(scope, receive, send)

    async def render_graphql_ide(self, request: Request) -> Response:
        """GraphiQL with every file served by this gateway (`gateway/playground.py`), or
        while its files are missing, a page that says how to fetch them."""
        status, page = self.playground.html()
        # Never inside another site's frame, where a click could be steered into a write.
        framing = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'"}
        return HTMLResponse(page, status_code=status, headers=framing)

    def should_render_graphql_ide(self, request: BaseRequestProtocol) -> bool:
        """Also for the `?query=…` URLs GraphiQL writes: a browser asking for a page gets
        the playground, which reads the query from the URL; other GETs run the query."""
        return _wants_page(request) or super().should_render_graphql_ide(request)

    async def _respond(self, request: Request) -> Response:
        """The answer, in the media type the client prefers (`gateway/http_spec.py`)."""
        graphql_response = prefers_graphql_response(request.headers.get("accept", ""))
        request.state.graphql_response = graphql_response
        response = await self._answer(request)
        if graphql_response and response.media_type == "application/json":
            response.headers["content-type"] = f"{GRAPHQL_RESPONSE}; charset=utf-8"
            if getattr(request.state, "request_error", False):
                response.status_code = 400
        return response

    async def _answer(self, request: Request) -> Response:
        # POST runs every operation, GET queries only; a browser's GET for a page is GraphiQL.
        running = request.method == "POST" or (request.method == "GET" and not _wants_page(request))
        try:
            idempotency_key = requested_key(request.headers) if running else None
        except BadUserInput as exc:
            return error_response(str(exc), 400)
        try:
            signed_in = await self._caller(request) if running else self._no_token
        except (Unauthenticated, Unavailable) as exc:
            return self._refused(exc)
        who = bucket(request, signed_in)
        limiter = self.limiter if running else None
        if limiter is not None:
            wait = await limiter.check(who)
            if wait is not None:
                return self._rate_limited(limiter, who, wait)
        context = self._context(who, signed_in)
        context.idempotency_key, context.who = idempotency_key, who
        persisting = PERSISTING.set(Persisting(context))
        note_cost(context.cost)
        deadline = asyncio.timeout(self.runtime.settings.request_timeout)
        try:
            async with deadline:
                response = await self.run(request, context=context)
                if context.replayed is not None:
                    return self._replay(context)
                sent = PERSISTING.get().sent
                if sent is not None and not getattr(request.state, "request_error", False):
                    # A write of its own, past the operation's bound, in the request's cost.
                    store = context.store
                    registering = Store(store.client, store.table, cost=store.cost)
                    await self.persisted.register(
                        registering, sent, context.estimated, trusted=context.caller.admin
                    )
            # Outside the deadline: a mutation done is worth its answer kept.
            return await kept(context, response, cost_report=self.runtime.settings.cost_report)
        except DynagateError as exc:
            # A document named by a hash that is malformed or unknown: nothing ran.
            request.state.request_error = True
            return JSONResponse(
                {**errors_body(str(exc), exc.code), **self._extensions(context.cost_report())}
            )
        except HTTPException as exc:
            if isinstance(exc.__cause__, InvalidOperationTypeError):
                # A mutation over GET, which a crawler or a prefetch could send.
                refused = error_response(exc.reason, 405)
                refused.headers["Allow"] = "POST"
                return refused
            # Strawberry answers unreadable requests in plain text; clients expect JSON.
            return error_response(exc.reason, exc.status_code)
        except TimeoutError:
            if not deadline.expired():
                raise
            return self._out_of_time(context)
        finally:
            PERSISTING.reset(persisting)
            if limiter is not None:
                limiter.draw(who, capacity_units(context.cost))

    def charger(self, who: str) -> Callable[[Cost], None] | None:
        """What charges a subscription event's reads to `who`'s rate limit, if any."""
        limiter = self.limiter
        if limiter is None:
            return None
        return lambda cost: limiter.spend(who, capacity_units(cost))

    async def follow(self) -> None:
        """The table's stream is read from now on (`Runtime.follow`)."""
        await self.runtime.follow()

    def gauge(self, name: str, delta: int) -> None:
        """Move the `sockets` or `subscriptions` gauge of /metrics."""
        metrics = self.runtime.metrics
        if metrics is not None:
            getattr(metrics, name).inc(delta)

    @property
    def no_token(self) -> Caller:
        return self._no_token

    @property
    def _no_token(self) -> Caller:
        """Who a request without a token is: anyone at all in open mode."""
        return OPEN if self.verifier is None else ANONYMOUS

    async def _caller(self, request: Request) -> Caller:
        if self.verifier is None:
            return OPEN
        return await self.verifier.caller(request.headers.getlist("authorization"))

    def _context(self, who: str, signed_in: Caller) -> Context:
        runtime = self.runtime
        context = Context.create(
            runtime.require_client(), runtime.settings.table, runtime.cursors, signed_in
        )
        if self.limiter is not None:
            context.budget = partial(self.limiter.budget, who, context.cost)
        return context

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        context = self._context(bucket(request, self._no_token), self._no_token)
        if isinstance(request, WebSocket):
            # A socket's caller is who its `connection_init` signs in (`LiveHandler`).
            context.budget = None
            context.changes = self.runtime.feed
            context.subscription_buffer = self.runtime.settings.subscription_buffer
        return context

    async def parse_http_body(
        self, request: AsyncHTTPRequestAdapter
    ) -> GraphQLRequestData | list[GraphQLRequestData]:
        """Strawberry's reading of the request, and a document named by its hash
        (`gateway/persisted.py`) put in its place."""
        data = await super().parse_http_body(request)
        if isinstance(data, list):
            return data
        document_id: object = None
        if data.query is None:
            raw = (
                request.query_params
                if request.method == "GET"
                else self.parse_json(await request.get_body())
            )
            document_id = raw.get(DOCUMENT_ID) if isinstance(raw, Mapping) else None
        sha256 = requested_hash(document_id, data.extensions)
        persisting = PERSISTING.get()
        store, caller = persisting.context.store, persisting.context.caller
        if sha256 is None:
            if data.query is not None:  # in trusted mode, run only if registered
                await self.persisted.admit(store, data.query, caller)
            return data
        text = await self.persisted.document(store, sha256, data.query, caller)
        if data.query is not None:
            persisting.sent = text  # registered once it has run
        return replace(data, query=text)

    async def process_result(
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        note_codes([_code(error.extensions) for error in result.errors or []])
        answer = await super().process_result(request, result)
        if is_request_error(result.data, result.errors):
            request.state.request_error = True
            if request.state.graphql_response:
                answer.pop("data", None)
        return answer

    def encode_json(self, data: object) -> bytes:
        """Responses through orjson: a tenth of the stdlib encoder's time on a page.

        orjson refuses what strict UTF-8 cannot hold, such as a lone surrogate (`\\ud800`,
        valid in JSON) that a client sent and an error message quotes back: those
        answers take the stdlib encoder, which escapes it."""
        try:
            return orjson.dumps(data)
        except orjson.JSONEncodeError:
            return json.dumps(data, separators=(",", ":")).encode()

    def decode_json(self, data: str | bytes) -> object:
        """The body as a JSON object; anything else is a 400 that says what is wrong."""
        return json_object(data)

    def _refused(self, exc: Unauthenticated | Unavailable) -> Response:
        """A token that signs no one in is refused for the whole request (401); one whose
        provider's keys cannot be fetched cannot be checked now (503)."""
        body = {**errors_body(str(exc), exc.code), **self._extensions(Cost().as_dict())}
        if isinstance(exc, Unauthenticated):
            challenge = 'Bearer error="invalid_token"'
            return JSONResponse(body, status_code=401, headers={"WWW-Authenticate": challenge})
        return JSONResponse(body, status_code=503, headers={"Retry-After": "5"})

    def _rate_limited(self, limiter: RateLimiter, who: str, wait: int) -> Response:
        message = (
            f"over the rate limit of {limiter.limit:g} capacity units a minute; retry in {wait} s"
        )
        cost = {**Cost().as_dict(), "budget": limiter.budget(who, Cost())}
        body = {**errors_body(message, Code.RATE_LIMITED), **self._extensions(cost)}
        return JSONResponse(body, status_code=429, headers={"Retry-After": str(wait)})

    def _replay(self, context: Context) -> Response:
        """The first answer to this Idempotency-Key, with what repeating it cost."""
        body = {**json.loads(context.replayed or "{}"), **self._extensions(context.cost_report())}
        return JSONResponse(body, headers={REPLAYED: "true"})

    def _out_of_time(self, context: Context) -> Response:
        message = f"the request did not finish within {self.runtime.settings.request_timeout:g} s"
        cost = context.cost_report()
        return JSONResponse(
            {"data": None, **errors_body(message, Code.UNAVAILABLE), **self._extensions(cost)}
        )

    def _extensions(self, cost: dict[str, Any]) -> dict[str, Any]:
        """What `CostReport` adds to the responses GraphQL did not make."""
        return {"extensions": {"cost": cost}} if self.runtime.settings.cost_report else {}


def _wants_page(request: BaseRequestProtocol | Request) -> bool:
    """A browser's GET for a page (GraphiQL), not for an answer."""
    return request.method == "GET" and "text/html" in request.headers.get("accept", "")


def _code(extensions: dict[str, Any] | None) -> str:
    return str((extensions or {}).get("code", Code.INTERNAL_SERVER_ERROR))
