"""An OTLP/HTTP receiver on a real port: it takes what an OpenTelemetry exporter sends to
`/v1/traces` (protobuf, gzip or not), decodes it with OpenTelemetry's own protocol classes,
and keeps every span, for the tracing tests and the tracing benchmark."""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass(frozen=True)
class Link:
    trace_id: str
    span_id: str
    attributes: dict[str, Any]


@dataclass(frozen=True)
class Span:
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    kind: int
    attributes: dict[str, Any]
    links: tuple[Link, ...]
    # 0 unset, 1 ok, 2 error.
    status: int
    resource: dict[str, Any]
    start: int
    end: int


@dataclass
class Receiver:
    url: str
    spans: list[Span] = field(default_factory=list)
    # Export requests received, and their bytes (as sent, before decompression).
    requests: int = 0
    sent_bytes: int = 0
    # Count the spans, keep none (the benchmark's sink).
    counting: bool = False
    counted: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_for(self, found: Callable[[list[Span]], bool], *, within: float = 10.0) -> list[Span]:
        """The spans received, once `found` holds of them (AssertionError after `within` s)."""
        deadline = time.monotonic() + within
        while True:
            with self.lock:
                spans = list(self.spans)
            if found(spans):
                return spans
            assert time.monotonic() < deadline, f"not received within {within} s: {spans}"
            time.sleep(0.02)

    def trace(self, trace_id: str) -> list[Span]:
        with self.lock:
            return [s for s in self.spans if s.trace_id == trace_id]

    def take(self, body: bytes) -> None:
        with self.lock:
            self.requests += 1
            self.sent_bytes += len(body)
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        if self.counting:
            with self.lock:
                self.counted += sum(
                    len(scope.spans)
                    for spans in request.resource_spans
                    for scope in spans.scope_spans
                )
            return
        spans = [
            _span(span, _attributes(resource.resource.attributes))
            for resource in request.resource_spans
            for scope in resource.scope_spans
            for span in scope.spans
        ]
        with self.lock:
            self.spans += spans


@contextmanager
def receiving(*, counting: bool = False) -> Iterator[Receiver]:
    """A receiver on a free loopback port, for as long as the block lasts."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    receiver = Receiver(f"http://127.0.0.1:{server.server_address[1]}", counting=counting)
    server.receiver = receiver  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


class _Handler(BaseHTTPRequestHandler):
    # Keep-alive, as collectors answer: the exporter's connection is used again.
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != "/v1/traces" or self.headers.get("Content-Type") != (
            "application/x-protobuf"
        ):
            self.send_error(404 if self.path != "/v1/traces" else 415)
            return
        sent = body
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        receiver: Receiver = self.server.receiver  # type: ignore[attr-defined]
        receiver.take(body)
        with receiver.lock:
            receiver.sent_bytes += len(sent) - len(body)
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read the spans, not the access log."""


def _span(span: Any, resource: dict[str, Any]) -> Span:
    return Span(
        name=span.name,
        trace_id=span.trace_id.hex(),
        span_id=span.span_id.hex(),
        parent_id=span.parent_span_id.hex(),
        kind=span.kind,
        attributes=_attributes(span.attributes),
        links=tuple(
            Link(link.trace_id.hex(), link.span_id.hex(), _attributes(link.attributes))
            for link in span.links
        ),
        status=span.status.code,
        resource=resource,
        start=span.start_time_unix_nano,
        end=span.end_time_unix_nano,
    )


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    return None if kind is None else getattr(value, kind)
