"""The tracer of the process, and the spans the store and the subscriptions ask for
(`store.observation.Tracing`): one per DynamoDB call, one per delivered event.

Each is made only inside a span that is recorded: a request its sampler left out makes
none, and costs one look at the current span per call.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SpanExporter,
)
from opentelemetry.trace import Link, SpanKind, Status, StatusCode, Tracer
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from gateway.traces.otlp import LeanOTLPSpanExporter
from store.cost import Cost, Operation
from store.observation import Method

SCOPE = "dynagate"
# botocore's method names for DynamoDB's operations, and which of them write.
_OPERATIONS = {
    "query": "Query",
    "scan": "Scan",
    "get_item": "GetItem",
    "batch_get_item": "BatchGetItem",
    "put_item": "PutItem",
    "update_item": "UpdateItem",
    "delete_item": "DeleteItem",
    "batch_write_item": "BatchWriteItem",
    "transact_write_items": "TransactWriteItems",
    "transact_get_items": "TransactGetItems",
}
_WRITES = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}
_TRACE_CONTEXT = TraceContextTextMapPropagator()


class Traces:
    """The process's tracer; `store.observation.Tracing` for the store and subscriptions."""

    def __init__(self, provider: TracerProvider) -> None:
        self.provider = provider
        self.tracer: Tracer = provider.get_tracer(SCOPE, _version())

    @classmethod
    def start(cls, exporter_name: str) -> Traces:
        """Traces exported as OpenTelemetry's `OTEL_*` settings say (sampler, endpoint,
        headers, batch sizes); `exporter_name` is `otlp` or `console`."""
        provider = TracerProvider(resource=_resource(os.environ))
        provider.add_span_processor(BatchSpanProcessor(_exporter(exporter_name)))
        return cls(provider)

    def close(self, seconds: float) -> None:
        """Export what is left, within `seconds`."""
        self.provider.force_flush(int(seconds * 1000))
        self.provider.shutdown()

    def traced(self, method: Method, request: Mapping[str, Any]) -> Method:
        if not trace.get_current_span().is_recording():
            return method
        name = _OPERATIONS.get(getattr(method, "__name__", ""), "DynamoDB")
        tracer = self.tracer

        async def call(**sent: Any) -> Any:
            span = tracer.start_span(
                f"DynamoDB.{name}", kind=SpanKind.CLIENT, attributes=_call_attributes(name, sent)
            )
            try:
                response = await method(**sent)
            except BaseException as exc:
                answer = getattr(exc, "response", None)
                if isinstance(answer, Mapping):
                    span.set_attributes(_answer_attributes(name, answer))
                code = (answer or {}).get("Error", {}).get("Code") if answer else None
                span.set_attribute("error.type", str(code or type(exc).__name__))
                span.set_status(Status(StatusCode.ERROR, str(code or type(exc).__name__)))
                span.end()
                raise
            span.set_attributes(_answer_attributes(name, response))
            span.end()
            return response

        return call

    def cause(self) -> str | None:
        span = trace.get_current_span()
        if not span.is_recording():
            return None
        carrier: dict[str, str] = {}
        _TRACE_CONTEXT.inject(carrier, trace.set_span_in_context(span))
        return carrier.get("traceparent")

    @contextmanager
    def delivery(self, topic: str, cause: str | None) -> Iterator[None]:
        links = []
        if cause is not None:
            caused_by = trace.get_current_span(_TRACE_CONTEXT.extract({"traceparent": cause}))
            if caused_by.get_span_context().is_valid:
                links.append(Link(caused_by.get_span_context(), {"dynagate.link": "write"}))
        span = self.tracer.start_span(
            f"event {topic}",
            context=otel_context.Context(),  # a trace of its own, linked to the write's
            kind=SpanKind.CONSUMER,
            links=links,
            attributes={"dynagate.event.topic": topic, "dynagate.event.linked": bool(links)},
        )
        token = otel_context.attach(trace.set_span_in_context(span))
        try:
            yield
        finally:
            otel_context.detach(token)
            span.end()


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
    operation: Operation = "write" if name in _WRITES else "read"
    cost.record(operation, answer)
    attributes: dict[str, Any] = {
        "dynagate.read_capacity_units": cost.read_capacity_units,
        "dynagate.write_capacity_units": cost.write_capacity_units,
    }
    consumed = answer.get("ConsumedCapacity")
    if consumed:
        entries = consumed if isinstance(consumed, list) else [consumed]
        attributes["aws.dynamodb.consumed_capacity"] = [json.dumps(e, default=str) for e in entries]
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


def _exporter(name: str) -> SpanExporter:
    if name == "console":
        return ConsoleSpanExporter()
    return LeanOTLPSpanExporter()


def _version() -> str:
    try:
        return version("dynagate")
    except PackageNotFoundError:
        return "0"
