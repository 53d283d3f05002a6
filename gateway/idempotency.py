"""Safe retries over HTTP (API.md section 10): a mutation sent with an `Idempotency-Key`
header is done once per caller and key within 24 hours.

Before the mutation runs, the key's record is read (consistently): a record of another
request is CONFLICT, one with an answer gives that answer (the app sends it,
`replayed`) and nothing runs; with none, the record goes with the mutation's first write,
in the same transaction (`data/idempotency.py`, `store.witness`). Once answered, the answer
is kept on the record.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator

from graphql import GraphQLError
from starlette.datastructures import Headers
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType

from data.idempotency import find_record, keep_answer, new_intent
from keys.errors import BadUserInput, Code, DynagateError
from keys.idempotency import HEADER, checked_key, fingerprint
from resolvers.context import Context
from store.client import Store

logger = logging.getLogger("dynagate")
REPLAYED = "Idempotent-Replayed"


def requested_key(headers: Headers) -> str | None:
    """The request's Idempotency-Key, if it sends one; BAD_USER_INPUT when malformed."""
    sent = headers.getlist(HEADER)
    if not sent:
        return None
    if len(sent) > 1:
        raise BadUserInput("send one key", field=HEADER)
    return checked_key(sent[0])


class Idempotency(SchemaExtension):
    """Reads the record of a mutation's Idempotency-Key before it runs: before demand
    control, so that the read is one of the calls made before the operation."""

    async def on_execute(self) -> AsyncIterator[None]:
        execution = self.execution_context
        context = execution.context
        if (
            not isinstance(context, Context)
            or context.idempotency_key is None
            or execution.operation_type is not OperationType.MUTATION
            or execution.query is None
        ):
            yield
            return
        key, who = context.idempotency_key, context.who
        asked = fingerprint(execution.query, execution.operation_name, execution.variables)
        try:
            record = await find_record(context.store, who, key)
        except DynagateError as exc:
            execution.result = ExecutionResult(data=None, errors=[_error(str(exc), exc.code)])
            yield
            return
        if record is None:
            context.store.intent = new_intent(context.store.table, who, key, asked)
        elif record.fingerprint != asked:
            message = "this Idempotency-Key was sent with another request; use a new key"
            execution.result = ExecutionResult(data=None, errors=[_error(message)])
        elif record.answer is None:
            message = "the request with this Idempotency-Key is being answered; retry shortly"
            execution.result = ExecutionResult(data=None, errors=[_error(message)])
        else:
            context.replayed = record.answer
            execution.result = ExecutionResult(data=None, errors=None)
        yield


async def keep(context: Context, body: bytes | memoryview) -> None:
    """The answer, kept on the record its mutation wrote: a write of its own, after the
    operation and outside its bound, in the request's cost. A failure only means a retry
    hears CONFLICT instead of the answer: it is logged, never the client's."""
    intent = context.store.intent
    if intent is None or not intent.landed:
        return
    answer = json.loads(bytes(body))
    answer.pop("extensions", None)
    store = Store(context.store.client, context.store.table, cost=context.store.cost)
    try:
        kept = await keep_answer(store, intent, json.dumps(answer, separators=(",", ":")))
    except DynagateError as exc:
        kept = False
        logger.warning("the answer of an Idempotency-Key was not kept: %s", exc)
    if not kept:
        logger.warning("the answer of an Idempotency-Key could not be kept")


def _error(message: str, code: Code = Code.CONFLICT) -> GraphQLError:
    return GraphQLError(message, extensions={"code": code})
