"""Prometheus metrics of one application, served at `GET /metrics`.

Each application has its own registry (a process runs one; tests build many). GraphQL
requests are counted when they end, from what their `RequestScope` noted; DynamoDB calls are
counted as the store's client makes them (`store.transport.observation.observe_calls`), so every
call is seen whichever code path made it, failed ones included.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from prometheus_client import (
    GC_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)
from prometheus_client.exposition import choose_encoder
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from starlette.requests import Request
from starlette.responses import Response

from errors.vocabulary import Code
from gateway.request_scope import RequestScope
from store.transport.observation import observe_calls

if TYPE_CHECKING:
    from store.client import DynamoDBClient

# Refusals by reason, from the codes of the response that refused.
REFUSALS: dict[str, str] = {
    Code.QUERY_TOO_COMPLEX: "too_complex",
    Code.RATE_LIMITED: "rate_limited",
    Code.UNAUTHENTICATED: "unauthenticated",
    Code.FORBIDDEN: "forbidden",
}
# prometheus-client's multiprocess mode reads this variable when it is imported.
MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"
# Up to the default request timeout (10 s) and past it.
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0)
# What each family measures (its HELP line), by name; `Metrics` gives each its type and labels.
HELP: dict[str, str] = {
    "dynagate_graphql_requests": "GraphQL requests by operation type and outcome (ok or the"
    " first error's code).",
    "dynagate_graphql_request_duration_seconds": "Time to answer a GraphQL request, by"
    " operation type.",
    "dynagate_refusals": "GraphQL requests refused, by reason.",
    "dynagate_dynamodb_requests": "DynamoDB calls by operation and outcome (ok, DynamoDB's error"
    " code, or unreachable); retries inside the SDK are not counted apart.",
    "dynagate_dynamodb_read_capacity_units": "Read capacity units consumed by GraphQL requests.",
    "dynagate_dynamodb_write_capacity_units": "Write capacity units consumed by GraphQL requests.",
    "dynagate_dynamodb_items_scanned": "Items DynamoDB read for GraphQL requests (before filters).",
    "dynagate_dynamodb_items_returned": "Items DynamoDB returned for GraphQL requests.",
    "dynagate_bound_exceeded": "DynamoDB calls refused because they would have passed their"
    " request's bound: a cost model too low (a bug, answered INTERNAL_SERVER_ERROR).",
    "dynagate_websockets_open": "WebSocket connections open now.",
    "dynagate_subscriptions_active": "Subscriptions running now.",
    "dynagate_subscription_events": "Subscription events by outcome: delivered to the client, or"
    " dropped when its subscriber fell a whole buffer behind (that subscription ends).",
    "dynagate_stream_lag_seconds": "Seconds between the newest change of the last batch read from"
    " the table's stream and its read.",
    "dynagate_stream_failures": "Failed calls of the stream reader (it backs off and goes on from"
    " its place).",
    "dynagate_redis_failures": "Calls to Redis that failed, by use: rate_limit (each process then"
    " limits on its own) or changes (subscribers hear of them once Redis returns).",
    "dynagate_cache_reads": "Reads the read cache was asked for, by outcome: hit (answered from"
    " memory) or miss (read from DynamoDB).",
    "dynagate_cache_invalidations": "Entries of the read cache dropped because a change could"
    " alter them.",
    "dynagate_cache_bytes": "Bytes the read cache holds now.",
    "dynagate_cache_unapplied_change_age_seconds": "The most the oldest change of the table not"
    " applied to the read cache yet can be old: seconds since every shard of the stream was last"
    " read to its end.",
}


def multiprocess_dir() -> str | None:
    """Where the processes of `dynagate serve --workers N` keep their metrics, if they do
    (prometheus-client's multiprocess mode, which `serve` turns on)."""
    return os.environ.get(MULTIPROCESS_DIR) or None


def _forget_dead_workers(directory: Path) -> None:
    """The live gauges of workers that died (uvicorn starts others in their place) leave
    the sum: their files are removed, as a worker that stops cleanly removes its own."""
    pids = {
        int(match.group(1))
        for path in directory.glob("gauge_live*.db")
        if (match := re.search(r"_(\d+)\.db$", path.name))
    }
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            mark_process_dead(pid, str(directory))  # type: ignore[no-untyped-call]
        except PermissionError:
            pass  # alive, someone else's


class Metrics:
    def __init__(self) -> None:
        registry = self.registry = CollectorRegistry()
        # With several workers, each writes its own figures to files that /metrics sums.
        self.shared = multiprocess_dir() is not None
        counter, gauge = self._counter, self._gauge
        self.graphql_requests = counter("dynagate_graphql_requests", "operation_type", "code")
        name = "dynagate_graphql_request_duration_seconds"
        self.graphql_duration = Histogram(
            name, HELP[name], ["operation_type"], buckets=DURATION_BUCKETS, registry=registry
        )
        self.refusals = counter("dynagate_refusals", "reason")
        self.dynamodb_requests = counter("dynagate_dynamodb_requests", "operation", "outcome")
        self.read_units = counter("dynagate_dynamodb_read_capacity_units")
        self.write_units = counter("dynagate_dynamodb_write_capacity_units")
        self.items_scanned = counter("dynagate_dynamodb_items_scanned")
        self.items_returned = counter("dynagate_dynamodb_items_returned")
        self.bound_exceeded = counter("dynagate_bound_exceeded")
        self.sockets = gauge("dynagate_websockets_open", "livesum")
        self.subscriptions = gauge("dynagate_subscriptions_active", "livesum")
        self.events = counter("dynagate_subscription_events", "outcome")
        self.stream_lag = gauge("dynagate_stream_lag_seconds", "livemax")
        self.stream_failures = counter("dynagate_stream_failures")
        self.redis_failures = counter("dynagate_redis_failures", "use")
        self.cache_reads = counter("dynagate_cache_reads", "outcome")
        self.cache_invalidations = counter("dynagate_cache_invalidations")
        self.cache_bytes = gauge("dynagate_cache_bytes", "livesum")
        self.cache_unapplied = gauge("dynagate_cache_unapplied_change_age_seconds", "livemax")
        for outcome in ("hit", "miss"):
            self.cache_reads.labels(outcome)
        for use in ("rate_limit", "changes"):
            self.redis_failures.labels(use)
        for outcome in ("delivered", "dropped"):
            self.events.labels(outcome)
        for reason in REFUSALS.values():
            # Present at zero, so that a rate over them is defined before the first one.
            self.refusals.labels(reason)
        if self.shared:
            return  # the process collectors describe one process: not summed
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        if GC_COLLECTOR is not None:
            GCCollector(registry=registry)

    def _counter(self, name: str, *labels: str) -> Counter:
        return Counter(name, HELP[name], labels, registry=self.registry)

    def _gauge(self, name: str, mode: Literal["livesum", "livemax"]) -> Gauge:
        """A gauge of now; with several workers, the live ones' values summed or the most."""
        return Gauge(name, HELP[name], registry=self.registry, multiprocess_mode=mode)

    def observe(self, request: RequestScope, seconds: float) -> None:
        """Count a GraphQL request that has ended."""
        kind = request.operation_type
        self.graphql_requests.labels(kind, request.outcome).inc()
        # A traced request's trace id, on the bucket it fell in (OpenMetrics' exemplars).
        exemplar = {"trace_id": request.trace_id} if request.traced else None
        self.graphql_duration.labels(kind).observe(seconds, exemplar)
        for reason in {REFUSALS[c] for c in request.codes if c in REFUSALS}:
            self.refusals.labels(reason).inc()
        cost = request.cost
        self.read_units.inc(cost.read_capacity_units)
        self.write_units.inc(cost.write_capacity_units)
        self.items_scanned.inc(cost.items_scanned)
        self.items_returned.inc(cost.items_returned)
        self.bound_exceeded.inc(cost.past_bound)

    def watch(self, client: DynamoDBClient | Any) -> Callable[[], None]:
        """Count `client`'s calls (the table's client or the stream's); the function
        returned stops it."""
        return observe_calls(client, self._called)

    def event(self, outcome: str, count: int = 1) -> None:
        """Subscription events `delivered` or `dropped`."""
        self.events.labels(outcome).inc(count)

    def read(self, records: int, lag_seconds: float | None) -> None:
        """A batch the stream reader read (`store.stream.reader.StreamObserver`)."""
        if lag_seconds is not None:
            self.stream_lag.set(max(lag_seconds, 0.0))

    def failed(self, reason: str) -> None:
        self.stream_failures.inc()

    # The read cache (`store.cache.reads.CacheObserver`).

    def cache_hit(self) -> None:
        self.cache_reads.labels("hit").inc()

    def cache_miss(self) -> None:
        self.cache_reads.labels("miss").inc()

    def cache_invalidated(self, entries: int) -> None:
        self.cache_invalidations.inc(entries)

    def cache_held(self, size: int) -> None:
        self.cache_bytes.set(size)

    def _called(self, operation: str, outcome: str) -> None:
        self.dynamodb_requests.labels(operation, outcome).inc()

    async def endpoint(self, request: Request) -> Response:
        """`GET /metrics`: the text format, or OpenMetrics when the scraper asks for it."""
        encoder, content_type = choose_encoder(request.headers.get("accept", ""))
        registry = self.registry
        directory = multiprocess_dir()
        if self.shared and directory is not None:
            _forget_dead_workers(Path(directory))
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # every worker, summed
        return Response(encoder(registry), headers={"Content-Type": content_type})

    def close(self) -> None:
        """This process's live gauges leave the sum (the process ends)."""
        if self.shared:
            mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]
