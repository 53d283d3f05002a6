"""Safe retries over HTTP (docs/http.md#safe-retries): a mutation sent with an `Idempotency-Key`
header is done once per caller and key within 24 hours.

Before the mutation runs, the key's record is read (consistently): a record of another
request is CONFLICT, one with an answer gives that answer (the app sends it,
`replayed`) and nothing runs; with none, the record goes with the mutation's first write,
in the same transaction (`data/idempotency.py`, `store.witness`). Once answered, the answer
is kept on the record.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator

from graphql import GraphQLError
from starlette.datastructures import Headers
from starlette.responses import JSONResponse, Response
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType

from data.idempotency import MalformedKey, Record, find_record, keep_answer, new_intent
from errors.vocabulary import BadUserInput, Code, DynagateError
from gateway.operation_context import OperationContext
from keys.idempotency import HEADER, checked_key, fingerprint

logger = logging.getLogger("dynagate")
REPLAYED = "Idempotent-Replayed"
# The most seconds keeping an answer may take, past the request's own timeout.
KEEP_SECONDS = 5.0


def requested_key(headers: Headers) -> str | None:
    """The request's Idempotency-Key, if it sends one; BAD_USER_INPUT when malformed."""
    sent = headers.getlist(HEADER)
    if not sent:
        return None
    if len(sent) > 1:
        raise BadUserInput("send one key", field=HEADER)
    return checked_key(sent[0])


class Idempotency(SchemaExtension):
    """Reads the record of a mutation's Idempotency-Key before it runs, once demand control
    let it in (a refused operation makes no call), one call past its bound.
    `answered_within`: the seconds after which a request still without its answer kept
    never will have it (the request timeout, and the time to keep the answer)."""

    def __init__(self, *, answered_within: float) -> None:
        super().__init__()
        self.answered_within = answered_within

    async def on_execute(self) -> AsyncIterator[None]:
        execution = self.execution_context
        context = execution.context
        if (
            not isinstance(context, OperationContext)
            or context.request.idempotency_key is None
            or execution.operation_type is not OperationType.MUTATION
            or execution.query is None
            or execution.result is not None  # refused before it runs
        ):
            yield
            return
        key, who = context.request.idempotency_key, context.request.who
        if isinstance(key, MalformedKey):
            key.refused = True
            error = _error(key.reason, Code.BAD_USER_INPUT)
            execution.result = ExecutionResult(data=None, errors=[error])
            yield
            return
        if context.store.budget is not None:
            context.store.budget += 1  # the record's read
        asked = fingerprint(execution.query, execution.operation_name, execution.variables)
        try:
            record = await find_record(context.store, who, key)
        except DynagateError as exc:
            execution.result = ExecutionResult(data=None, errors=[_error(str(exc), exc.code)])
            yield
            return
        if record is None:
            context.store.intent = new_intent(
                context.store.table, who, key, asked, context.store.layout
            )
        elif record.fingerprint != asked:
            message = "this Idempotency-Key was sent with another request; use a new key"
            execution.result = ExecutionResult(data=None, errors=[_error(message)])
        elif record.answer is None:
            execution.result = ExecutionResult(data=None, errors=[_error(self._unanswered(record))])
        else:
            context.operation.replayed = record.answer
            execution.result = ExecutionResult(data=None, errors=None)
        yield

    def _unanswered(self, record: Record) -> str:
        if time.time() - record.written < self.answered_within:
            return "the request with this Idempotency-Key is being answered; retry shortly"
        return (
            "the request with this Idempotency-Key was done, but its answer could not be "
            "kept: read what it changed"
        )


async def kept(context: OperationContext, response: Response, *, cost_report: bool) -> Response:
    """`response`, its answer kept on the record its mutation wrote (when one was): a write
    of its own, past the operation's bound, then in the response's cost. Not keeping it is
    logged, never the client's: a retry then hears that the answer was not kept."""
    intent = context.store.intent
    if intent is None or not intent.landed:
        return response
    answer = json.loads(bytes(response.body))
    answer.pop("extensions", None)
    store = context.store.sibling(cost=context.store.cost)
    try:
        async with asyncio.timeout(KEEP_SECONDS):
            done = await keep_answer(store, intent, json.dumps(answer, separators=(",", ":")))
    except (DynagateError, TimeoutError) as exc:
        done = False
        logger.warning("the answer of an Idempotency-Key was not kept: %s", exc)
    if not done:
        logger.warning("the answer of an Idempotency-Key could not be kept")
    if not cost_report:
        return response
    body = {**answer, "extensions": {"cost": context.cost_report()}}
    return JSONResponse(body, status_code=response.status_code)


def _error(message: str, code: Code = Code.CONFLICT) -> GraphQLError:
    return GraphQLError(message, extensions={"code": code})
