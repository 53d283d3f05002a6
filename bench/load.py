"""A bounded closed-loop load generator: `concurrency` workers, each one request at a time."""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field

import httpx


@dataclass
class Round:
    """What one round against one server measured."""

    server: str
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    failures: int = 0

    @property
    def requests(self) -> int:
        return len(self.latencies_ms)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (`q` in 0..100) of `values`; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def client(concurrency: int) -> httpx.AsyncClient:
    """A keep-alive client with one connection per worker, ignoring any proxy settings."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    return httpx.AsyncClient(limits=limits, timeout=30.0, trust_env=False)


async def run_round(
    http: httpx.AsyncClient, server: str, url: str, body: bytes, concurrency: int, seconds: float
) -> Round:
    """POST `body` to `url` from `concurrency` workers until `seconds` have passed.

    A request fails when it raises, is not a 200 or its body holds GraphQL errors;
    only successful requests count towards throughput and latency.
    """
    result = Round(server)
    headers = {"content-type": "application/json"}
    start = time.perf_counter()
    deadline = start + seconds

    async def worker() -> None:
        while (sent := time.perf_counter()) < deadline:
            try:
                response = await http.post(url, content=body, headers=headers)
            except httpx.HTTPError:
                result.failures += 1
                continue
            elapsed = time.perf_counter() - sent
            if response.status_code == 200 and b'"errors"' not in response.content:
                result.latencies_ms.append(elapsed * 1000)
            else:
                result.failures += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    result.seconds = time.perf_counter() - start
    return result
