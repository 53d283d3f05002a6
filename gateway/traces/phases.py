"""Spans of a GraphQL request's phases: parse, validate, bound and execute.

Two extensions, around `DemandControl` (which bounds the operation on entering execution):
`PhaseSpans` before it opens the bound's span, `ExecutionSpan` after it closes that one and
opens execution's, current while the operation runs so that its calls are its children.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextvars import ContextVar

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, Tracer
from strawberry.extensions import SchemaExtension

# The bound's span, from `PhaseSpans` entering execution to `ExecutionSpan` entering it.
_bounding: ContextVar[Span | None] = ContextVar("dynagate_bounding", default=None)


class PhaseSpans(SchemaExtension):
    """Parse, validate, and the start of the bound; first of the schema's extensions."""

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer

    def on_parse(self) -> Iterator[None]:
        yield from _phase(self.tracer, "parse")

    def on_validate(self) -> Iterator[None]:
        yield from _phase(self.tracer, "validate")

    def on_execute(self) -> Iterator[None]:
        if trace.get_current_span().is_recording():
            token = _bounding.set(self.tracer.start_span("bound"))
            try:
                yield
            finally:
                _end(_bounding.get())
                _bounding.reset(token)
        else:
            yield


class ExecutionSpan(SchemaExtension):
    """The end of the bound and the span of execution; right after `DemandControl`."""

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer

    def on_execute(self) -> Iterator[None]:
        bounding = _bounding.get()
        if bounding is None:
            yield
            return
        _end(bounding)
        _bounding.set(None)
        yield from _phase(self.tracer, "execute")


def _phase(tracer: Tracer, name: str) -> Iterator[None]:
    if not trace.get_current_span().is_recording():
        yield
        return
    span = tracer.start_span(name)
    token = otel_context.attach(trace.set_span_in_context(span))
    try:
        yield
    finally:
        otel_context.detach(token)
        span.end()


def _end(span: Span | None) -> None:
    if span is not None and span.is_recording():
        span.end()
