"""X-Request-ID on every response, and one log line (and the metrics) per GraphQL request."""

from __future__ import annotations

import json
import logging
import re
import uuid
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from errors.vocabulary import Code
from gateway.metrics import Metrics
from gateway.request_scope import (
    HttpMiddleware,
    RequestScope,
    closed,
    graphql_request,
    opened,
)

logger = logging.getLogger("dynagate.requests")
errors = logging.getLogger("dynagate.errors")

HEADER = b"x-request-id"
# What a client's id may be: short, and nothing that could forge a log line or a header.
_VALID_ID = re.compile(rb"[A-Za-z0-9._:-]{1,128}")
_UNHANDLED_ERROR = {
    "message": "Internal server error.",
    "extensions": {"code": Code.INTERNAL_SERVER_ERROR},
}
_UNHANDLED = json.dumps({"errors": [_UNHANDLED_ERROR]}, separators=(",", ":")).encode()


def new_request_id(headers: list[tuple[bytes, bytes]]) -> str:
    """The client's X-Request-ID when it is a valid one, else a new one."""
    given = next((value for name, value in headers if name.lower() == HEADER), None)
    if given is not None and _VALID_ID.fullmatch(given):
        return given.decode("ascii")
    return uuid.uuid4().hex


@dataclass
class RequestTracing(HttpMiddleware):
    """Opens each HTTP request's `RequestScope`, names the response with its id, and when a
    GraphQL request ends, logs it and counts it.

    Outermost of the application's own middleware, so that the answers the others make
    themselves (413 for a body too large) carry the id too.
    """

    app: ASGIApp
    metrics: Metrics | None = None

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = RequestScope(new_request_id(scope["headers"]))
        header = (HEADER, request.request_id.encode("ascii"))
        status: int | None = None

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                kept = [h for h in message.get("headers", []) if h[0].lower() != HEADER]
                message = {**message, "headers": [*kept, header]}
            await send(message)

        token = opened(request, scope)
        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            # Starlette's own 500 would be made outside this middleware, without the id.
            errors.exception("unhandled error (request %s)", request.request_id)
            if status is not None:
                raise
            request.codes = [Code.INTERNAL_SERVER_ERROR]
            await _internal_error(send_with_id)
        finally:
            if graphql_request(scope):
                self._ended(request, 500 if status is None else status)
            closed(token)

    def _ended(self, request: RequestScope, status: int) -> None:
        seconds = request.elapsed()
        if self.metrics is not None:
            self.metrics.observe(request, seconds)
        if not logger.isEnabledFor(logging.INFO):
            return  # the line, and the fields only the JSON format reads, would be dropped
        cost = request.cost
        fields = {
            "requestId": request.request_id,
            "caller": request.caller,
            "operationName": request.operation_name,
            "operationType": request.operation_type,
            "status": status,
            "durationMs": round(seconds * 1000, 1),
            "errorCodes": request.codes,
            "cost": cost.as_dict(cached=cost.cached_requests > 0),
        }
        # With tracing on (docs/tracing.md), the request's trace.
        trace = ""
        if request.trace_id:
            fields["traceId"] = request.trace_id
            trace = f" trace_id={request.trace_id}"
        logger.info(
            "graphql request=%s caller=%s operation=%s type=%s status=%d duration_ms=%.1f"
            " codes=%s requests=%d rcu=%g wcu=%g items_scanned=%d%s",
            request.request_id,
            request.caller or "-",
            request.operation_name or "-",
            request.operation_type,
            status,
            seconds * 1000,
            ",".join(request.codes) or "-",
            cost.requests,
            round(cost.read_capacity_units, 4),
            round(cost.write_capacity_units, 4),
            cost.items_scanned,
            trace,
            extra={"fields": fields},
        )


async def _internal_error(send: Send) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(_UNHANDLED))]
    await send({"type": "http.response.start", "status": 500, "headers": headers})
    await send({"type": "http.response.body", "body": _UNHANDLED})
