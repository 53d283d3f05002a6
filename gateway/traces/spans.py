"""The traces of the process, and the spans the store and the subscriptions ask for
(`store.transport.observation.Tracing`): one per DynamoDB call, one per delivered event.

Each is made only inside a span that is recorded: a request its sampler left out makes
none, and costs one look at a context variable per call.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from importlib.metadata import PackageNotFoundError, version
from random import getrandbits
from time import time_ns
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
)
from opentelemetry.sdk.trace.sampling import Decision
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import (
    Link,
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
)
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from gateway.settings import SettingsError
from gateway.traces.otlp import EncodedSpan, LeanOTLPSpanExporter
from store.calls import operation_of
from store.cost import Cost
from store.transport.observation import Method

SCOPE = "dynagate"
_TRACE_CONTEXT = TraceContextTextMapPropagator()
_SAMPLED = TraceFlags(TraceFlags.SAMPLED)
_NOT_SAMPLED = TraceFlags(TraceFlags.DEFAULT)
_SAMPLED_DECISIONS = {Decision.RECORD_AND_SAMPLE}
_UNSET = Status(StatusCode.UNSET)


class Traces:
    """The process's traces; `store.transport.observation.Tracing` for the store and subscriptions.

    The SDK's sampler decides once per request (and per event), on its root span, whose
    parent may come from the client (`root`). Every span is written straight as the SDK's
    finished span (`ReadableSpan`) and handed to its batch processor: the SDK's live `Span`
    (its locks, limits and checks on every attribute) cost each one about 20 µs, which
    every traced request paid seven times. The spans below a root follow its decision.
    """

    def __init__(
        self,
        provider: TracerProvider,
        processor: SpanProcessor,
        finished: type[ReadableSpan] = ReadableSpan,
    ) -> None:
        self.provider = provider
        self.processor = processor
        # The finished spans' kind: encoded as they end, for the OTLP exporter.
        self.finished = finished
        self.scope = InstrumentationScope(SCOPE, _version())

    @classmethod
    def start(cls, exporter_name: str) -> Traces:
        """Traces exported as OpenTelemetry's `OTEL_*` settings say (sampler, endpoint,
        headers, batch sizes); `exporter_name` is `otlp` or `console`."""
        try:
            provider = TracerProvider(resource=_resource(os.environ))
            if exporter_name == "console":
                processor = BatchSpanProcessor(ConsoleSpanExporter())
                provider.add_span_processor(processor)
                return cls(provider, processor)
            processor = BatchSpanProcessor(LeanOTLPSpanExporter())
        except ValueError as exc:  # OTEL_BSP_* sizes that contradict each other, say
            raise SettingsError(f"OpenTelemetry's settings: {exc}; see docs/tracing.md") from None
        provider.add_span_processor(processor)
        return cls(provider, processor, EncodedSpan)

    def close(self, seconds: float) -> None:
        """Export what is left, within `seconds`."""
        self.provider.force_flush(int(seconds * 1000))
        self.provider.shutdown()

    def ended(
        self,
        name: str,
        context: SpanContext,
        parent: SpanContext | None,
        start: int,
        *,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: dict[str, Any] | None = None,
        status: Status = _UNSET,
        links: Sequence[Link] = (),
    ) -> None:
        """A recorded span, ended now, handed to the exporter."""
        self.processor.on_end(
            self.finished(
                name=name,
                context=context,
                parent=parent,
                resource=self.provider.resource,
                attributes=attributes,
                kind=kind,
                status=status,
                links=links,
                start_time=start,
                end_time=time_ns(),
                instrumentation_scope=self.scope,
            )
        )

    def traced(self, method: Method, request: Mapping[str, Any]) -> Method:
        parent = recorded()
        if parent is None:
            return method
        name = operation_of(method)

        async def call(**sent: Any) -> Any:
            attributes = _call_attributes(name, sent)
            start, status = time_ns(), _UNSET
            try:
                response = await method(**sent)
            except BaseException as exc:
                answer = getattr(exc, "response", None)
                if isinstance(answer, Mapping):
                    attributes.update(_answer_attributes(name, answer))
                code = answer.get("Error", {}).get("Code") if isinstance(answer, Mapping) else None
                attributes["error.type"] = str(code or type(exc).__name__)
                status = Status(StatusCode.ERROR, attributes["error.type"])
                raise
            else:
                attributes.update(_answer_attributes(name, response))
                return response
            finally:
                self.ended(
                    f"DynamoDB.{name}",
                    child_of(parent),
                    parent,
                    start,
                    kind=SpanKind.CLIENT,
                    attributes=attributes,
                    status=status,
                )

        return call

    def root(
        self,
        name: str,
        kind: SpanKind,
        parent: otel_context.Context | None = None,
        links: Sequence[Link] = (),
    ) -> tuple[SpanContext, SpanContext | None]:
        """A new root span's context, sampled as the SDK's sampler decides (`OTEL_TRACES_
        SAMPLER`), under `parent` (a client's context) if it holds a valid span; and that
        span's. Its flags say whether it is recorded."""
        provider = self.provider
        above = trace.get_current_span(parent).get_span_context() if parent else None
        if above is not None and not above.is_valid:
            above = None
        trace_id = provider.id_generator.generate_trace_id() if above is None else above.trace_id
        decided = provider.sampler.should_sample(parent, trace_id, name, kind, None, links)
        context = SpanContext(
            trace_id,
            provider.id_generator.generate_span_id(),
            is_remote=False,
            trace_flags=_SAMPLED if decided.decision in _SAMPLED_DECISIONS else _NOT_SAMPLED,
            trace_state=decided.trace_state,
        )
        return context, above

    def cause(self) -> str | None:
        context = recorded()
        if context is None:
            return None
        return f"00-{context.trace_id:032x}-{context.span_id:016x}-01"

    @contextmanager
    def delivery(self, topic: str, cause: str | None) -> Iterator[None]:
        links = []
        if cause is not None:
            caused_by = trace.get_current_span(_TRACE_CONTEXT.extract({"traceparent": cause}))
            if caused_by.get_span_context().is_valid:
                links.append(Link(caused_by.get_span_context(), {"dynagate.link": "write"}))
        name = f"event {topic}"
        # A trace of its own, linked to the write's.
        context, _ = self.root(name, SpanKind.CONSUMER, links=links)
        if not context.trace_flags.sampled:
            yield
            return
        start = time_ns()
        try:
            with current(context):
                yield
        finally:
            linked = {"dynagate.event.topic": topic, "dynagate.event.linked": bool(links)}
            self.ended(
                name, context, None, start, kind=SpanKind.CONSUMER, attributes=linked, links=links
            )


# The span whose children are being made, when it is recorded: the request's, its
# execution's, an event's. A context variable of its own, read on every call.
_recorded: ContextVar[SpanContext | None] = ContextVar("dynagate_recorded", default=None)


def recorded() -> SpanContext | None:
    """The span being answered in when it is recorded (its trace sampled), else None."""
    return _recorded.get()


def child_of(parent: SpanContext) -> SpanContext:
    """A new span's context under `parent`, in its trace and sampled as it is."""
    return SpanContext(
        parent.trace_id,
        getrandbits(64) or 1,
        is_remote=False,
        trace_flags=_SAMPLED,
        trace_state=parent.trace_state,
    )


@contextmanager
def current(context: SpanContext) -> Iterator[None]:
    """`context` as the span being answered in while the block runs (its children's
    parent), for the gateway's spans and OpenTelemetry's own context alike."""
    token = _recorded.set(context)
    attached = otel_context.attach(trace.set_span_in_context(NonRecordingSpan(context)))
    try:
        yield
    finally:
        otel_context.detach(attached)
        _recorded.reset(token)


def _call_attributes(name: str, request: Mapping[str, Any]) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "db.system.name": "aws.dynamodb",
        "rpc.system": "aws-api",
        "rpc.service": "DynamoDB",
        "rpc.method": name,
    }
    tables = _tables(request)
    if tables:
        attributes["aws.dynamodb.table_names"] = tables
    if "IndexName" in request:
        attributes["aws.dynamodb.index_name"] = str(request["IndexName"])
    if "ConsistentRead" in request:
        attributes["aws.dynamodb.consistent_read"] = bool(request["ConsistentRead"])
    if "Limit" in request:
        attributes["aws.dynamodb.limit"] = int(request["Limit"])
    return attributes


def _answer_attributes(name: str, answer: Mapping[str, Any]) -> dict[str, Any]:
    """Capacity as the cost report counts it (`store.cost.Cost`), and the items read."""
    cost = Cost()
    cost.record(name, answer)
    attributes: dict[str, Any] = {
        "dynagate.read_capacity_units": cost.read_capacity_units,
        "dynagate.write_capacity_units": cost.write_capacity_units,
    }
    if "Count" in answer:
        attributes["aws.dynamodb.count"] = int(answer["Count"])
        attributes["aws.dynamodb.scanned_count"] = int(answer.get("ScannedCount", 0))
        attributes["dynagate.items"] = int(answer["Count"])
    elif name == "GetItem":
        attributes["dynagate.items"] = 1 if answer.get("Item") else 0
    elif name == "BatchGetItem":
        responses = answer.get("Responses") or {}
        attributes["dynagate.items"] = sum(len(items) for items in responses.values())
    return attributes


def _tables(request: Mapping[str, Any]) -> list[str]:
    if "TableName" in request:
        return [str(request["TableName"])]
    if "RequestItems" in request:
        return sorted(str(name) for name in request["RequestItems"])
    found = {
        str(inner["TableName"])
        for action in request.get("TransactItems", ())
        for inner in action.values()
        if isinstance(inner, Mapping) and "TableName" in inner
    }
    return sorted(found)


def _resource(env: Mapping[str, str]) -> Resource:
    """OpenTelemetry's resource (`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SERVICE_NAME`), named
    `dynagate` where those do not name it."""
    own: dict[str, Any] = {SERVICE_VERSION: _version()}
    named = "OTEL_SERVICE_NAME" in env or "service.name=" in env.get("OTEL_RESOURCE_ATTRIBUTES", "")
    if not named:
        own[SERVICE_NAME] = "dynagate"
    return Resource.create(own)


def _version() -> str:
    try:
        return version("dynagate")
    except PackageNotFoundError:
        return "0"
