"""Prometheus metrics of one application, served at `GET /metrics`.

Each application has its own registry (a process runs one; tests build many). GraphQL
requests are counted when they end, from what their `Exchange` noted; DynamoDB calls are
counted as the SDK makes them, through its event hooks on the application's client, so
every call is seen whichever code path made it, failed ones included.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    GC_COLLECTOR,
    CollectorRegistry,
    Counter,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)
from prometheus_client.exposition import choose_encoder
from starlette.requests import Request
from starlette.responses import Response

from gateway.exchange import Exchange
from store.errors import QUERY_TOO_COMPLEX, Forbidden, Unauthenticated

if TYPE_CHECKING:
    from store.client import DynamoDBClient

# Refusals by reason, from the codes of the response that refused.
REFUSALS = {
    QUERY_TOO_COMPLEX: "too_complex",
    "RATE_LIMITED": "rate_limited",
    Unauthenticated.code: "unauthenticated",
    Forbidden.code: "forbidden",
}
# Up to the default request timeout (10 s) and past it.
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0)
_HOOK_ID = "dynagate-metrics"


class Metrics:
    def __init__(self) -> None:
        registry = self.registry = CollectorRegistry()
        self.graphql_requests = Counter(
            "dynagate_graphql_requests",
            "GraphQL requests by operation type and outcome (ok or the first error's code).",
            ["operation_type", "code"],
            registry=registry,
        )
        self.graphql_duration = Histogram(
            "dynagate_graphql_request_duration_seconds",
            "Time to answer a GraphQL request, by operation type.",
            ["operation_type"],
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        self.refusals = Counter(
            "dynagate_refusals",
            "GraphQL requests refused, by reason.",
            ["reason"],
            registry=registry,
        )
        self.dynamodb_requests = Counter(
            "dynagate_dynamodb_requests",
            "DynamoDB calls by operation and outcome (ok, DynamoDB's error code, or "
            "unreachable); retries inside the SDK are not counted apart.",
            ["operation", "outcome"],
            registry=registry,
        )
        self.read_units = Counter(
            "dynagate_dynamodb_read_capacity_units",
            "Read capacity units consumed by GraphQL requests.",
            registry=registry,
        )
        self.write_units = Counter(
            "dynagate_dynamodb_write_capacity_units",
            "Write capacity units consumed by GraphQL requests.",
            registry=registry,
        )
        self.items_scanned = Counter(
            "dynagate_dynamodb_items_scanned",
            "Items DynamoDB read for GraphQL requests (before filters).",
            registry=registry,
        )
        self.items_returned = Counter(
            "dynagate_dynamodb_items_returned",
            "Items DynamoDB returned for GraphQL requests.",
            registry=registry,
        )
        for reason in REFUSALS.values():
            # Present at zero, so that a rate over them is defined before the first one.
            self.refusals.labels(reason)
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        if GC_COLLECTOR is not None:
            GCCollector(registry=registry)

    def observe(self, exchange: Exchange, seconds: float) -> None:
        """Count a GraphQL request that has ended."""
        kind = exchange.operation_type
        self.graphql_requests.labels(kind, exchange.outcome).inc()
        self.graphql_duration.labels(kind).observe(seconds)
        for reason in {REFUSALS[c] for c in exchange.codes if c in REFUSALS}:
            self.refusals.labels(reason).inc()
        cost = exchange.cost
        self.read_units.inc(cost.read_capacity_units)
        self.write_units.inc(cost.write_capacity_units)
        self.items_scanned.inc(cost.items_scanned)
        self.items_returned.inc(cost.items_returned)

    def watch(self, client: DynamoDBClient) -> Callable[[], None]:
        """Count `client`'s calls; the function returned stops it."""
        events = client.meta.events
        events.register("after-call.dynamodb", self._answered, unique_id=_HOOK_ID)
        events.register("after-call-error.dynamodb", self._unreachable, unique_id=_HOOK_ID + "-x")

        def unwatch() -> None:
            events.unregister("after-call.dynamodb", unique_id=_HOOK_ID)
            events.unregister("after-call-error.dynamodb", unique_id=_HOOK_ID + "-x")

        return unwatch

    def _answered(
        self, *, model: Any, http_response: Any, parsed: Mapping[str, Any], **_: Any
    ) -> None:
        outcome = "ok"
        if http_response.status_code >= 300:
            outcome = str((parsed.get("Error") or {}).get("Code") or "error")
        self.dynamodb_requests.labels(model.name, outcome).inc()

    def _unreachable(self, *, event_name: str, **_: Any) -> None:
        # The event is "after-call-error.dynamodb.<Operation>".
        self.dynamodb_requests.labels(event_name.rsplit(".", 1)[-1], "unreachable").inc()

    async def endpoint(self, request: Request) -> Response:
        """`GET /metrics`: the text format, or OpenMetrics when the scraper asks for it."""
        encoder, content_type = choose_encoder(request.headers.get("accept", ""))
        return Response(encoder(self.registry), headers={"Content-Type": content_type})
