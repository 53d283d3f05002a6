"""The calls of the table's client, counted: each against the request's bound and in its
cost report, with botocore's errors mapped to the product's own (`store.errors`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from errors.vocabulary import Unavailable
from keys.table import CLASSIC, Layout
from store.cache.memory import Dependency
from store.cache.reads import CachedReads
from store.cost import Cost
from store.errors import UNREACHABLE, BoundExceeded, mapped
from store.tape import Tape, answer
from store.transport.observation import Method as Method
from store.transport.observation import Tracing
from store.witness import Intent

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient as DynamoDBClient
else:
    DynamoDBClient = Any

logger = logging.getLogger("dynagate.store")


@dataclass
class Calls:
    """The table's client, with the cost report and bound of one GraphQL request."""

    client: DynamoDBClient
    table: str
    cost: Cost = field(default_factory=Cost)
    # The most calls this request may make: the bound computed before it ran. Reaching it
    # (retries of unprocessed keys under throttling, say) is UNAVAILABLE, never more calls.
    budget: int | None = None
    # A record written in the same transaction as the request's first write (`Intent`).
    intent: Intent | None = None
    # The process's read cache, when it has one (`DYNAGATE_CACHE=on`), and whether it may
    # answer this request (asked once, at its first read).
    cache: CachedReads | None = None
    cache_ready: bool | None = None
    # What the reads of this request depended on, when a whole answer is to be kept
    # (`gateway/schema/cached_answers.py`); None: not collected.
    depended: set[Dependency] | None = None
    # Tracing, when it is on (`OTEL_*` settings, docs/tracing.md): a span per call.
    tracing: Tracing | None = None
    # The table's layout (the served model's): its key attributes and indexes.
    layout: Layout = CLASSIC
    # A plan checked against the executor (`DYNAGATE_PLANS=checked`): the calls recorded,
    # then played back.
    tape: Tape | None = None

    async def reading_cache(self) -> CachedReads | None:
        """The cache this request's reads may use, if any."""
        cache = self.cache
        if cache is None:
            return None
        if self.cache_ready is None:
            self.cache_ready = await cache.ready()
        return cache if self.cache_ready else None

    async def write(self, method: Method, request: dict[str, Any]) -> dict[str, Any]:
        response = await self._call(method, request)
        self.cost.record(operation_of(method), response)
        return response

    async def _call(
        self, method: Method, request: dict[str, Any], *, budgeted: bool = True
    ) -> dict[str, Any]:
        if budgeted and self.budget is not None and self.cost.requests >= self.budget:
            self.cost.past_bound += 1
            logger.error(
                "a request was about to pass its bound of %d DynamoDB calls: a cost model is"
                " too low",
                self.budget,
            )
            raise BoundExceeded(f"past the bound of {self.budget} DynamoDB calls")
        operation = operation_of(method)
        tape = self.tape
        if tape is not None and tape.playing:
            played = tape.play(operation, request)
            if played is not None:
                if played.failure is not None and played.response is not None:
                    self.cost.record(operation, played.response)  # as when it failed
                return answer(played)
        if self.tracing is not None:
            method = self.tracing.traced(method, request)
        try:
            response: dict[str, Any] = await method(**request)
        except ClientError as exc:
            # A failed conditional write still used capacity and was a request.
            self.cost.record(operation, exc.response)
            error = mapped(exc)
            if tape is not None:
                tape.failed(operation, request, error or exc, dict(exc.response))
            if error is None:
                raise
            raise error from exc
        except UNREACHABLE as exc:
            logger.warning("DynamoDB unreachable: %s", exc)
            unreachable = Unavailable("the database is unreachable; try again shortly")
            if tape is not None:
                tape.failed(operation, request, unreachable, None)
            raise unreachable from exc
        if tape is not None:
            tape.record(operation, request, response)
        return response


def operation_of(method: Method) -> str:
    """The DynamoDB operation a client method calls: `batch_get_item` is BatchGetItem."""
    return "".join(word.title() for word in getattr(method, "__name__", "call").split("_"))
