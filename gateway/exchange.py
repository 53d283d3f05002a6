"""What one HTTP request is: its id, and for the request log and the metrics, what its
GraphQL operation was and how it ended.

The request-id middleware opens an `Exchange` per request in a context variable, so the
code answering the request can note what it did, and every log record can name the request,
without threading either through the layers below.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any

from graphql import GraphQLError

from store.cost import Cost


@dataclass
class Exchange:
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

    @property
    def outcome(self) -> str:
        """`ok`, or the first error's code."""
        return self.codes[0] if self.codes else "ok"

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


def graphql_request(scope: Mapping[str, Any]) -> bool:
    """A GraphQL request over POST, or over GET other than a browser's for the playground."""
    if scope["path"] != "/graphql":
        return False
    if scope["method"] == "POST":
        return True
    accept = dict(scope.get("headers", [])).get(b"accept", b"")
    return scope["method"] == "GET" and b"text/html" not in accept


_current: ContextVar[Exchange | None] = ContextVar("dynagate_exchange", default=None)


def current() -> Exchange | None:
    return _current.get()


def request_id() -> str | None:
    """The id of the request being answered, if any."""
    exchange = _current.get()
    return None if exchange is None else exchange.request_id


def note_codes(codes: list[str]) -> None:
    """Record the error codes of the response being made (the last answer made wins)."""
    exchange = _current.get()
    if exchange is not None:
        exchange.codes = codes


def opened(exchange: Exchange) -> Token[Exchange | None]:
    """Make `exchange` the current one; pass what this returns to `closed`."""
    return _current.set(exchange)


def closed(token: Token[Exchange | None]) -> None:
    _current.reset(token)


def note_caller(caller: str) -> None:
    """Record who asks (the subject, else the client's address) for the request log."""
    exchange = _current.get()
    if exchange is not None:
        exchange.caller = caller


def note_cost(cost: Cost) -> None:
    """Record the cost report of the request being answered."""
    exchange = _current.get()
    if exchange is not None:
        exchange.cost = cost


def is_request_error(data: object, errors: list[GraphQLError] | None) -> bool:
    """An answer that ran nothing: no data, and every error raised before execution (an
    error of execution has the path of the field that raised it)."""
    return data is None and bool(errors) and all(e.path is None for e in errors or [])
