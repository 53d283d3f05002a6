"""Whole answers of queries, kept by the read cache (docs/cache.md#whole-answers).

A query's answer is a function of its document, its variables, its caller (the rules) and
what its reads returned. With the read cache on, the answer of a query that ran without
errors is kept under the first three, depending on everything its reads depended on
(`Store.depended`); asked again, it is answered without running, until a change touches
any of that. The ticket is taken before the first read, so an answer whose reads raced a
change is never kept, exactly as a read is not.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import orjson
from graphql import ExecutionResult
from strawberry.extensions import SchemaExtension
from strawberry.types.graphql import OperationType

from gateway.operation_context import OperationContext


class CachedAnswers(SchemaExtension):
    """Answers a query from the read cache, or keeps its answer there."""

    async def on_execute(self) -> AsyncIterator[None]:
        execution = self.execution_context
        context = execution.context
        if (
            not isinstance(context, OperationContext)
            or execution.operation_type is not OperationType.QUERY
            or execution.query is None
            or execution.result is not None  # refused before it runs
            or context.operation.bounding_only
        ):
            yield
            return
        store = context.store
        cache = await store.reading_cache()
        if cache is None:
            yield
            return
        key = _key(execution.query, execution.operation_name, execution.variables, context)
        kept = cache.lookup(key)
        if kept is not None:
            data, calls, units = kept
            store.cost.cached_requests += calls
            store.cost.saved_read_capacity_units += units
            execution.result = ExecutionResult(data=data, errors=None)
            yield
            return
        ticket = cache.begin()
        store.depended = set()
        try:
            yield
            result = execution.result
            cost = store.cost
            if ticket is not None and result is not None and not result.errors:
                calls = cost.requests + cost.cached_requests
                units = cost.read_capacity_units + cost.saved_read_capacity_units
                taken, ticket = ticket, None
                cache.keep(taken, key, (result.data, calls, units), store.depended)
        finally:
            store.depended = None
            if ticket is not None:
                cache.end(ticket)


def _key(query: str, operation: str | None, variables: Any, context: OperationContext) -> str:
    """The document, the operation, its variables and who asks (the rules are the
    caller's): an answer is only ever given again to the same question from the same
    caller."""
    caller = context.caller
    asked = (query, operation, variables, caller.username, caller.admin, caller.open)
    return "answer" + orjson.dumps(asked, option=orjson.OPT_SORT_KEYS, default=repr).decode()
