"""The Strawberry schema: every area's types, the guard rails and the cost report."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from functools import cache, partial
from typing import TYPE_CHECKING, Any

import strawberry
from graphql import ASTValidationRule, GraphQLError
from graphql.validation import NoSchemaIntrospectionCustomRule
from strawberry.extensions import SchemaExtension
from strawberry.schema.config import StrawberryConfig
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext

from gateway.demand.control import BoundCache, DemandControl, Limits
from gateway.documents.limits import limits_rule
from gateway.documents.parsing import MAX_DOCUMENT_BYTES, DocumentParser, DocumentValidation
from gateway.documents.persisted import DocumentRegistration, PersistedDocuments
from gateway.schema.cached_answers import CachedAnswers
from gateway.schema.descriptions import describe
from gateway.schema.execution import PlainFieldsExecutionContext
from gateway.schema.extensions import CodedMaskErrors, CostReport, OperationChoice
from gateway.schema.idempotency import KEEP_SECONDS, Idempotency
from gateway.served_model import served
from gateway.settings import DEFAULT_MODEL
from resolvers.derived_roots import Roots
from resolvers.scalars import DATETIME_SCALAR
from resolvers.strawberry_internals import core_schema

if TYPE_CHECKING:
    from gateway.traces.spans import Traces

MAX_DEPTH = 15
MAX_ALIASES = 30
MAX_TOKENS = 5_000
# The depth and alias limits, built once: validation is cached on the rule classes. They
# count as Strawberry's limiters do, in one linear walk (`gateway/documents/limits.py`).
_LIMIT_RULES: list[type[ASTValidationRule]] = [limits_rule(MAX_DEPTH, MAX_ALIASES)]
_NO_INTROSPECTION_RULES = [*_LIMIT_RULES, NoSchemaIntrospectionCustomRule]


class Schema(strawberry.Schema):
    # What the schema's extensions are made with, for a plan to do as they do
    # (`gateway/plans/`): the limits and the bounds' cache, the validation rules, the
    # document's size limits.
    limits: Limits = Limits()
    bounds: BoundCache
    rules: tuple[type[ASTValidationRule], ...] = ()
    max_document_bytes: int = MAX_DOCUMENT_BYTES

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Client errors are the client's business; unexpected ones are logged when masked."""


def build_schema(
    *,
    cost_report: bool = True,
    limits: Limits | None = None,
    introspection: bool = True,
    request_timeout: float = 10.0,
    max_batch: int = 0,
    max_document_bytes: int = MAX_DOCUMENT_BYTES,
    documents: PersistedDocuments | None = None,
    roots: Roots | None = None,
    traces: Traces | None = None,
) -> Schema:
    """The schema of `roots` (the default model's when not given); with `traces`, a span
    for each phase of each operation (docs/tracing.md)."""
    # Factories, so each request gets fresh extension instances (the caches are shared).
    rules = validation_rules(introspection)
    limits, bounds = limits or Limits(), BoundCache()
    extensions: list[Callable[[], SchemaExtension] | type[SchemaExtension]] = [
        CodedMaskErrors,
        partial(DocumentParser, MAX_TOKENS, max_document_bytes),
        partial(DocumentValidation, rules),
        OperationChoice,  # after DocumentValidation, whose errors it adds to
        partial(DemandControl, limits=limits, cache=bounds),
        # After DemandControl: an operation it refuses reads no record.
        partial(Idempotency, answered_within=request_timeout + KEEP_SECONDS),
        # After DemandControl: an operation it refuses is not answered from memory either.
        CachedAnswers,
        # Right after execution, before the cost is reported: its write is in the cost.
        partial(DocumentRegistration, documents),
    ]
    if cost_report:
        extensions.append(CostReport)
    if traces is not None:
        extensions[:] = _traced(extensions, traces)
    roots = roots or served()
    query, mutation, subscription = _root_types(roots)
    schema = Schema(
        query=query,
        mutation=mutation,
        subscription=subscription,
        extensions=extensions,
        config=StrawberryConfig(
            scalar_map={datetime: DATETIME_SCALAR},
            # Arrays of requests (`gateway/http/batches.py`), when turned on.
            batching_config={"max_operations": max_batch} if max_batch else None,
        ),
        execution_context_class=PlainFieldsExecutionContext,
    )
    schema.limits, schema.bounds, schema.rules = limits, bounds, tuple(rules)
    schema.max_document_bytes = max_document_bytes
    if roots.types is not None:
        describe(core_schema(schema), roots.types.model)
    return schema


def _traced(
    extensions: list[Callable[[], SchemaExtension] | type[SchemaExtension]], traces: Traces
) -> list[Callable[[], SchemaExtension] | type[SchemaExtension]]:
    """`extensions` with the phases in spans: the kinds that parse, validate and bound,
    each with its hook traced."""
    # Imported only when tracing is on: without it no tracing code runs.
    from gateway.traces.phases import bound_then_execute, phase

    class TracedParser(DocumentParser):
        def on_parse(self) -> Iterator[None]:
            yield from phase(traces, "parse", super().on_parse())

    class TracedValidation(DocumentValidation):
        def on_validate(self) -> Iterator[None]:
            yield from phase(traces, "validate", super().on_validate())

    class TracedDemandControl(DemandControl):
        def on_execute(self) -> Iterator[None]:
            yield from bound_then_execute(traces, super().on_execute())

    kinds: dict[Any, type[SchemaExtension]] = {
        DocumentParser: TracedParser,
        DocumentValidation: TracedValidation,
        DemandControl: TracedDemandControl,
    }
    traced: list[Callable[[], SchemaExtension] | type[SchemaExtension]] = []
    for extension in extensions:
        if isinstance(extension, partial) and extension.func in kinds:
            extension = partial(kinds[extension.func], *extension.args, **extension.keywords)
        traced.append(extension)
    return traced


@cache
def _root_types(roots: Roots) -> tuple[type[Any], type[Any] | None, type[Any] | None]:
    """Query, Mutation and Subscription, each merged once per model."""
    return (
        merge_types("Query", roots.query),
        _merged("Mutation", roots.mutation),
        _merged("Subscription", roots.subscription),
    )


def _merged(name: str, parts: tuple[type[Any], ...]) -> type[Any] | None:
    return merge_types(name, parts) if parts else None


def validation_rules(introspection: bool) -> list[type[ASTValidationRule]]:
    """The rules every document is validated with beyond the specification's own."""
    return _LIMIT_RULES if introspection else _NO_INTROSPECTION_RULES


def schema_sdl(model: str = DEFAULT_MODEL) -> str:
    """The exported schema of the model module `model`, as written to `schema.graphql`."""
    return build_schema(roots=served(model)).as_str() + "\n"
