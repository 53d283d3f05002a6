"""Subscriptions: how soon a write reaches its subscribers, and what following a list costs
against polling it.

Starts DynamoDB Local, creates the table (its stream on) and serves the gateway as its own
uvicorn process. For each fan-out (1, 100 and 1,000 subscribers by default) it opens that
many sockets from this process, each subscribed to the same repository's issues, then opens
issues through the gateway one after another and records, for every subscriber, the time
from the write's answer to the event's arrival: p50 and p99 over every delivery.

The read cost compares one subscriber following the issues for an hour with one client
asking for their first page every 5 s: the stream reads the gateway made meanwhile
(`dynagate_dynamodb_requests_total` of /metrics: GetRecords and the rest, shared by every
subscriber of the process), scaled to an hour, against 720 Queries an hour and the read
capacity each one consumed (its `extensions.cost`). Sockets come from one address, so the
gateway runs with `DYNAGATE_MAX_CONNECTIONS` raised above the largest fan-out.

Writes live.json and live.md. Exits 0 whatever the figures (it is a report).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.typing import Subprotocol

from bench import report
from bench.arguments import Option, arguments, positive_int
from bench.harness import Benchmark, Context, Progress, Table
from bench.servers import GATEWAY, serving

TABLE = "bench-live"
OWNER, NAME = "bench", "live"
SUBSCRIPTION = (
    f'subscription {{ issueChanges(owner: "{OWNER}", name: "{NAME}") {{ kind number }} }}'
)
OPEN = (
    f'mutation {{ openIssue(input: {{owner: "{OWNER}", name: "{NAME}", title: "t"}})'
    " { number } }"
)
PAGE = (
    f'{{ repo(owner: "{OWNER}", name: "{NAME}") {{ issues(first: 20) {{ edges {{ node'
    " { number title state } } } } }"
)
PROTOCOL = Subprotocol("graphql-transport-ws")
POLL_SECONDS = 5.0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class Subscriber:
    """One socket, subscribed; notes when each issue number reached it."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.arrived: dict[int, float] = {}

    @classmethod
    async def open(cls, url: str) -> Subscriber:
        socket = await websockets.connect(url, subprotocols=[PROTOCOL], max_queue=None)
        await socket.send(json.dumps({"type": "connection_init", "payload": {}}))
        acknowledged = json.loads(await socket.recv())
        if acknowledged.get("type") != "connection_ack":
            raise RuntimeError(f"the socket was not acknowledged: {acknowledged}")
        payload = {"query": SUBSCRIPTION}
        await socket.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        return cls(socket)

    async def listen(self) -> None:
        async for raw in self.socket:
            message = json.loads(raw)
            if message.get("type") == "ping":
                await self.socket.send(json.dumps({"type": "pong"}))
            elif message.get("type") == "next":
                number = message["payload"]["data"]["issueChanges"]["number"]
                self.arrived.setdefault(number, time.perf_counter())
            elif message.get("type") in ("error", "complete"):
                raise RuntimeError(f"the subscription ended: {message}")


def scraped(text: str, name: str) -> dict[str, float]:
    """The samples of one metric, by their labels."""
    found = {}
    for line in text.splitlines():
        match = re.match(rf"{re.escape(name)}(\{{.*\}})? (\S+)$", line)
        if match:
            found[match.group(1) or ""] = float(match.group(2))
    return found


async def stream_calls(http: httpx.AsyncClient) -> float:
    """Every call of the stream's API the gateway has made so far."""
    samples = scraped((await http.get("/metrics")).text, "dynagate_dynamodb_requests_total")
    stream = ("GetRecords", "GetShardIterator", "DescribeStream", "ListStreams")
    return sum(v for labels, v in samples.items() if any(f'"{op}"' in labels for op in stream))


async def until_active(http: httpx.AsyncClient, count: int, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while True:
        text = (await http.get("/metrics")).text
        if scraped(text, "dynagate_subscriptions_active").get("", 0) >= count:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{count} subscriptions did not start within {seconds:.0f} s")
        await asyncio.sleep(0.2)


async def fan_out(
    http: httpx.AsyncClient, ws_url: str, count: int, writes: int, say: Progress
) -> dict[str, Any]:
    say(f"{count} subscribers: connecting …")
    subscribers = []
    for start in range(0, count, 50):  # a handful at once, as clients arrive
        batch = range(start, min(count, start + 50))
        subscribers += await asyncio.gather(*(Subscriber.open(ws_url) for _ in batch))
    listening = [asyncio.create_task(s.listen()) for s in subscribers]
    await until_active(http, count)
    await asyncio.sleep(1.0)
    say(f"{count} subscribers: {writes} writes …")
    written: dict[int, float] = {}
    for _ in range(writes):
        answer = (await http.post("/graphql", json={"query": OPEN})).json()
        written[answer["data"]["openIssue"]["number"]] = time.perf_counter()
        await asyncio.sleep(0.25)
    deadline = time.monotonic() + 30
    while any(len(s.arrived.keys() & written.keys()) < writes for s in subscribers):
        if time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    delays = [
        (s.arrived[n] - at) * 1000
        for s in subscribers
        for n, at in written.items()
        if n in s.arrived
    ]
    for task in listening:
        task.cancel()
    await asyncio.gather(*(s.socket.close() for s in subscribers), return_exceptions=True)
    expected = writes * count
    return {
        "subscribers": count,
        "writes": writes,
        "deliveries": len(delays),
        "missing": expected - len(delays),
        "p50_ms": round(percentile(delays, 0.5), 1) if delays else None,
        "p99_ms": round(percentile(delays, 0.99), 1) if delays else None,
        "max_ms": round(max(delays), 1) if delays else None,
    }


async def read_cost(
    http: httpx.AsyncClient, ws_url: str, seconds: float, say: Progress
) -> dict[str, Any]:
    """One subscriber for `seconds` (one write a second) against polling every 5 s."""
    say(f"read cost: one subscriber for {seconds:.0f} s …")
    subscriber = await Subscriber.open(ws_url)
    listening = asyncio.create_task(subscriber.listen())
    await until_active(http, 1)
    before = await stream_calls(http)
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        await http.post("/graphql", json={"query": OPEN})
        await asyncio.sleep(1.0)
    elapsed = time.monotonic() - started
    calls = await stream_calls(http) - before
    listening.cancel()
    await subscriber.socket.close()
    page = (await http.post("/graphql", json={"query": PAGE})).json()
    if "errors" in page or not page["extensions"]["cost"]["requests"]:
        raise RuntimeError(f"the page answered {page}")
    cost = page["extensions"]["cost"]
    polls = 3600 / POLL_SECONDS
    return {
        "seconds": round(elapsed, 1),
        "stream_calls_per_hour": round(calls * 3600 / elapsed),
        "poll_queries_per_hour": round(polls),
        "poll_read_units_per_hour": round(polls * cost["readCapacityUnits"], 1),
        "poll_read_units_each": cost["readCapacityUnits"],
    }


async def measure(
    table: Table, fan_outs: list[int], writes: int, cost_seconds: float, say: Progress
) -> dict[str, Any]:
    say(f"table: {await table.create()}")
    env = {**table.env, "DYNAGATE_MAX_CONNECTIONS": str(max(fan_outs) + 10)}
    results: dict[str, Any] = {"fan_out": []}
    with serving(GATEWAY, env) as server:
        ws_url = server.url.replace("http://", "ws://") + "/graphql"
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            create = (
                f'mutation {{ createRepo(input: {{owner: "{OWNER}", name: "{NAME}"}}) {{ name }} }}'
            )
            await http.post("/graphql", json={"query": create})
            for count in fan_outs:
                row = await fan_out(http, ws_url, count, writes, say)
                say(f"{count} subscribers: p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms")
                results["fan_out"].append(row)
            results["read_cost"] = await read_cost(http, ws_url, cost_seconds, say)
    return results


def markdown(results: dict[str, Any]) -> str:
    rows = [
        [
            f"{r['subscribers']:,}",
            f"{r['deliveries']:,} of {r['subscribers'] * r['writes']:,}",
            f"{r['p50_ms']} ms",
            f"{r['p99_ms']} ms",
            f"{r['max_ms']} ms",
        ]
        for r in results["fan_out"]
    ]
    cost = results["read_cost"]
    return "\n".join(
        [
            report.markdown_table(
                ["subscribers", "events delivered", "delay p50", "delay p99", "delay max"], rows
            ),
            "",
            report.markdown_table(
                ["following a repository's issues for an hour", "DynamoDB calls", "read units"],
                [
                    [
                        "subscribed (the process's stream reads, shared by all its subscribers)",
                        f"{cost['stream_calls_per_hour']:,}",
                        "0 (stream reads are not read units)",
                    ],
                    [
                        f"polling its first page every {POLL_SECONDS:g} s (each client)",
                        f"{cost['poll_queries_per_hour']:,}",
                        f"{cost['poll_read_units_per_hour']:,}",
                    ],
                ],
            ),
        ]
    )


add_arguments = arguments(
    Option("--subscribers", positive_int, [1, 100, 1000], "fan-outs measured", nargs="+"),
    Option("--writes", positive_int, 20, "writes per fan-out"),
    Option("--cost-seconds", positive_int, 60, "seconds the read cost is measured over"),
)


def run(args: argparse.Namespace, context: Context) -> int:
    fan_outs, cost_seconds = list(args.subscribers), float(args.cost_seconds)
    results = context.on_table(TABLE, measure, fan_outs, args.writes, cost_seconds)
    config = {
        "subscribers": list(args.subscribers),
        "writes": args.writes,
        "cost_seconds": args.cost_seconds,
    }
    context.publish("live", results, config, markdown)
    return 0


BENCHMARK = Benchmark(
    "live",
    "subscriptions: delay from a write to 1, 100 and 1,000 subscribers, and the read cost"
    " against polling (about 3 minutes)",
    __doc__ or "",
    add_arguments,
    run,
    quick={"subscribers": [1, 5], "writes": 3, "cost_seconds": 3},
)
