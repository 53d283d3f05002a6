"""Demand control: each operation is bounded before it runs, and refused over the limits.

The bound (`gateway/demand/bound.py`) depends on the document, the operation and the variables
that size its lists, so it is cached on exactly those, beside Strawberry's parser and
validation caches.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from graphql import DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema
from strawberry.extensions import SchemaExtension
from strawberry.types.graphql import OperationType

from errors.vocabulary import Code
from gateway.demand.bound import Bound, bound_operation
from gateway.operation_context import OperationContext
from resolvers.context import Context
from resolvers.strawberry_internals import core_schema


@dataclass(frozen=True)
class Limits:
    requests: int = 50
    items: int = 150_000
    fields: int = 20_000

    def exceeded(self, bound: Bound) -> dict[str, int]:
        """The limits `bound` is over, by the name `extensions.cost.estimated` uses."""
        return self.exceeded_by(bound.as_dict())

    def exceeded_by(self, estimated: Mapping[str, int]) -> dict[str, int]:
        """The limits an estimate (`extensions.cost.estimated`) is over, by name."""
        limits = {"requests": self.requests, "itemsScanned": self.items, "fields": self.fields}
        return {name: limit for name, limit in limits.items() if estimated[name] > limit}


class BoundCache:
    """The bounds of the most recently used documents and variables (least recent dropped)."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.bounds: OrderedDict[bytes, Bound] = OrderedDict()

    def key(
        self, query: str, operation: str | None, variables: Mapping[str, Any] | None
    ) -> bytes | None:
        """A digest of what decides the bound, so the cache holds no documents."""
        try:
            text = json.dumps([query, operation, variables or {}], sort_keys=True)
        except (TypeError, ValueError, RecursionError):
            return None  # not JSON (an uploaded file, say): bound it without the cache
        return hashlib.sha256(text.encode()).digest()

    def get(self, key: bytes) -> Bound | None:
        bound = self.bounds.get(key)
        if bound is not None:
            self.bounds.move_to_end(key)
        return bound

    def put(self, key: bytes, bound: Bound) -> None:
        self.bounds[key] = bound
        if len(self.bounds) > self.size:
            self.bounds.popitem(last=False)


class DemandControl(SchemaExtension):
    """Bounds the operation before execution; over a limit, nothing runs."""

    def __init__(self, *, limits: Limits, cache: BoundCache) -> None:
        self.limits = limits
        self.cache = cache

    def fits(self, bound: Bound) -> bool:
        return not self.limits.exceeded(bound)

    def on_execute(self) -> Iterator[None]:
        bound = self._bound()
        estimated = bound.as_dict()
        context = self.execution_context.context
        if isinstance(context, Context):
            context.reads.chosen.update(bound.chosen)
            # Calls made before the operation (reading a persisted document) are not its own.
            context.store.budget = bound.total_requests + context.cost.requests
            if self.execution_context.operation_type is OperationType.MUTATION:
                # A write decides on what DynamoDB holds, never on the read cache's memory.
                context.store.cache_ready = False
        if isinstance(context, OperationContext):
            context.operation.estimated = estimated
            if context.operation.bounding_only:  # a batch's operations are bounded together first
                self.execution_context.result = ExecutionResult(data=None, errors=None)
                yield
                return
        exceeded = self.limits.exceeded(bound)
        if exceeded:
            refusal = _too_complex(bound, estimated, exceeded)
            if self.execution_context.operation_type is OperationType.SUBSCRIPTION:
                # Strawberry starts a subscription whatever result is set: an error raised
                # here ends it before it starts, with this error.
                raise refusal
            self.execution_context.result = ExecutionResult(data=None, errors=[refusal])
        yield

    def _bound(self) -> Bound:
        context = self.execution_context
        document = context.graphql_document
        if document is None or context.query is None:
            return Bound()
        return bound_of(
            core_schema(context.schema),
            document,
            (context.query, context.operation_name, context.variables),
            self.limits,
            self.cache,
        )


def _too_complex(bound: Bound, estimated: dict[str, int], exceeded: dict[str, int]) -> GraphQLError:
    # A field's own note says what to change; else the lists are what grows a bound.
    advice = "; ".join(bound.notes) or "ask for fewer or smaller lists"
    return too_complex("the operation", estimated, exceeded, advice)


def too_complex(
    what: str, estimated: Mapping[str, int], exceeded: Mapping[str, int], advice: str
) -> GraphQLError:
    """QUERY_TOO_COMPLEX for `what`, whose bound `estimated` passes the limits `exceeded`."""
    over = ", ".join(
        f"{estimated[name]:,} {name} (limit {limit:,})" for name, limit in exceeded.items()
    )
    return GraphQLError(
        f"{what} could need {over}; {advice}",
        extensions={
            "code": Code.QUERY_TOO_COMPLEX,
            "estimated": dict(estimated),
            "limit": dict(exceeded),
        },
    )


def bound_of(
    schema: GraphQLSchema,
    document: DocumentNode,
    asked: tuple[str, str | None, Mapping[str, Any] | None],
    limits: Limits,
    cache: BoundCache,
) -> Bound:
    """The bound of the operation `asked` (its document's text, operation name and
    variables) names in `document`, from `cache` when it was bounded before: what
    `DemandControl` and a plan (`gateway/plans/`) bound an operation by."""
    query, operation_name, variables = asked
    key = cache.key(query, operation_name, variables)
    bound = None if key is None else cache.get(key)
    if bound is None:
        bound = bound_operation(
            schema, document, operation_name, variables, lambda b: not limits.exceeded(b)
        )
        if key is not None:
            cache.put(key, bound)
    return bound
