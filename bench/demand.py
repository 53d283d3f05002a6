"""What demand control costs: refusing bombs, and bounding the orders page.

    python -m bench.demand [--requests 300]

Starts DynamoDB Local, seeds customer `bench` with 60 orders through the gateway (in
process), then measures, with medians over many runs:

- the time to bound and refuse the nested bomb and a fragment document that doubles 40
  times (2^40 copies), through the whole gateway (parse, validate, bound), and whether
  `/healthz` answered meanwhile;
- the orders page's request time, and the time its bound takes with the document cached
  (the work demand control adds to every request): their ratio is the overhead.

Writes bench/results/demand.json. Exits 0 whatever the figures (it is a report).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

import httpx
from graphql import parse

from bench.workload import PAGE_QUERY, seed
from gateway.app import create_app
from gateway.bound import bound_operation
from gateway.demand import BoundCache
from gateway.dynamodb_local import DynamoDBLocal
from gateway.schema import build_schema
from gateway.settings import Settings
from store.tables import create_table

TABLE = "bench-demand"
OUTPUT = Path(__file__).resolve().parent / "results" / "demand.json"
NESTED = (
    '{ customer(id:"bench"){ orders(first:100){ edges{ node{ customer{ orders(first:100){ edges{'
    " node{ customer{ orders(first:100){ edges{ node{ id } } } } } } } } } } } } }"
)


def doubling(levels: int) -> str:
    fragments = ['fragment L0 on Query { customer(id: "bench") { name } }']
    fragments += [
        f"fragment L{n} on Query {{ ...L{n - 1} ...L{n - 1} }}" for n in range(1, levels + 1)
    ]
    return "\n".join([f"{{ ...L{levels} }}", *fragments])


async def timed(
    http: httpx.AsyncClient, query: str, runs: int
) -> tuple[float, float, dict[str, Any]]:
    """Milliseconds of the first of `runs` requests (nothing cached yet) and their median,
    and the last answer."""
    times, body = [], {}
    for _ in range(runs):
        started = time.perf_counter()
        response = await http.post("/graphql", json={"query": query})
        times.append((time.perf_counter() - started) * 1000)
        body = response.json()
    return times[0], statistics.median(times), body


async def refusal(http: httpx.AsyncClient, query: str, runs: int) -> dict[str, Any]:
    health: list[int] = []

    async def probe() -> None:
        health.append((await http.get("/healthz")).status_code)

    first, median, body = await timed(http, query, runs)
    await asyncio.gather(http.post("/graphql", json={"query": query}), probe(), probe())
    return {
        "first_ms": round(first, 2),
        "median_ms": round(median, 2),
        "code": body["errors"][0]["extensions"]["code"],
        "estimated": body["extensions"]["cost"]["estimated"],
        "requests_made": body["extensions"]["cost"]["requests"],
        "healthz_meanwhile": health,
    }


def cached_bound_ms(runs: int) -> tuple[float, float]:
    """Milliseconds to bound the orders page: first time, then from the cache (median)."""
    schema = build_schema()._schema
    document = parse(PAGE_QUERY)
    started = time.perf_counter()
    bound = bound_operation(schema, document, None, None)
    first = (time.perf_counter() - started) * 1000
    cache = BoundCache()
    key = cache.key(PAGE_QUERY, None, None)
    assert key is not None
    cache.put(key, bound)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        looked_up = cache.key(PAGE_QUERY, None, None)
        assert looked_up is not None and cache.get(looked_up) == bound
        times.append((time.perf_counter() - started) * 1000)
    return first, statistics.median(times)


async def main(requests: int) -> dict[str, Any]:
    with DynamoDBLocal() as local:
        async with Settings(endpoint=local.endpoint, table=TABLE).open_client() as client:
            await create_table(client, TABLE)
        settings = Settings(endpoint=local.endpoint, table=TABLE, cursor_secret=b"bench")
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
                print("seeding 60 orders …", flush=True)
                await seed(http, "/graphql", 60)
                print("refusing the bombs …", flush=True)
                nested = await refusal(http, NESTED, 20)
                fan_out = await refusal(http, doubling(40), 20)
                print(f"timing {requests} orders pages …", flush=True)
                _, page_ms, body = await timed(http, PAGE_QUERY, requests)
                assert not body.get("errors"), body
    first_ms, cached_ms = cached_bound_ms(requests * 10)
    return {
        "nested_bomb": nested,
        "fragments_2_40": fan_out,
        "orders_page": {
            "request_median_ms": round(page_ms, 2),
            "bound_first_ms": round(first_ms, 3),
            "bound_cached_ms": round(cached_ms, 4),
            "overhead_of_request": round(cached_ms / page_ms, 5),
        },
    }


def run() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.demand")
    parser.add_argument("--requests", type=int, default=300)
    results = asyncio.run(main(parser.parse_args().requests))
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    print(f"results: {OUTPUT}")


if __name__ == "__main__":
    run()
