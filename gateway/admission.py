"""The one door of every operation, over HTTP and the WebSocket alike (docs/http.md,
docs/subscriptions.md): who is asking (the token), whether their rate allows one more
request, whether the document may run here (trusted documents), how long it may take, and
what it is charged."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from graphql import GraphQLError

from data.callers import ANONYMOUS, OPEN, Caller
from errors.vocabulary import Code
from gateway.demand.ratelimit import capacity_units
from gateway.documents.persisted import PersistedDocuments
from gateway.identity import TokenVerifier
from gateway.operation_context import OperationContext
from gateway.request_scope import RequestScope
from gateway.runtime import Runtime
from resolvers.context import Context, Reads
from store.client import Store
from store.cost import Cost


@dataclass(frozen=True)
class RateLimited:
    """The rate limit's refusal: `limit` capacity units a minute, room again in `wait` s."""

    limit: float
    wait: int

    @property
    def message(self) -> str:
        return (
            f"over the rate limit of {self.limit:g} capacity units a minute; retry in {self.wait} s"
        )

    def error(self) -> GraphQLError:
        return GraphQLError(self.message, extensions={"code": Code.RATE_LIMITED})


class Admission:
    """What lets an operation in and what it is charged, for the HTTP view and the
    WebSocket handler alike."""

    def __init__(self, runtime: Runtime, documents: PersistedDocuments) -> None:
        self.runtime = runtime
        self.verifier = TokenVerifier.from_settings(runtime.settings)
        self.limiter = runtime.limiter
        self.documents = documents
        self.request_timeout = runtime.settings.request_timeout

    @property
    def no_token(self) -> Caller:
        """Who a request without a token is: anyone at all in open mode."""
        return OPEN if self.verifier is None else ANONYMOUS

    async def sign_in(self, authorization: Sequence[str]) -> tuple[Caller, float | None]:
        """The caller `authorization` signs in, and when its token expires (None without
        one); UNAUTHENTICATED for a token that signs no one in, UNAVAILABLE when its
        provider's keys cannot be had in time."""
        if self.verifier is None:
            return OPEN, None
        return await self.verifier.session(authorization)

    async def within_rate(self, who: str) -> RateLimited | None:
        """None when `who` may make one more request now (let in until `charge`)."""
        limiter = self.limiter
        if limiter is None:
            return None
        wait = await limiter.check(who)
        return None if wait is None else RateLimited(limiter.limit, wait)

    def charge(self, who: str, cost: Cost) -> None:
        """What a request let in by `within_rate` consumed, drawn from `who`'s bucket."""
        if self.limiter is not None:
            self.limiter.draw(who, capacity_units(cost))

    def charger(self, who: str) -> Callable[[Cost], None] | None:
        """What charges a subscription's events to `who` as they are sent, if anything."""
        limiter = self.limiter
        if limiter is None:
            return None
        return lambda cost: limiter.spend(who, capacity_units(cost))

    def budget(self, who: str, cost: Cost) -> dict[str, float] | None:
        """`extensions.cost.budget` of `who` once `cost` is drawn; None without a limit."""
        return None if self.limiter is None else self.limiter.budget(who, cost)

    async def admit_document(self, context: Context, text: str) -> None:
        """Nothing where any document runs for the caller; FORBIDDEN for one not trusted
        here (`DYNAGATE_DOCUMENTS=trusted`)."""
        await self.documents.admit(context.store, text, context.caller)

    def deadline(self, *, subscription: bool = False) -> asyncio.Timeout:
        """The time an operation has: a subscription lives as long as its socket."""
        return asyncio.timeout(None if subscription else self.request_timeout)

    def context(self, request: RequestScope, caller: Caller) -> OperationContext:
        """A fresh context for an operation of `caller` answering `request`, whose rate
        bucket is `request.who`."""
        runtime = self.runtime
        store = Store(
            runtime.require_client(),
            runtime.settings.table,
            cache=runtime.cache,
            tracing=runtime.tracing,
            layout=runtime.layout,
        )
        context = OperationContext(Reads.on(store, runtime.cursors), caller, request=request)
        if self.limiter is not None:
            request.budget = partial(self.limiter.budget, request.who, context.cost)
        return context
