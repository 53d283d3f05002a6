"""Traces over OpenTelemetry, received by a real OTLP/HTTP receiver (`tests/otlp.py`): a
request's spans continue the client's trace, its DynamoDB spans are its cost report's calls
one for one, a subscription event links to the write that caused it, and nothing of it
runs without `OTEL_*` settings."""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx
import pytest

from bench.otlp import Receiver, Span, receiving
from gateway.cli.dynamodb_local import free_port
from gateway.http.app import create_app
from gateway.settings import SettingsError
from tests.client import Api, settings_for
from tests.live import connected, served
from tests.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]
CLIENT_TRACE = "0af7651916cd43dd8448eb211c80319c"
CLIENT_SPAN = "b7ad6b7169203331"
TRACEPARENT = f"00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"
CUSTOMER = (
    'mutation { createCustomer(input: {id: "ada", name: "Ada", email: "ada@example.com"}) { id } }'
)
ORDER = (
    'mutation Place { placeOrder(input: {customerId: "ada", items: [{sku: "pen", quantity: 2,'
    " unitPriceCents: 150}]}) { id status } }"
)
ORDERS = (
    'query Orders { customer(id: "ada") { name orders(first: 5) { edges { node { id status'
    " items { sku } } } } } }"
)


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    """A receiver, and OpenTelemetry's settings pointing at it, exporting at once."""
    with receiving() as running:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", running.url)
        monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "20")
        monkeypatch.setenv("OTEL_SERVICE_NAME", "orders-gateway")
        yield running


def children(spans: list[Span], parent: Span) -> list[Span]:
    return [s for s in spans if s.parent_id == parent.span_id]


def descendants(spans: list[Span], root: Span) -> list[Span]:
    found, frontier = [], [root]
    while frontier:
        below = children(spans, frontier.pop())
        found += below
        frontier += below
    return found


def request_span(receiver: Receiver, trace_id: str, name: str) -> tuple[Span, list[Span]]:
    """The request span called `name` of `trace_id` once received, and its trace."""
    spans = receiver.wait_for(
        lambda got: any(s.trace_id == trace_id and s.name == name for s in got)
    )
    [span] = [s for s in spans if s.trace_id == trace_id and s.name == name]
    # Its children end before it does, so they are exported with it or before.
    return span, [s for s in spans if s.trace_id == trace_id]


def request_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "dynagate.requests"]


def dynamodb_spans(trace: list[Span]) -> list[Span]:
    return [s for s in trace if s.name.startswith("DynamoDB.")]


async def test_a_request_continues_the_clients_trace_and_its_calls_are_its_cost(
    endpoint: str, table: str, receiver: Receiver, caplog: pytest.LogCaptureFixture
) -> None:
    settings = settings_for(endpoint, table, traces="otlp")
    async with Api.serving(settings) as api:
        assert not (await api(CUSTOMER)).errors
        assert not (await api(ORDER)).errors
        with caplog.at_level(logging.INFO, logger="dynagate.requests"):
            response = await api.http.post(
                "/graphql", json={"query": ORDERS}, headers={"traceparent": TRACEPARENT}
            )
    body = response.json()
    assert "errors" not in body, body
    cost = body["extensions"]["cost"]
    span, trace = request_span(receiver, CLIENT_TRACE, "query Orders")
    # The client's trace, continued: its span is the request's parent.
    assert span.parent_id == CLIENT_SPAN
    assert span.kind == 2  # server
    assert span.resource["service.name"] == "orders-gateway"
    attributes = span.attributes
    assert attributes["graphql.operation.name"] == "Orders"
    assert attributes["graphql.operation.type"] == "query"
    assert attributes["dynagate.error_codes"] == []
    assert attributes["dynagate.cost.requests"] == cost["requests"]
    assert attributes["dynagate.cost.read_capacity_units"] == cost["readCapacityUnits"]
    assert attributes["dynagate.cost.items_returned"] == cost["itemsReturned"]
    # The phases, in order, each a child of the request.
    phases = sorted(children(trace, span), key=lambda s: s.start)
    assert [p.name for p in phases] == ["parse", "validate", "bound", "execute"]
    assert all(a.end <= b.start for a, b in itertools.pairwise(phases))
    # One span per DynamoDB call, under execution, carrying the capacity the report sums.
    calls = dynamodb_spans(trace)
    assert cost["requests"] >= 2
    assert len(calls) == cost["requests"]
    below = {s.span_id for s in descendants(trace, phases[3])}
    assert all(c.span_id in below for c in calls)
    assert sum(c.attributes["dynagate.read_capacity_units"] for c in calls) == pytest.approx(
        cost["readCapacityUnits"]
    )
    assert sum(c.attributes["dynagate.items"] for c in calls) == cost["itemsReturned"]
    for call in calls:
        assert call.kind == 3  # client
        assert call.attributes["rpc.method"] == call.name.removeprefix("DynamoDB.")
        assert call.attributes["aws.dynamodb.table_names"] == [table]
    # The log line names the trace.
    line = request_lines(caplog)[-1]
    assert f"trace_id={CLIENT_TRACE}" in line.getMessage()
    assert line.__dict__["fields"]["traceId"] == CLIENT_TRACE


async def test_a_write_is_traced_with_its_capacity_and_errors_with_their_codes(
    endpoint: str, table: str, receiver: Receiver
) -> None:
    settings = settings_for(endpoint, table, traces="otlp")
    async with Api.serving(settings) as api:
        created = await api.http.post(
            "/graphql", json={"query": CUSTOMER}, headers={"traceparent": TRACEPARENT}
        )
        trace_id = "1" * 32
        again = await api.http.post(
            "/graphql",
            json={"query": CUSTOMER},
            headers={"traceparent": f"00-{trace_id}-{CLIENT_SPAN}-01"},
        )
    cost = created.json()["extensions"]["cost"]
    _, trace = request_span(receiver, CLIENT_TRACE, "mutation")
    calls = dynamodb_spans(trace)
    assert len(calls) == cost["requests"]
    assert sum(c.attributes["dynagate.write_capacity_units"] for c in calls) == pytest.approx(
        cost["writeCapacityUnits"]
    )
    # The same customer again: CONFLICT, a client's error, on the span and its call.
    codes = [e["extensions"]["code"] for e in again.json()["errors"]]
    refused, refused_trace = request_span(receiver, trace_id, "mutation")
    assert refused.attributes["dynagate.error_codes"] == codes
    assert refused.status == 0  # the client's error, not the service's
    [failed] = [c for c in dynamodb_spans(refused_trace) if c.status == 2]
    assert failed.attributes["error.type"] in {
        "ConditionalCheckFailedException",
        "TransactionCanceledException",
    }


@pytest.mark.streamed
async def test_a_subscription_event_links_to_the_write_that_caused_it(
    endpoint: str, table: str, receiver: Receiver
) -> None:
    settings = settings_for(endpoint, table, traces="otlp")
    async with served(settings) as gateway, connected(gateway) as client:
        async with httpx.AsyncClient(base_url=gateway.url) as http:
            await http.post("/graphql", json={"query": CUSTOMER})
            ident = await client.subscribe(
                'subscription { orderChanges(customerId: "ada") { kind order { id status } } }'
            )
            await asyncio.sleep(0.3)
            placed = await http.post(
                "/graphql", json={"query": ORDER}, headers={"traceparent": TRACEPARENT}
            )
        message = await client.next_for(ident, within=10)
    order_id = placed.json()["data"]["placeOrder"]["id"]
    assert message["payload"]["data"]["orderChanges"]["order"]["id"] == order_id
    _, write_trace = request_span(receiver, CLIENT_TRACE, "mutation Place")
    spans = receiver.wait_for(lambda got: any(s.name.startswith("event ") for s in got))
    [event] = [s for s in spans if s.name.startswith("event ")]
    # A trace of its own, linked to the span the write was made in.
    assert event.trace_id != CLIENT_TRACE
    assert event.kind == 5  # consumer
    [link] = event.links
    assert link.trace_id == CLIENT_TRACE
    assert link.span_id in {s.span_id for s in write_trace}
    assert event.attributes["dynagate.event.linked"] is True
    # The event's own reads (its selection) are its children.
    assert all(
        c.trace_id == event.trace_id for c in dynamodb_spans(spans) if c.parent_id == event.span_id
    )


async def test_a_trace_its_sampler_leaves_out_makes_no_span_but_is_logged(
    endpoint: str,
    table: str,
    receiver: Receiver,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "parentbased_always_off")
    settings = settings_for(endpoint, table, traces="otlp")
    async with Api.serving(settings) as api:
        with caplog.at_level(logging.INFO, logger="dynagate.requests"):
            assert not (await api(CUSTOMER)).errors
        metrics = await api.http.get("/metrics", headers={"Accept": "application/openmetrics-text"})
    await asyncio.sleep(0.3)
    assert receiver.spans == []
    line = request_lines(caplog)[-1]
    assert re.search(r"trace_id=[0-9a-f]{32}", line.getMessage())
    assert "trace_id=" not in metrics.text  # no exemplar of a trace nobody can see


async def test_histograms_carry_the_trace_ids_of_traced_requests(
    endpoint: str, table: str, receiver: Receiver
) -> None:
    settings = settings_for(endpoint, table, traces="otlp")
    async with Api.serving(settings) as api:
        await api.http.post(
            "/graphql",
            json={"query": '{ customer(id: "nobody") { id } }'},
            headers={"traceparent": TRACEPARENT},
        )
        scraped = await api.http.get("/metrics", headers={"Accept": "application/openmetrics-text"})
    buckets = [
        line
        for line in scraped.text.splitlines()
        if line.startswith("dynagate_graphql_request_duration_seconds_bucket")
    ]
    assert any(f'# {{trace_id="{CLIENT_TRACE}"}}' in line for line in buckets), buckets


def test_without_otel_settings_no_tracing_code_is_loaded(endpoint: str, table: str) -> None:
    """A request served with tracing off imports nothing of OpenTelemetry, in a process of
    its own (the test process has imported it)."""
    program = textwrap.dedent(
        f"""
        import asyncio, sys
        import httpx
        from tests.client import settings_for
        from gateway.http.app import create_app

        # redis-py imports OpenTelemetry's metrics API where it is installed; tracing's own
        # modules, and the gateway's, stay out.
        TRACING = (
            "gateway.traces.", "opentelemetry.sdk.trace", "opentelemetry.exporter",
            "opentelemetry.propagate",
        )

        async def main():
            app = create_app(settings_for({endpoint!r}, {table!r}))
            async with app.router.lifespan_context(app):
                transport = httpx.ASGITransport(app=app)
                async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
                    query = "{{ customer(id: \\"x\\") {{ id }} }}"
                    answer = await http.post("/graphql", json={{"query": query}})
                    assert answer.status_code == 200, answer.text
            print(sorted(m for m in sys.modules if m.startswith(TRACING)))

        asyncio.run(main())
        """
    )
    env = {"PATH": "/usr/bin:/bin", "OTEL_SERVICE_NAME": "named-but-not-exporting"}
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


async def test_redis_calls_of_a_request_are_its_spans(
    endpoint: str, table: str, receiver: Receiver, redis_server: RedisServer
) -> None:
    settings = settings_for(
        endpoint, table, traces="otlp", redis_url=redis_server.url, rate_limit=6_000.0
    )
    async with Api.serving(settings) as api:
        answered = await api.http.post(
            "/graphql",
            json={"query": '{ customer(id: "nobody") { id } }'},
            headers={"traceparent": TRACEPARENT},
        )
    assert "errors" not in answered.json()
    span, trace = request_span(receiver, CLIENT_TRACE, "query")
    redis = [s for s in trace if s.name.startswith("Redis ")]
    assert redis, [s.name for s in trace]
    assert all(s.kind == 3 and s.attributes["db.system.name"] == "redis" for s in redis)
    assert {s.span_id for s in redis} <= {s.span_id for s in descendants(trace, span)}


@contextmanager
def hanging() -> Iterator[str]:
    """A collector that takes connections and never answers: its URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    taken: list[socket.socket] = []
    stop = threading.Event()

    def take() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            with suppress(TimeoutError):
                taken.append(listener.accept()[0])

    thread = threading.Thread(target=take, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for connection in taken:
            connection.close()
        listener.close()


async def test_a_collector_that_hangs_or_is_gone_costs_requests_nothing(
    endpoint: str, table: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OTEL_BSP_MAX_QUEUE_SIZE", "4")
    monkeypatch.setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "2")
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "10")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    nowhere = f"http://127.0.0.1:{free_port()}"
    with hanging() as stuck:
        for collector in (stuck, nowhere):
            monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector)
            settings = settings_for(endpoint, table, traces="otlp")
            async with Api.serving(settings) as api:
                with caplog.at_level(logging.WARNING):
                    started = time.monotonic()
                    for _ in range(30):
                        answered = await api.http.post(
                            "/graphql", json={"query": '{ customer(id: "x") { id } }'}
                        )
                        assert answered.status_code == 200
                    assert time.monotonic() - started < 10
    # Said, not once per span dropped (the SDK's filter: once in each 20 s).
    dropped = [r for r in caplog.records if "Queue full" in r.getMessage()]
    assert 1 <= len(dropped) <= 4, [r.getMessage() for r in dropped]


async def test_a_malformed_traceparent_starts_a_trace_of_its_own(
    endpoint: str, table: str, receiver: Receiver
) -> None:
    settings = settings_for(endpoint, table, traces="otlp")
    async with Api.serving(settings) as api:
        for garbage in ("00-xyz-abc-01", "ff-" + "0" * 32 + "-" + "0" * 16 + "-01", "x" * 5000):
            answered = await api.http.post(
                "/graphql",
                json={"query": 'query Garbage { customer(id: "x") { id } }'},
                headers={"traceparent": garbage, "tracestate": "a=" + "b" * 600},
            )
            assert answered.status_code == 200
    spans = receiver.wait_for(lambda got: sum(s.name == "query Garbage" for s in got) == 3)
    roots = [s for s in spans if s.name == "query Garbage"]
    assert all(s.parent_id == "" for s in roots)
    assert len({s.trace_id for s in roots}) == 3


def test_batch_settings_that_contradict_each_other_are_a_settings_error(
    endpoint: str, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setenv("OTEL_BSP_MAX_QUEUE_SIZE", "4")
    with pytest.raises(SettingsError, match="max_export_batch_size"):
        create_app(settings_for(endpoint, table, traces="otlp"))
