"""What demand control costs: refusing bombs, and bounding the orders page.

Starts DynamoDB Local, seeds customer `bench` with 60 orders through the gateway (in
process), then measures, with medians over many runs:

- the time to bound and refuse the nested bomb and a fragment document that doubles 40
  times (2^40 copies), through the whole gateway (parse, validate, bound), and whether
  `/healthz` answered meanwhile;
- the orders page's request time, and the time its bound takes with the document cached
  (the work demand control adds to every request): their ratio is the overhead.

Writes demand.json and demand.md. Exits 0 whatever the figures (it is a report).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import httpx
from graphql import parse

from bench import report
from bench.arguments import Option, arguments, positive_int
from bench.harness import Benchmark, Context, Progress, Table, in_process
from bench.operations import ORDERS_PAGE, seed_orders
from gateway.demand.bound import bound_operation
from gateway.demand.control import BoundCache
from gateway.schema.build import build_schema
from resolvers.strawberry_internals import core_schema

TABLE = "bench-demand"
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
    query = ORDERS_PAGE.query
    schema = core_schema(build_schema())
    started = time.perf_counter()
    bound = bound_operation(schema, parse(query), None, None)
    first = (time.perf_counter() - started) * 1000
    cache = BoundCache()
    key = cache.key(query, None, None)
    if key is None:
        raise RuntimeError("the orders page has no cache key")
    cache.put(key, bound)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        looked_up = cache.key(query, None, None)
        if looked_up is None or cache.get(looked_up) != bound:
            raise RuntimeError("the orders page's bound was not cached")
        times.append((time.perf_counter() - started) * 1000)
    return first, statistics.median(times)


async def measure(table: Table, requests: int, say: Progress) -> dict[str, Any]:
    say(f"table: {await table.create()}")
    async with in_process(table.settings) as http:
        say("seeding 60 orders …")
        await seed_orders(http, "/graphql", 60)
        say("refusing the bombs …")
        nested = await refusal(http, NESTED, 20)
        fan_out = await refusal(http, doubling(40), 20)
        say(f"timing {requests} orders pages …")
        _, page_ms, body = await timed(http, ORDERS_PAGE.query, requests)
        if body.get("errors"):
            raise RuntimeError(f"the orders page answered {body}")
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


def markdown(results: dict[str, Any]) -> str:
    rows = [
        [
            label,
            f"{r['code']}, bound {r['estimated']['requests']} calls,"
            f" {r['estimated']['fields']:,} fields",
            f"{r['median_ms']:.1f} ms ({r['first_ms']:.0f} ms the first time)",
            ", ".join(map(str, r["healthz_meanwhile"])),
        ]
        for label, r in (
            ("nested orders, 3 levels", results["nested_bomb"]),
            ("fragments doubling 40 times", results["fragments_2_40"]),
        )
    ]
    page = results["orders_page"]
    return "\n".join(
        [
            report.markdown_table(["document", "answer", "refused in", "/healthz meanwhile"], rows),
            "",
            report.markdown_table(
                ["orders page (20)", "request", "bound, cached", "share of the request"],
                [
                    [
                        "median",
                        f"{page['request_median_ms']:.1f} ms",
                        f"{page['bound_cached_ms']:.4f} ms",
                        f"{page['overhead_of_request']:.3%}",
                    ]
                ],
            ),
        ]
    )


add_arguments = arguments(Option("--requests", positive_int, 300, "orders pages timed"))


def run(args: argparse.Namespace, context: Context) -> int:
    results = context.on_table(TABLE, measure, args.requests)
    context.publish("demand", results, {"requests": args.requests}, markdown)
    return 0


BENCHMARK = Benchmark(
    "demand",
    "what demand control costs: refusing query bombs, bounding every request (seconds)",
    __doc__ or "",
    add_arguments,
    run,
    quick={"requests": 30},
)
