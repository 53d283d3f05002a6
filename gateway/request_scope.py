"""One request as the gateway answers it, owned by the gateway: its id, who asked, what
its GraphQL operation was and how it ended (for the request log, the metrics and the
trace), and what the gateway decides of it along the way (its rate bucket, its
Idempotency-Key, its documents).

The request-tracing middleware opens a `RequestScope` per HTTP request in the ASGI scope's
state (`scope_of`), and the socket handler one per operation; the view, the admission and
the schema's extensions reach it through the context each operation runs with
(`gateway/operation_context.py`).
Only the request's id is also kept in a context variable, written here alone, so that every
log record can name the request (`gateway/logs.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, MutableMapping
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any

from graphql import GraphQLError
from starlette.types import ASGIApp, Receive, Scope, Send

from data.idempotency import MalformedKey
from store.cost import Cost

_STATE_KEY = "dynagate.request"


@dataclass
class RequestScope:
    request_id: str
    started: float = field(default_factory=time.perf_counter)
    operation_name: str | None = None
    # "query", "mutation", or "none" while no operation was read from the document.
    operation_type: str = "none"
    # `extensions.code` of each error of the response, in order.
    codes: list[str] = field(default_factory=list)
    # The request's own cost once it has a context; a request refused at the door has none.
    cost: Cost = field(default_factory=Cost)
    # Who asked: the signed-in subject, else the client's address ("" when unknown).
    caller: str = ""
    # With tracing on (docs/tracing.md): the request's trace id, and whether it is recorded.
    trace_id: str = ""
    traced: bool = False
    # The caller's rate bucket, and its budget once this request's cost is drawn, as
    # `extensions.cost.budget` reports it (None without a rate limit).
    who: str = ""
    budget: Callable[[], dict[str, float]] | None = None
    # The request's Idempotency-Key, well formed or not (docs/http.md#safe-retries).
    idempotency_key: str | MalformedKey | None = None
    # Documents the request sent with their hashes, registered once they ran (shared by
    # the operations of a batch).
    sent_documents: set[str] = field(default_factory=set)

    @property
    def outcome(self) -> str:
        """`ok`, or the first error's code."""
        return self.codes[0] if self.codes else "ok"

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


class HttpMiddleware:
    """An ASGI middleware of HTTP requests (`http`): every other connection, a socket's or
    the lifespan's, passes through untouched. Its subclasses are dataclasses whose first
    field is `app`, as Starlette's `add_middleware` makes them."""

    app: ASGIApp

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


def graphql_request(scope: Mapping[str, Any]) -> bool:
    """A GraphQL request over POST, or over GET other than a browser's for the playground."""
    if scope["path"] != "/graphql":
        return False
    if scope["method"] == "POST":
        return True
    accept = dict(scope.get("headers", [])).get(b"accept", b"")
    return scope["method"] == "GET" and b"text/html" not in accept


def scope_of(scope: Mapping[str, Any]) -> RequestScope | None:
    """The request an ASGI scope carries, once `opened` in it."""
    found = scope.get("state", {}).get(_STATE_KEY)
    return found if isinstance(found, RequestScope) else None


def held_by(scope: MutableMapping[str, Any]) -> RequestScope:
    """The request an ASGI scope carries; where none was opened in it (an application
    without `RequestTracing`), one of its own, without an id."""
    found = scope_of(scope)
    if found is None:
        found = RequestScope("")
        _hold(scope, found)
    return found


_request_id: ContextVar[str | None] = ContextVar("dynagate_request_id", default=None)


def request_id() -> str | None:
    """The id of the request being answered, if any."""
    return _request_id.get()


def opened(
    request: RequestScope, scope: MutableMapping[str, Any] | None = None
) -> Token[str | None]:
    """Make `request` the one being answered (in the ASGI `scope`'s state, where there is
    one); pass what this returns to `closed`."""
    if scope is not None:
        _hold(scope, request)
    return _request_id.set(request.request_id)


def _hold(scope: MutableMapping[str, Any], request: RequestScope) -> None:
    scope.setdefault("state", {})[_STATE_KEY] = request


def closed(token: Token[str | None]) -> None:
    _request_id.reset(token)


def is_request_error(data: object, errors: list[GraphQLError] | None) -> bool:
    """An answer that ran nothing: no data, and every error raised before execution (an
    error of execution has the path of the field that raised it)."""
    return data is None and bool(errors) and all(e.path is None for e in errors or [])
