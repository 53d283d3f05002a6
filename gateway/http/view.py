"""The GraphQL view: Strawberry's, with every answer JSON in the media type the client
prefers, each request signed in, in time and within its rate, documents named by hash
(and, in trusted mode, only registered ones), Idempotency-Keys, and subscriptions over
`graphql-transport-ws` (`gateway/live/handler.py`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
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
from strawberry.types import ExecutionResult, SubscriptionExecutionResult

from data.callers import ANONYMOUS, OPEN, Caller
from data.idempotency import MalformedKey
from gateway.demand.ratelimit import RateLimiter, bucket, capacity_units
from gateway.documents.persisted import PERSISTING, Persisting, persisted_documents, resolved
from gateway.exchange import is_request_error, note_codes, note_cost
from gateway.http.answers import errors_body, json_body
from gateway.http.batches import Refused, execute_batch
from gateway.http.spec import GRAPHQL_RESPONSE, prefers_graphql_response
from gateway.identity import TokenVerifier
from gateway.live.handler import LiveHandler, Sockets, TextWebSocketAdapter
from gateway.playground import Playground
from gateway.runtime import Runtime
from gateway.schema.build import build_schema
from gateway.schema.idempotency import REPLAYED, kept, requested_key
from keys.errors import BadUserInput, Code, DynagateError, Unauthenticated, Unavailable
from resolvers.context import Context
from store.cost import Cost

CONNECTION_INIT_SECONDS = 5


class GraphQLApp(GraphQL[Context, None]):
    """Strawberry's view, with every answer JSON, each request in time and within its rate;
    subscriptions over `graphql-transport-ws` (`gateway/live/handler.py`)."""

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
                max_batch=settings.max_batch,
                max_document_bytes=settings.max_document_bytes,
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
        self.persisted = persisted_documents(runtime, trusted_only=settings.trusted_documents)
        self.max_subscriptions = settings.max_subscriptions
        self.request_timeout = settings.request_timeout
        self.max_batch = settings.max_batch

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
        """Only for a browser asking for a page (`Accept` naming text/html), also with the
        `?query=…` URLs GraphiQL writes; every other GET is a GraphQL request, `Accept: */*`
        included (Apollo Client's and curl's), so a hash-only GET is answered in JSON."""
        return _wants_page(request)

    async def _respond(self, request: Request) -> Response:
        """The answer, in the media type the client prefers (`gateway/http/spec.py`)."""
        graphql_response = prefers_graphql_response(request.headers.get("accept", ""))
        request.state.graphql_response = graphql_response
        response = await self._answer(request)
        if graphql_response and response.media_type == "application/json":
            response.headers["content-type"] = f"{GRAPHQL_RESPONSE}; charset=utf-8"
            # A batch's answers are each their own: none is the whole request's error.
            batch = getattr(request.state, "batch", False)
            if getattr(request.state, "request_error", False) and not batch:
                response.status_code = 400
        return response

    async def _answer(self, request: Request) -> Response:
        # POST runs every operation, GET queries only; a browser's GET for a page is GraphiQL.
        running = request.method == "POST" or (request.method == "GET" and not _wants_page(request))
        idempotency_key: str | MalformedKey | None
        try:
            idempotency_key = requested_key(request.headers) if running else None
        except BadUserInput as exc:
            # Queries ignore the header, whatever it holds; a mutation is refused (400) by
            # `Idempotency` once the operation's type is known.
            idempotency_key = MalformedKey(str(exc))
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
                if isinstance(idempotency_key, MalformedKey) and idempotency_key.refused:
                    return self._request_refused(idempotency_key.reason, 400, context)
                if context.replayed is not None:
                    return self._replay(context)
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
                refused = self._request_refused(exc.reason, 405, context)
                refused.headers["Allow"] = "POST"
                return refused
            # Strawberry answers unreadable requests in plain text; clients expect JSON.
            return self._request_refused(exc.reason, exc.status_code, context)
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
        """Strawberry's reading of the request, and in each request (of a batch, maybe) a
        document named by its hash put in its place, and in trusted mode only registered
        ones let through (`gateway/documents/persisted.py`)."""
        data = await super().parse_http_body(request)
        requests = data if isinstance(data, list) else [data]
        raw: object = None
        if any(each.query is None for each in requests):  # named by hash: `documentId`?
            raw = (
                request.query_params
                if request.method == "GET"
                else self.parse_json(await request.get_body())
            )
        sent = raw if isinstance(raw, list) else [raw] * len(requests)
        settings = self.runtime.settings
        max_bytes = settings.max_document_bytes
        persisting = PERSISTING.get()
        found: list[GraphQLRequestData] = []
        for each, as_sent in zip(requests, sent, strict=True):
            try:
                found.append(await resolved(self.persisted, each, as_sent, persisting, max_bytes))
            except DynagateError as exc:
                if not isinstance(data, list):
                    raise
                found.append(Refused(refusal=exc))  # answered alone; the others run
        return found if isinstance(data, list) else found[0]

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
        """The body as a JSON object, or an array of them where batches are on; anything
        else is a 400 that says what is wrong."""
        return json_body(data, self.max_batch)

    async def execute_operation(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        request_data: GraphQLRequestData | list[GraphQLRequestData],
        context: Context,
        root_value: None,
        sub_response: Response,
    ) -> ExecutionResult | list[ExecutionResult] | SubscriptionExecutionResult:
        """Strawberry's, but a batch (`gateway/http/batches.py`) bounded whole, each of its
        operations with a context of its own."""
        if not isinstance(request_data, list):
            return await super().execute_operation(
                request, request_adapter, request_data, context, root_value, sub_response
            )
        if context.idempotency_key is not None:  # well formed or not: mutations may be in it
            raise HTTPException(400, "an Idempotency-Key names one request: send no batch with it")
        request.state.batch = True

        async def execute(data: GraphQLRequestData, own: Context) -> ExecutionResult:
            return await self.execute_single(
                request, request_adapter, sub_response, own, root_value, data
            )

        settings = self.runtime.settings
        return await execute_batch(
            execute, request_data, context, settings.limits, cost_report=settings.cost_report
        )

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

    def _request_refused(self, message: str, status: int, context: Context) -> Response:
        """A request that could not be read as GraphQL (BAD_USER_INPUT), with its cost."""
        body = {
            **errors_body(message, Code.BAD_USER_INPUT),
            **self._extensions(context.cost_report()),
        }
        return JSONResponse(body, status_code=status)

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
