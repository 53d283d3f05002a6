"""The exporter's own protobuf writer (`gateway/traces/otlp.py`) against the SDK's encoder:
any spans, written both ways, decode to the same ExportTraceServiceRequest."""

from __future__ import annotations

import inspect
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as sdk_encode
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode, TraceState

from gateway.traces.otlp import EncodedSpan, LeanOTLPSpanExporter, encode_spans

INT64 = st.integers(-(2**63), 2**63 - 1)
FLOATS = st.floats(allow_nan=False)
SCALARS = st.one_of(st.text(), st.booleans(), INT64, FLOATS)
VALUES = st.one_of(
    SCALARS,
    st.lists(st.text(), max_size=3),
    st.lists(INT64, max_size=3),
    st.lists(FLOATS, max_size=3),
    st.lists(st.booleans(), max_size=3),
)
ATTRIBUTES = st.dictionaries(st.text(min_size=1, max_size=20), VALUES, max_size=6)
TIMES = st.integers(0, 2**64 - 1)


@st.composite
def contexts(draw: st.DrawFn) -> SpanContext:
    state = draw(st.lists(st.sampled_from([("vendor", "a1"), ("other", "x-y")]), unique=True))
    return SpanContext(
        trace_id=draw(st.integers(1, 2**128 - 1)),
        span_id=draw(st.integers(1, 2**64 - 1)),
        is_remote=draw(st.booleans()),
        trace_state=TraceState(state),
    )


@st.composite
def spans(draw: st.DrawFn, resources: list[Resource], scopes: list[InstrumentationScope]) -> Any:
    code = draw(st.sampled_from(StatusCode))
    description = draw(st.none() | st.text(max_size=10)) if code is StatusCode.ERROR else None
    return ReadableSpan(
        name=draw(st.text(max_size=30)),
        context=draw(contexts()),
        parent=draw(st.none() | contexts()),
        resource=draw(st.sampled_from(resources)),
        attributes=draw(ATTRIBUTES),
        events=draw(
            st.lists(st.builds(Event, st.text(max_size=10), ATTRIBUTES, TIMES), max_size=2)
        ),
        links=draw(st.lists(st.builds(Link, contexts(), ATTRIBUTES), max_size=2)),
        kind=draw(st.sampled_from(SpanKind)),
        status=Status(code, description),
        start_time=draw(TIMES),
        end_time=draw(TIMES),
        instrumentation_scope=draw(st.sampled_from(scopes)),
    )


@st.composite
def batches(draw: st.DrawFn) -> list[Any]:
    resources = [
        Resource(draw(ATTRIBUTES), draw(st.sampled_from(["", "https://opentelemetry.io/s"])))
        for _ in range(draw(st.integers(1, 2)))
    ]
    scopes = [
        InstrumentationScope(
            draw(st.text(min_size=1, max_size=10)),
            draw(st.none() | st.text(max_size=5)),
            draw(st.none() | st.just("https://example.com/schema")),
            draw(ATTRIBUTES),
        )
        for _ in range(draw(st.integers(1, 2)))
    ]
    return draw(st.lists(spans(resources, scopes), max_size=5))


def decoded(data: bytes) -> ExportTraceServiceRequest:
    message = ExportTraceServiceRequest()
    message.ParseFromString(data)
    return message


@settings(max_examples=300, deadline=None)
@given(batches())
def test_any_spans_decode_as_the_sdks_encoding_does(batch: list[Any]) -> None:
    assert decoded(encode_spans(batch)) == decoded(sdk_encode(batch).SerializeToString())


def test_a_value_no_attribute_may_hold_is_refused() -> None:
    span = ReadableSpan(name="x", context=SpanContext(1, 1, False), attributes={"a": object()})
    try:
        encode_spans([span])
    except TypeError as exc:
        assert "object" in str(exc)
    else:
        raise AssertionError("encoded a value no attribute may hold")


def test_the_exporter_internals_it_sends_through_are_there() -> None:
    """`LeanOTLPSpanExporter.export` uses the SDK exporter's `_client.export(bytes)` and
    `_shutdown`: a release without them fails here, not in production."""
    exporter = LeanOTLPSpanExporter(endpoint="http://127.0.0.1:9/v1/traces")
    assert exporter._shutdown is False
    assert callable(exporter._client.export)
    exporter.shutdown()
    assert exporter.export([]) is SpanExportResult.FAILURE


@settings(max_examples=100, deadline=None)
@given(batches())
def test_spans_encoded_as_they_end_are_exported_alike(batch: list[Any]) -> None:
    # Each of EncodedSpan's arguments, read from the span's property of that name.
    taken = inspect.signature(EncodedSpan).parameters
    ended = [EncodedSpan(**{name: getattr(s, name) for name in taken}) for s in batch]
    assert encode_spans(ended) == encode_spans(batch)
