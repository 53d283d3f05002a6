"""`GET /metrics`: the families an operator scrapes, moving as requests are answered."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gateway.settings import Settings
from tests.client import Api
from tests.identity import SECURED, token

LOOKUP = "query Lookup($id: ID!) { customer(id: $id) { id } }"
CREATE = """mutation ($id: ID!) {
  createCustomer(input: {id: $id, name: "Alice", email: "alice@x.io"}) { id } }"""
CREATE_QUEUE = "mutation ($input: CreateQueueInput!) { createQueue(input: $input) { id } }"
# 31 aliases: one past the limit.
BOMB = "{ " + " ".join(f"a{n}: __typename" for n in range(31)) + " }"
FAMILIES = {
    "dynagate_graphql_requests": "counter",
    "dynagate_graphql_request_duration_seconds": "histogram",
    "dynagate_refusals": "counter",
    "dynagate_dynamodb_requests": "counter",
    "dynagate_dynamodb_read_capacity_units": "counter",
    "dynagate_dynamodb_write_capacity_units": "counter",
    "dynagate_dynamodb_items_scanned": "counter",
    "dynagate_dynamodb_items_returned": "counter",
}
# Sample values by name and labels.
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@asynccontextmanager
async def serving(endpoint: str, table: str, **overrides: Any) -> AsyncIterator[Api]:
    settings = Settings(table=table, endpoint=endpoint, cursor_secret=b"test-secret", **overrides)
    async with Api.serving(settings) as running:
        yield running


async def scrape(api: Api) -> Samples:
    """Every sample of `GET /metrics`, by name and labels."""
    response = await api.http.get("/metrics")
    assert response.status_code == 200
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def total(samples: Samples, name: str) -> float:
    return sum(v for (n, _), v in samples.items() if n == name)


async def test_every_family_is_served_in_the_text_format(app: Api) -> None:
    response = await app.http.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    types = {f.name: f.type for f in text_string_to_metric_families(response.text)}
    assert FAMILIES.items() <= types.items()
    assert "process_cpu_seconds" in types
    for reason in ("too_complex", "rate_limited", "unauthenticated", "forbidden"):
        assert f'dynagate_refusals_total{{reason="{reason}"}}' in response.text


async def test_openmetrics_when_the_scraper_asks_for_it(app: Api) -> None:
    response = await app.http.get(
        "/metrics", headers={"Accept": "application/openmetrics-text; version=1.0.0"}
    )
    assert response.headers["content-type"].startswith("application/openmetrics-text")
    assert response.text.endswith("# EOF\n")


async def test_a_query_moves_requests_duration_and_dynamodb_figures(app: Api) -> None:
    before = await scrape(app)
    result = await app(LOOKUP, id="nobody")
    result.ok()
    after = await scrape(app)

    ok = {"operation_type": "query", "code": "ok"}
    assert value(after, "dynagate_graphql_requests_total", **ok) == (
        value(before, "dynagate_graphql_requests_total", **ok) + 1
    )
    count = "dynagate_graphql_request_duration_seconds_count"
    assert value(after, count, operation_type="query") == (
        value(before, count, operation_type="query") + 1
    )
    calls = "dynagate_dynamodb_requests_total"
    assert result.cost["requests"] >= 1
    assert total(after, calls) - total(before, calls) == result.cost["requests"]
    read = "dynagate_dynamodb_read_capacity_units_total"
    assert total(after, read) - total(before, read) == pytest.approx(
        result.cost["readCapacityUnits"]
    )
    scanned = "dynagate_dynamodb_items_scanned_total"
    assert total(after, scanned) - total(before, scanned) == result.cost["itemsScanned"]


async def test_a_mutation_counts_its_writes_and_a_refused_write_its_error(app: Api) -> None:
    before = await scrape(app)
    customer = f"m-{uuid.uuid4().hex[:8]}"
    created = await app(CREATE, id=customer)
    created.ok()
    again = await app(CREATE, id=customer)
    assert again.codes == ["CONFLICT"]
    after = await scrape(app)

    requests = "dynagate_graphql_requests_total"
    for code in ("ok", "CONFLICT"):
        labels = {"operation_type": "mutation", "code": code}
        assert value(after, requests, **labels) == value(before, requests, **labels) + 1
    written = "dynagate_dynamodb_write_capacity_units_total"
    assert total(after, written) - total(before, written) == pytest.approx(
        created.cost["writeCapacityUnits"] + again.cost["writeCapacityUnits"]
    )
    assert created.cost["writeCapacityUnits"] > 0
    # The conditional write DynamoDB refused is counted under its error code.
    refused = {
        labels: count - before.get((name, labels), 0.0)
        for (name, labels), count in after.items()
        if name == "dynagate_dynamodb_requests_total" and ("outcome", "ok") not in labels
    }
    assert any(moved > 0 for moved in refused.values()), refused


async def test_a_query_too_complex_is_a_refusal(app: Api) -> None:
    before = await scrape(app)
    assert (await app(BOMB)).codes == ["QUERY_TOO_COMPLEX"]
    after = await scrape(app)
    refusals = "dynagate_refusals_total"
    assert value(after, refusals, reason="too_complex") == (
        value(before, refusals, reason="too_complex") + 1
    )
    requests = "dynagate_graphql_requests_total"
    labels = {"operation_type": "query", "code": "QUERY_TOO_COMPLEX"}
    assert value(after, requests, **labels) == value(before, requests, **labels) + 1


async def test_a_rate_limited_request_is_a_refusal(endpoint: str, shared_table: str) -> None:
    # A tenth of a unit a minute: one write empties the bucket for minutes.
    async with serving(endpoint, shared_table, rate_limit=0.1) as api:
        (await api(CREATE, id=f"r-{uuid.uuid4().hex[:8]}")).ok()
        refused = await api.http.post("/graphql", json={"query": LOOKUP, "variables": {"id": "x"}})
        assert refused.status_code == 429
        samples = await scrape(api)
    assert value(samples, "dynagate_refusals_total", reason="rate_limited") == 1
    labels = {"operation_type": "none", "code": "RATE_LIMITED"}
    assert value(samples, "dynagate_graphql_requests_total", **labels) == 1


async def test_unauthenticated_and_forbidden_are_refusals(endpoint: str, shared_table: str) -> None:
    async with serving(endpoint, shared_table, **SECURED) as api:
        bad = await api.http.post(
            "/graphql", json={"query": LOOKUP}, headers={"Authorization": "Bearer nope"}
        )
        assert bad.status_code == 401
        anonymous = await api('{ queue(id: "q1") { id } }')
        assert anonymous.codes == ["UNAUTHENTICATED"]
        bob = api.signed_in(token("bob"))
        denied = await bob(CREATE_QUEUE, input={"id": "support", "name": "Support"})
        assert denied.codes == ["FORBIDDEN"]
        samples = await scrape(api)
    refusals = "dynagate_refusals_total"
    assert value(samples, refusals, reason="unauthenticated") == 2
    assert value(samples, refusals, reason="forbidden") == 1
    requests = "dynagate_graphql_requests_total"
    assert value(samples, requests, operation_type="none", code="UNAUTHENTICATED") == 1
    assert value(samples, requests, operation_type="query", code="UNAUTHENTICATED") == 1
    assert value(samples, requests, operation_type="mutation", code="FORBIDDEN") == 1


async def test_metrics_can_be_switched_off(endpoint: str, shared_table: str) -> None:
    async with serving(endpoint, shared_table, metrics=False) as api:
        assert (await api.http.get("/metrics")).status_code == 404
        (await api(LOOKUP, id="nobody")).ok()


async def test_each_app_counts_its_own_requests(endpoint: str, shared_table: str) -> None:
    async with serving(endpoint, shared_table) as first, serving(endpoint, shared_table) as other:
        (await first(LOOKUP, id="nobody")).ok()
        assert total(await scrape(other), "dynagate_graphql_requests_total") == 0
        assert total(await scrape(first), "dynagate_graphql_requests_total") == 1


def test_the_live_gauges_of_dead_workers_leave_the_sum(tmp_path: Path) -> None:
    from gateway.metrics import _forget_dead_workers

    dead = subprocess.Popen(["true"])
    dead.wait()
    for pid in (os.getpid(), dead.pid):
        for kind in ("gauge_livesum", "gauge_livemax", "counter"):
            (tmp_path / f"{kind}_{pid}.db").write_bytes(b"")
    _forget_dead_workers(tmp_path)
    left = sorted(path.name for path in tmp_path.iterdir())
    assert left == sorted(
        [
            f"counter_{dead.pid}.db",  # counters keep counting what was done
            f"counter_{os.getpid()}.db",
            f"gauge_livemax_{os.getpid()}.db",
            f"gauge_livesum_{os.getpid()}.db",
        ]
    )
