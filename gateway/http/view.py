"""The GraphQL view: Strawberry's, with every answer JSON in the media type the client
prefers; each request let in by the admission (`gateway/admission.py`: signed in, within
its rate, its document allowed, in time); documents named by hash; Idempotency-Keys;
batches; and subscriptions over `graphql-transport-ws` (`gateway/live/handler.py`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from functools import partial
from typing import Any

import orjson
from cross_web import AsyncHTTPRequestAdapter, HTTPException, StarletteRequestAdapter
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.http.base import BaseRequestProtocol
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult, SubscriptionExecutionResult

from data.idempotency import MalformedKey
from errors.vocabulary import BadUserInput, Code, DynagateError, Unauthenticated, Unavailable
from gateway.admission import Admission, RateLimited
from gateway.demand.ratelimit import bucket
from gateway.documents.persisted import PersistedDocuments, persisted_documents, resolved
from gateway.http.answers import errors_body, json_body
from gateway.http.batches import Refused, execute_batch
from gateway.http.planned import Planner
from gateway.http.spec import GRAPHQL_RESPONSE, prefers_graphql_response
from gateway.live.handler import LiveHandler, Sockets, TextWebSocketAdapter
from gateway.operation_context import OperationContext
from gateway.plans.cache import Plans
from gateway.playground import Playground
from gateway.request_scope import RequestScope, held_by, is_request_error
from gateway.runtime import Runtime
from gateway.schema.build import build_schema
from gateway.schema.idempotency import REPLAYED, kept, requested_key
from gateway.served_model import served
from store.cost import Cost

CONNECTION_INIT_SECONDS = 5


class Asked(Request):
    """The request being answered, as the view hands it to Strawberry, which hands it back
    (to `process_result`, and through its adapter to `parse_http_body`): what the view
    decides along the way travels with it."""

    context: OperationContext | None = None
    # The client prefers application/graphql-response+json (docs/http.md).
    graphql_response: bool = False
    # An answer that ran nothing (a request error: 400 under that media type).
    request_error: bool = False
    batch: bool = False

    @property
    def answering(self) -> RequestScope:
        """The request as the gateway answers it (opened by `RequestTracing`)."""
        return held_by(self.scope)


class _Adapter(StarletteRequestAdapter):
    """Strawberry's adapter, keeping the request it adapts at hand for `parse_http_body`."""

    def __init__(self, request: Request) -> None:
        super().__init__(request)
        self.asked = request


class GraphQLApp(GraphQL[OperationContext, None]):
    """Strawberry's view, with every answer JSON, each request let in by the admission;
    subscriptions over `graphql-transport-ws` (`gateway/live/handler.py`)."""

    graphql_transport_ws_handler_class = LiveHandler
    websocket_adapter_class = TextWebSocketAdapter
    request_adapter_class = _Adapter

    def __init__(self, runtime: Runtime) -> None:
        settings = runtime.settings
        documents = persisted_documents(runtime, trusted_only=settings.trusted_documents)
        super().__init__(
            build_schema(
                cost_report=settings.cost_report,
                limits=settings.limits,
                introspection=settings.introspection,
                request_timeout=settings.request_timeout,
                max_batch=settings.max_batch,
                max_document_bytes=settings.max_document_bytes,
                documents=documents,
                roots=served(settings.model),
                traces=runtime.tracing,
            ),
            graphql_ide="graphiql" if settings.graphiql else None,
            allow_queries_via_get=True,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            # A socket that does not sign in soon is closed (4408), not kept uncounted.
            connection_init_wait_timeout=timedelta(seconds=CONNECTION_INIT_SECONDS),
        )
        self.runtime = runtime
        self.planner = _planner(self.schema, runtime, documents)
        self.admission = Admission(runtime, documents)
        self.playground = Playground()
        self.sockets = Sockets(settings.max_connections)
        self.max_subscriptions = settings.max_subscriptions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        response = await self._respond(Asked(scope=scope, receive=receive))
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

    async def _respond(self, request: Asked) -> Response:
        """The answer, in the media type the client prefers (`gateway/http/spec.py`)."""
        request.graphql_response = prefers_graphql_response(request.headers.get("accept", ""))
        response = await self._answer(request)
        if request.graphql_response and response.media_type == "application/json":
            response.headers["content-type"] = f"{GRAPHQL_RESPONSE}; charset=utf-8"
            # A batch's answers are each their own: none is the whole request's error.
            if request.request_error and not request.batch:
                response.status_code = 400
        return response

    async def _answer(self, request: Asked) -> Response:
        # POST runs every operation, GET queries only; a browser's GET for a page is GraphiQL.
        running = request.method == "POST" or (request.method == "GET" and not _wants_page(request))
        admission = self.admission
        answering = request.answering
        idempotency_key: str | MalformedKey | None = None
        try:
            idempotency_key = requested_key(request.headers) if running else None
        except BadUserInput as exc:
            # Queries ignore the header, whatever it holds; a mutation is refused (400) by
            # `Idempotency` once the operation's type is known.
            idempotency_key = MalformedKey(str(exc))
        answering.caller = request.client.host if request.client is not None else ""
        try:
            authorization = request.headers.getlist("authorization")
            caller = (await admission.sign_in(authorization))[0] if running else admission.no_token
        except (Unauthenticated, Unavailable) as exc:
            return self._refused(answering, exc)
        if caller.username is not None:
            answering.caller = caller.username
        who = answering.who = bucket(request, caller)
        limited = await admission.within_rate(who) if running else None
        if limited is not None:
            return self._rate_limited(answering, limited)
        answering.idempotency_key = idempotency_key
        context = request.context = admission.context(answering, caller)
        answering.cost = context.cost
        deadline = admission.deadline()
        try:
            async with deadline:
                run = partial(self.run, request, context=context)
                planner = self.planner
                response = await (
                    run() if planner is None else planner.answer(request, context, run)
                )
                if isinstance(idempotency_key, MalformedKey) and idempotency_key.refused:
                    return self._request_refused(idempotency_key.reason, 400, context)
                if context.operation.replayed is not None:
                    return self._replay(context)
            # Outside the deadline: a mutation done is worth its answer kept.
            return await kept(context, response, cost_report=self.runtime.settings.cost_report)
        except DynagateError as exc:
            # A document named by a hash that is malformed or unknown: nothing ran.
            request.request_error = True
            body = self._errors(answering, str(exc), exc.code, context.cost_report())
            return JSONResponse(body)
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
            if running:
                admission.charge(who, context.cost)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> OperationContext:
        """A socket's context (an HTTP request's is the admission's): its caller is who its
        `connection_init` signs in (`LiveHandler`), each operation's own context made from it."""
        no_token = self.admission.no_token
        socket = RequestScope("", who=bucket(request, no_token))
        context = self.admission.context(socket, no_token)
        socket.budget = None  # a subscription's events are charged one by one
        feed, buffer = self.runtime.feed, self.runtime.settings.subscription_buffer
        return replace(context, changes=feed, subscription_buffer=buffer)

    async def parse_http_body(
        self, request: AsyncHTTPRequestAdapter
    ) -> GraphQLRequestData | list[GraphQLRequestData]:
        """Strawberry's reading of the request, and in each request (of a batch, maybe) a
        document named by its hash put in its place, and in trusted mode only registered
        ones let through (`gateway/documents/persisted.py`)."""
        data = await super().parse_http_body(request)
        asked = request.asked if isinstance(request, _Adapter) else None
        context = asked.context if isinstance(asked, Asked) else None
        if context is None:
            return data
        requests = data if isinstance(data, list) else [data]
        raw: object = None
        if any(each.query is None for each in requests):  # named by hash: `documentId`?
            raw = (
                request.query_params
                if request.method == "GET"
                else self.parse_json(await request.get_body())
            )
        sent = raw if isinstance(raw, list) else [raw] * len(requests)
        max_bytes = self.runtime.settings.max_document_bytes
        documents = self.admission.documents
        found: list[GraphQLRequestData] = []
        for each, as_sent in zip(requests, sent, strict=True):
            try:
                found.append(await resolved(documents, each, as_sent, context, max_bytes))
            except DynagateError as exc:
                if not isinstance(data, list):
                    raise
                found.append(Refused(refusal=exc))  # answered alone; the others run
        return found if isinstance(data, list) else found[0]

    async def process_result(
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        if isinstance(request, Asked):  # the last answer made is the request's
            request.answering.codes = [_code(error.extensions) for error in result.errors or []]
        answer = await super().process_result(request, result)
        if is_request_error(result.data, result.errors) and isinstance(request, Asked):
            request.request_error = True
            if request.graphql_response:
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
        return json_body(data, self.runtime.settings.max_batch)

    async def execute_operation(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        request_data: GraphQLRequestData | list[GraphQLRequestData],
        context: OperationContext,
        root_value: None,
        sub_response: Response,
    ) -> ExecutionResult | list[ExecutionResult] | SubscriptionExecutionResult:
        """Strawberry's, but a batch (`gateway/http/batches.py`) bounded whole, each of its
        operations with a context of its own."""
        if not isinstance(request_data, list):
            return await super().execute_operation(
                request, request_adapter, request_data, context, root_value, sub_response
            )
        if (
            context.request.idempotency_key is not None
        ):  # well formed or not: mutations may be in it
            raise HTTPException(400, "an Idempotency-Key names one request: send no batch with it")
        if isinstance(request, Asked):
            request.batch = True

        async def execute(data: GraphQLRequestData, own: OperationContext) -> ExecutionResult:
            return await self.execute_single(
                request, request_adapter, sub_response, own, root_value, data
            )

        settings = self.runtime.settings
        return await execute_batch(
            execute, request_data, context, settings.limits, cost_report=settings.cost_report
        )

    async def follow(self) -> None:
        """The table's stream is read from now on (`Runtime.follow`)."""
        await self.runtime.follow()

    def gauge(self, name: str, delta: int) -> None:
        """Move the `sockets` or `subscriptions` gauge of /metrics."""
        metrics = self.runtime.metrics
        if metrics is not None:
            getattr(metrics, name).inc(delta)

    def _refused(self, answering: RequestScope, exc: Unauthenticated | Unavailable) -> Response:
        """A token that signs no one in is refused for the whole request (401); one whose
        provider's keys cannot be fetched cannot be checked now (503)."""
        body = self._errors(answering, str(exc), exc.code, Cost().as_dict())
        if isinstance(exc, Unauthenticated):
            challenge = 'Bearer error="invalid_token"'
            return JSONResponse(body, status_code=401, headers={"WWW-Authenticate": challenge})
        return JSONResponse(body, status_code=503, headers={"Retry-After": "5"})

    def _rate_limited(self, answering: RequestScope, limited: RateLimited) -> Response:
        cost: Mapping[str, Any] = {
            **Cost().as_dict(),
            "budget": self.admission.budget(answering.who, Cost()),
        }
        body = self._errors(answering, limited.message, Code.RATE_LIMITED, cost)
        return JSONResponse(body, status_code=429, headers={"Retry-After": str(limited.wait)})

    def _request_refused(self, message: str, status: int, context: OperationContext) -> Response:
        """A request that could not be read as GraphQL (BAD_USER_INPUT), with its cost."""
        body = self._errors(context.request, message, Code.BAD_USER_INPUT, context.cost_report())
        return JSONResponse(body, status_code=status)

    def _replay(self, context: OperationContext) -> Response:
        """The first answer to this Idempotency-Key, with what repeating it cost."""
        first = json.loads(context.operation.replayed or "{}")
        return JSONResponse(
            {**first, **self._extensions(context.cost_report())}, headers={REPLAYED: "true"}
        )

    def _out_of_time(self, context: OperationContext) -> Response:
        message = f"the request did not finish within {self.runtime.settings.request_timeout:g} s"
        body = self._errors(context.request, message, Code.UNAVAILABLE, context.cost_report())
        return JSONResponse({"data": None, **body})

    def _errors(
        self, answering: RequestScope, message: str, code: Code, cost: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The body of an answer the view makes itself, its code noted for the request log."""
        answering.codes = [code]
        return {**errors_body(message, code), **self._extensions(cost)}

    def _extensions(self, cost: Mapping[str, Any]) -> dict[str, Any]:
        """What `CostReport` adds to the responses GraphQL did not make."""
        return {"extensions": {"cost": cost}} if self.runtime.settings.cost_report else {}


def _planner(schema: Any, runtime: Runtime, documents: PersistedDocuments) -> Planner | None:
    """How queries are answered by plans (docs/performance.md#plans), unless turned off or
    traced (each phase's span is the executor's)."""
    settings = runtime.settings
    types = served(settings.model).types
    if settings.plans == "off" or runtime.tracing is not None or types is None:
        return None
    checked = settings.plans == "checked"
    plans = Plans(schema, types.model)
    return Planner(plans, schema, documents, checked=checked, cost_report=settings.cost_report)


def _wants_page(request: BaseRequestProtocol | Request) -> bool:
    """A browser's GET for a page (GraphiQL), not for an answer."""
    return request.method == "GET" and "text/html" in request.headers.get("accept", "")


def _code(extensions: dict[str, Any] | None) -> str:
    return str((extensions or {}).get("code", Code.INTERNAL_SERVER_ERROR))
