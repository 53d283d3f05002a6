"""The span of each GraphQL request over HTTP: it continues the client's trace (W3C
`traceparent`), and once answered carries the operation, its error codes and its cost."""

from __future__ import annotations

from dataclasses import dataclass
from time import time_ns
from typing import Any

from opentelemetry.propagate import extract
from opentelemetry.trace import SpanKind, Status, StatusCode
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from errors.vocabulary import Code
from gateway.request_scope import HttpMiddleware, RequestScope, graphql_request, scope_of
from gateway.traces.spans import Traces
from gateway.traces.spans import current as answering

# The headers a trace continues from (`OTEL_PROPAGATORS`: W3C trace context and baggage).
_PROPAGATED = {b"traceparent", b"tracestate", b"baggage"}
# Errors that are the service's, not the client's: the span is in error.
_SERVICE_ERRORS = {Code.INTERNAL_SERVER_ERROR, Code.UNAVAILABLE}


@dataclass
class RequestSpans(HttpMiddleware):
    """A span per GraphQL request, current while it is answered (its phases and calls are
    its children); inside `RequestTracing`, whose log line and metrics name its trace."""

    app: ASGIApp
    traces: Traces

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = scope_of(scope)
        if request is None or not graphql_request(scope):
            await self.app(scope, receive, send)
            return
        carrier = {
            name.decode("latin-1"): value.decode("latin-1")
            for name, value in scope["headers"]
            if name in _PROPAGATED
        }
        name = f"{scope['method']} /graphql"
        context, parent = self.traces.root(
            name, SpanKind.SERVER, extract(carrier) if carrier else None
        )
        request.trace_id = f"{context.trace_id:032x}"
        request.traced = context.trace_flags.sampled
        if not request.traced:
            await self.app(scope, receive, send)
            return
        status, start, failure = 500, time_ns(), None

        async def sent(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            with answering(context):
                await self.app(scope, receive, sent)
        except Exception as exc:
            failure = type(exc).__name__
            raise
        finally:
            name, attributes, error = _answered(scope, request, status, failure)
            self.traces.ended(
                name or f"{scope['method']} /graphql",
                context,
                parent,
                start,
                kind=SpanKind.SERVER,
                attributes=attributes,
                status=Status(StatusCode.ERROR, error) if error else Status(StatusCode.UNSET),
            )


def _answered(
    scope: Scope, request: RequestScope, status: int, failure: str | None
) -> tuple[str, dict[str, Any], str | None]:
    """The span's name, attributes and error (None: not in error) once answered."""
    cost = request.cost
    attributes: dict[str, Any] = {
        "http.request.method": scope["method"],
        "url.path": scope["path"],
        "http.response.status_code": status,
        "dynagate.request_id": request.request_id,
        "dynagate.error_codes": list(request.codes),
        "dynagate.cost.requests": cost.requests,
        "dynagate.cost.read_capacity_units": round(cost.read_capacity_units, 4),
        "dynagate.cost.write_capacity_units": round(cost.write_capacity_units, 4),
        "dynagate.cost.items_scanned": cost.items_scanned,
        "dynagate.cost.items_returned": cost.items_returned,
        "dynagate.cost.cached_requests": cost.cached_requests,
    }
    kind, operation = request.operation_type, request.operation_name
    name = ""
    if kind != "none":
        name = f"{kind} {operation}" if operation else kind
        attributes["graphql.operation.type"] = kind
    if operation:
        attributes["graphql.operation.name"] = operation
    if request.caller:
        attributes["dynagate.caller"] = request.caller
    if failure is not None:
        attributes["error.type"] = failure
    failed = status >= 500 or any(code in _SERVICE_ERRORS for code in request.codes)
    return name, attributes, (failure or request.outcome) if failed else None
