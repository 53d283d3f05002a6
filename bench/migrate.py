"""What a migration costs the gateway, and how fast it goes within its budget.

Starts DynamoDB Local, loads `--items` events of `bench/events_v1.py` (a table with GSI1
only), then serves the changed model (`bench/events_v2.py`: a new index GSI2 and a new
`level`) in this process, as a deployment does before it migrates, and measures, side by
side in one run:

- the gateway's latency (p50, p99) under a steady load of lookups and list pages, first
  with nothing else running, then while `dynagate migrate apply --max-wcu N` runs in its
  own process (the index added, then every event given its GSI2 keys and `level`): their
  ratio is what the migration costs the gateway's clients;
- the migration's items a second and write units a second, against its budget N;
- that `dynagate migrate plan` then finds nothing to change.

Writes migrate.json and migrate.md. Exits 0 whatever the figures (it is a report), 1 when
the migration did not finish or left items.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx

from bench import events_v1, report
from bench.arguments import Option, arguments, positive_int
from bench.harness import Benchmark, Context, Progress, Table, in_process
from bench.scale_write import load, open_client
from data.entities import stored
from store.tables import create_table

ROOT = Path(__file__).parents[1]
DYNAGATE = str(Path(sys.executable).with_name("dynagate"))
TABLE = "bench-migrate"
NEW = "bench.events_v2"
STREAMS = 100
CONCURRENCY = 4
LOOKUP = "query ($id: ID!) { event(id: $id) { id kind seq } }"
PAGE = "query ($id: ID!) { stream(id: $id) { events(first: 20) { edges { node { id seq } } } } }"


def event_items(count: int) -> list[dict[str, Any]]:
    """`count` events of the old model, spread over the streams, as its writes store them."""
    draw = random.Random(7)
    items = []
    for n in range(STREAMS):
        stream = {"id": f"s{n:03d}", "name": f"stream {n}"}
        keys = events_v1.STREAM.item_keys(stream)
        items.append({**keys, "type": "STREAM", **stored(events_v1.STREAM, stream)})
    for n in range(count):
        values: dict[str, Any] = {
            "id": f"e{n:07d}",
            "streamId": f"s{n % STREAMS:03d}",
            "kind": draw.choice(list(events_v1.Kind)),
            "seq": n,
        }
        keys = events_v1.EVENT.item_keys(values)
        items.append({**keys, "type": "EVENT", **stored(events_v1.EVENT, values)})
    return items


async def steady_load(
    http: httpx.AsyncClient, count: int, until: asyncio.Event | float
) -> list[float]:
    """Latencies (ms) of lookups and pages, `CONCURRENCY` at a time, until `until` is set
    (or for `until` seconds)."""
    draw = random.Random(3)
    latencies: list[float] = []
    deadline = time.monotonic() + until if isinstance(until, float) else None

    def over() -> bool:
        if isinstance(until, asyncio.Event):
            return until.is_set()
        return deadline is not None and time.monotonic() >= deadline

    async def client() -> None:
        while not over():
            if draw.random() < 0.5:
                query, variables = LOOKUP, {"id": f"e{draw.randrange(count):07d}"}
            else:
                query, variables = PAGE, {"id": f"s{draw.randrange(STREAMS):03d}"}
            started = time.perf_counter()
            response = await http.post("/graphql", json={"query": query, "variables": variables})
            latencies.append((time.perf_counter() - started) * 1000)
            body = response.json()
            if response.status_code != 200 or body.get("errors"):
                raise RuntimeError(f"the gateway answered {response.status_code}: {body}")

    await asyncio.gather(*(client() for _ in range(CONCURRENCY)))
    return latencies


def summary(latencies: list[float]) -> dict[str, Any]:
    return {
        "requests": len(latencies),
        "p50_ms": statistics.median(latencies),
        "p99_ms": report.percentile(latencies, 99),
    }


async def migrate_while_serving(
    table: Table, count: int, max_wcu: int, before_seconds: float, say: Progress
) -> dict[str, Any]:
    async with open_client(table.endpoint) as client:
        await create_table(client, table.name, layout=events_v1.MODEL.table_layout, stream=False)
        say(f"loading {count:,} events of the old model")
        loaded = await load(client, table.name, event_items(count), say)
        say(f"loaded {loaded.items:,} items in {loaded.seconds:.0f} s")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DYNAGATE_")},
        **table.env,
        "DYNAGATE_MODEL": NEW,
        "PYTHONPATH": str(ROOT),
    }
    async with in_process(replace(table.settings, model=NEW)) as http:
        await steady_load(http, count, 2.0)  # warm: connections, caches
        say(f"the gateway alone for {before_seconds:.0f} s")
        before = await steady_load(http, count, before_seconds)
        say(f"migrate apply --max-wcu {max_wcu}, the gateway serving meanwhile")
        done = asyncio.Event()
        started = time.monotonic()
        process = await asyncio.create_subprocess_exec(
            DYNAGATE,
            "migrate",
            "apply",
            "--max-wcu",
            str(max_wcu),
            env=env,
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )

        async def migration() -> bytes:
            output, _ = await process.communicate()
            done.set()
            return output

        output, during = await asyncio.gather(migration(), steady_load(http, count, done))
        seconds = time.monotonic() - started
    text = output.decode()
    say(text.strip().splitlines()[-2] if text.strip() else "no output")
    spent = re.search(r"([\d,]+) write units in ([\d,.]+) s", text)
    written = sum(int(n.replace(",", "")) for n in re.findall(r"([\d,]+) items written", text))
    units, item_seconds = (
        (float(spent[1].replace(",", "")), float(spent[2].replace(",", ""))) if spent else (0, 0)
    )
    planned = await asyncio.create_subprocess_exec(
        DYNAGATE,
        "migrate",
        "plan",
        env=env,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    plan_output, _ = await planned.communicate()
    alone, meanwhile = summary(before), summary(during)
    return {
        "items": count + STREAMS,
        "migration": {
            "exit_code": process.returncode,
            "seconds": seconds,
            "item_seconds": item_seconds,
            "items_written": written,
            "items_per_second": written / item_seconds if item_seconds else None,
            "write_units": units,
            "write_units_per_second": units / item_seconds if item_seconds else None,
            "max_wcu": max_wcu,
            "plan_after": plan_output.decode().strip().splitlines()[-1:],
            "plan_exit_code": planned.returncode,
        },
        "gateway_alone": alone,
        "gateway_during": meanwhile,
        "p99_ratio": meanwhile["p99_ms"] / alone["p99_ms"],
        "p50_ratio": meanwhile["p50_ms"] / alone["p50_ms"],
    }


def markdown(results: dict[str, Any]) -> str:
    migration = results["migration"]
    alone, during = results["gateway_alone"], results["gateway_during"]
    return "\n".join(
        [
            report.markdown_table(
                ["items", "written", "items/s", "write units/s", "budget", "took"],
                [
                    [
                        f"{results['items']:,}",
                        f"{migration['items_written']:,}",
                        f"{migration['items_per_second'] or 0:,.0f}",
                        f"{migration['write_units_per_second'] or 0:,.0f}",
                        f"{migration['max_wcu']:,}",
                        f"{migration['seconds']:,.0f} s",
                    ]
                ],
            ),
            "",
            report.markdown_table(
                ["gateway", "requests", "p50", "p99"],
                [
                    ["alone", f"{alone['requests']:,}", *_ms(alone)],
                    ["during the migration", f"{during['requests']:,}", *_ms(during)],
                    ["ratio", "", f"{results['p50_ratio']:.2f}", f"{results['p99_ratio']:.2f}"],
                ],
            ),
        ]
    )


def _ms(figures: dict[str, Any]) -> list[str]:
    return [f"{figures['p50_ms']:.1f} ms", f"{figures['p99_ms']:.1f} ms"]


add_arguments = arguments(
    Option("--items", positive_int, 100_000, "events", shown="10^5"),
    Option("--max-wcu", positive_int, 1000, "the migration's budget"),
    Option("--before", float, 20.0, "seconds of the gateway alone"),
)


def run(args: argparse.Namespace, context: Context) -> int:
    results = context.on_table(TABLE, migrate_while_serving, args.items, args.max_wcu, args.before)
    config = {"items": args.items, "max_wcu": args.max_wcu, "before_seconds": args.before}
    context.publish("migrate", results, config, markdown)
    migration = results["migration"]
    return int(migration["exit_code"] != 0 or migration["plan_exit_code"] != 0)


BENCHMARK = Benchmark(
    "migrate",
    "a migration of 10^5 items: items/s, its write budget, the gateway's p99 meanwhile",
    __doc__ or "",
    add_arguments,
    run,
    quick={"items": 2_000, "max_wcu": 400, "before": 3.0},
)
