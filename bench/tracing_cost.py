"""Tracing's own CPU per request, measured without I/O (`python -m bench tracing`): the
gateway's tracing code as a request runs it (the request's span, the phases around hooks
that do nothing, two DynamoDB calls answered at once, the export to a receiver over real
HTTP, flushed before the clock stops), beside the same request with tracing off. Precise
to a microsecond where the side-by-side req/s are not: two processes alike differ there."""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Iterator
from typing import Any

from bench.otlp import receiving
from gateway.request_scope import RequestScope, closed, opened, scope_of

_REQUEST = {"TableName": "bench", "IndexName": "GSI1", "KeyConditionExpression": "#pk = :pk"}
_ANSWER = {
    "Items": [],
    "Count": 20,
    "ScannedCount": 20,
    "ConsumedCapacity": {"TableName": "bench", "CapacityUnits": 0.5},
}
_SCOPE = {
    "type": "http",
    "method": "POST",
    "path": "/graphql",
    "headers": [(b"content-type", b"application/json"), (b"content-length", b"120")],
}


def _hook() -> Iterator[None]:
    yield


async def _query(**_: Any) -> dict[str, Any]:
    return _ANSWER


_query.__name__ = "query"


def own_cost(sampler: str, argument: str, requests: int = 3000, rounds: int = 7) -> float:
    """Microseconds of CPU tracing adds to a request, with `OTEL_TRACES_SAMPLER=sampler`."""
    with receiving(counting=True) as receiver:
        saved = dict(os.environ)
        os.environ.update(
            {
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
                "OTEL_TRACES_SAMPLER": sampler,
                "OTEL_TRACES_SAMPLER_ARG": argument,
                # Room for every span of a round: none dropped, every one exported and paid.
                "OTEL_BSP_MAX_QUEUE_SIZE": str(requests * 8),
            }
        )
        try:
            return asyncio.run(_measure(requests, rounds))
        finally:
            os.environ.clear()
            os.environ.update(saved)


async def _measure(requests: int, rounds: int) -> float:
    from gateway.traces.phases import bound_then_execute, phase
    from gateway.traces.requests import RequestSpans
    from gateway.traces.spans import Traces

    traces = Traces.start("otlp")

    async def answered(scope: Any, receive: Any, send: Any) -> None:
        for name in ("parse", "validate"):
            for _ in phase(traces, name, _hook()):
                pass
        execution = bound_then_execute(traces, _hook())
        next(execution)
        for _ in range(2):
            await traces.traced(_query, _REQUEST)(**_REQUEST)
        next(execution, None)
        request = scope_of(scope)
        assert request is not None
        request.operation_name, request.operation_type = "Orders", "query"
        request.cost.requests = 2
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def bare(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def nothing(message: Any) -> None:
        return None

    async def loop(app: Any) -> float:
        started = time.process_time()  # every thread: the export's too
        for _ in range(requests):
            scope = {**_SCOPE, "state": {}}
            token = opened(RequestScope("bench"), scope)
            await app(scope, nothing, nothing)
            closed(token)
        traces.provider.force_flush(60_000)
        return (time.process_time() - started) / requests * 1e6

    traced = RequestSpans(answered, traces)
    differences = []
    for _ in range(rounds):
        differences.append(await loop(traced) - await loop(bare))
    traces.close(10)
    return statistics.median(differences)
