"""The span of each GraphQL request over HTTP: it continues the client's trace (W3C
`traceparent`), and once answered carries the operation, its error codes and its cost."""

from __future__ import annotations

from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.propagate import extract
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.exchange import Exchange, current, graphql_request
from keys.errors import Code

# The headers a trace continues from (`OTEL_PROPAGATORS`: W3C trace context and baggage).
_PROPAGATED = {b"traceparent", b"tracestate", b"baggage"}
# Errors that are the service's, not the client's: the span is in error.
_SERVICE_ERRORS = {Code.INTERNAL_SERVER_ERROR, Code.UNAVAILABLE}


class RequestSpans:
    """A span per GraphQL request, current while it is answered (its phases and calls are
    its children); inside `RequestTracing`, whose log line and metrics name its trace."""

    def __init__(self, app: ASGIApp, tracer: Tracer) -> None:
        self.app = app
        self.tracer = tracer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        exchange = current()
        if scope["type"] != "http" or exchange is None or not graphql_request(scope):
            await self.app(scope, receive, send)
            return
        carrier = {
            name.decode("latin-1"): value.decode("latin-1")
            for name, value in scope["headers"]
            if name in _PROPAGATED
        }
        span = self.tracer.start_span(
            f"{scope['method']} /graphql",
            context=extract(carrier) if carrier else None,
            kind=SpanKind.SERVER,
            attributes={
                "http.request.method": scope["method"],
                "url.path": scope["path"],
                "dynagate.request_id": exchange.request_id,
            },
        )
        span_context = span.get_span_context()
        exchange.trace_id = format(span_context.trace_id, "032x")
        exchange.traced = span.is_recording()
        if not exchange.traced:
            await self.app(scope, receive, send)
            return
        status = 500

        async def sent(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        token = otel_context.attach(trace.set_span_in_context(span))
        try:
            await self.app(scope, receive, sent)
        except Exception as exc:
            span.record_exception(exc)
            raise
        finally:
            otel_context.detach(token)
            _answered(span, exchange, status)
            span.end()


def _answered(span: Any, exchange: Exchange, status: int) -> None:
    kind, name = exchange.operation_type, exchange.operation_name
    if kind != "none":
        span.update_name(f"{kind} {name}" if name else kind)
        span.set_attribute("graphql.operation.type", kind)
    if name:
        span.set_attribute("graphql.operation.name", name)
    cost = exchange.cost
    span.set_attributes(
        {
            "http.response.status_code": status,
            "dynagate.error_codes": list(exchange.codes),
            "dynagate.cost.requests": cost.requests,
            "dynagate.cost.read_capacity_units": round(cost.read_capacity_units, 4),
            "dynagate.cost.write_capacity_units": round(cost.write_capacity_units, 4),
            "dynagate.cost.items_scanned": cost.items_scanned,
            "dynagate.cost.items_returned": cost.items_returned,
            "dynagate.cost.cached_requests": cost.cached_requests,
        }
    )
    if exchange.caller:
        span.set_attribute("dynagate.caller", exchange.caller)
    failed = status >= 500 or any(code in _SERVICE_ERRORS for code in exchange.codes)
    if failed:
        span.set_status(Status(StatusCode.ERROR, exchange.outcome))
