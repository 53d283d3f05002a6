"""Batches (docs/http.md#batches): with `DYNAGATE_MAX_BATCH` above 0, a POST whose body is
an array of requests (Apollo's BatchHttpLink, Relay) is answered with an array of their
answers, in order.

The batch is one request to demand control: every operation is bounded first, and when
their bounds together pass a limit, none of them runs (each answer says so). Each operation
then runs with a context of its own, so that its answer reports its own cost; the request's
cost, which the rate limit draws and the request log reports, is theirs summed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from graphql import GraphQLError
from strawberry.http import GraphQLRequestData
from strawberry.types import ExecutionResult

from errors.vocabulary import DynagateError
from gateway.demand.control import Limits, too_complex
from gateway.operation_context import OperationContext

Execute = Callable[[GraphQLRequestData, OperationContext], Awaitable[ExecutionResult]]


@dataclass
class Refused(GraphQLRequestData):
    """A request of a batch refused before it could run (the document it names is unknown,
    or not trusted here): answered with `refusal` alone, while the others run."""

    query: str | None = None
    variables: dict[str, Any] | None = None
    operation_name: str | None = None
    extensions: dict[str, Any] | None = None
    refusal: DynagateError | None = None

    def answer(self) -> ExecutionResult:
        error = self.refusal or DynagateError("refused")
        return ExecutionResult(
            data=None, errors=[GraphQLError(str(error), extensions=error.extensions)]
        )


_FIGURES = ("requests", "itemsScanned", "fields")


def batch_size_refusal(size: int, max_batch: int) -> str | None:
    """Why a body of `size` requests cannot be a batch here, if it cannot."""
    if max_batch == 0:
        return "batches are off here: send one request per POST (DYNAGATE_MAX_BATCH is 0)"
    if size == 0:
        return "the batch is empty: send at least one request"
    if size > max_batch:
        return f"the batch holds {size} requests, over the limit of {max_batch}"
    return None


async def execute_batch(
    execute: Execute,
    requests: Sequence[GraphQLRequestData],
    context: OperationContext,
    limits: Limits,
    *,
    cost_report: bool = True,
) -> list[ExecutionResult]:
    """The answers of `requests`, in order, bounded together under `limits`."""
    execute = _answering_refused(execute, cost_report)
    bounding = [context.for_operation(bounding_only=True) for _ in requests]
    await asyncio.gather(*map(execute, requests, bounding))
    # An operation that does not parse or validate has no bound: it will not run either.
    estimated = {
        name: sum((each.operation.estimated or {}).get(name, 0) for each in bounding)
        for name in _FIGURES
    }
    exceeded = limits.exceeded_by(estimated)
    if exceeded:
        advice = "send fewer or smaller operations in one batch"
        refusal = too_complex(f"the batch of {len(requests)}", estimated, exceeded, advice)
        context.operation.estimated = estimated
        extensions = {"cost": context.cost_report()} if cost_report else None
        return [
            ExecutionResult(data=None, errors=[refusal], extensions=extensions) for _ in requests
        ]
    running = [context.for_operation() for _ in requests]
    try:
        return list(await asyncio.gather(*map(execute, requests, running)))
    finally:
        for each in running:
            context.cost.add(each.cost)


def _answering_refused(execute: Execute, cost_report: bool) -> Execute:
    async def answering(request: GraphQLRequestData, context: OperationContext) -> ExecutionResult:
        if not isinstance(request, Refused):
            return await execute(request, context)
        answer = request.answer()
        if cost_report:
            answer.extensions = {"cost": context.cost_report()}
        return answer

    return answering
