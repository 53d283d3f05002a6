"""The rate limit: a token bucket of DynamoDB capacity units per caller, per process."""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import HTTPConnection

from data.callers import Caller
from store.cost import Cost


def bucket(request: HTTPConnection, caller: Caller) -> str:
    """Whose bucket a request draws from: the signed-in subject's, else its address's."""
    if caller.key is not None:
        return f"user:{caller.key}"
    return address(request)


def address(request: HTTPConnection) -> str:
    """The client's address ("" when unknown), or for IPv6 its /64 network, which one
    host commonly holds whole.

    Behind a proxy this is the address uvicorn reads from `X-Forwarded-For`, which it does
    for the proxies listed in `FORWARDED_ALLOW_IPS`.
    """
    host = request.client.host if request.client is not None else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.version == 6 and address.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{host}/64", strict=False))
    return host


def capacity_units(cost: Cost) -> float:
    return cost.read_capacity_units + cost.write_capacity_units


@dataclass(slots=True)
class _Bucket:
    tokens: float  # below zero when the last requests consumed more than was left
    at: float  # the clock when `tokens` was counted


class RateLimiter:
    """Buckets of `limit` capacity units, each refilled continuously at `limit` a minute.

    A request is let in while its caller's bucket holds anything, and draws what it
    consumed once it is done: that is known only then, so the bucket may end below zero
    and stay empty until refilled. So that many requests at once cannot all be let in
    before the first is drawn, a caller has at most `max_in_flight` requests running. A
    full bucket is what an unknown caller gets, so full ones are forgotten; past
    `max_callers` the least recently seen are forgotten too.
    """

    def __init__(
        self,
        limit: float,
        *,
        max_callers: int = 100_000,
        max_in_flight: int = 8,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.per_second = limit / 60
        self.max_callers = max_callers
        self.max_in_flight = max_in_flight
        self.clock = clock
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self._running: dict[str, int] = {}

    def __len__(self) -> int:
        """How many callers are remembered: those whose bucket is not full."""
        return len(self._buckets)

    def retry_after(self, caller: str) -> int | None:
        """Whole seconds until `caller`'s bucket holds something again; None if it does."""
        tokens = self._tokens(caller, self.clock())
        if tokens > 0:
            return None
        return math.floor(-tokens / self.per_second) + 1

    async def check(self, caller: str) -> int | None:
        """`admit`, where the buckets may live elsewhere (`gateway/replicas/shared_limits.py`)."""
        return self.admit(caller)

    def admit(self, caller: str) -> int | None:
        """Let a request of `caller` in (None), or the whole seconds it should wait."""
        wait = self.retry_after(caller)
        if wait is None and self._running.get(caller, 0) >= self.max_in_flight:
            wait = 1
        if wait is None:
            self._running[caller] = self._running.get(caller, 0) + 1
        return wait

    def draw(self, caller: str, units: float) -> None:
        """Take the capacity units a request of `caller` let in by `admit` consumed."""
        running = self._running.pop(caller, 0) - 1
        if running > 0:
            self._running[caller] = running
        self.spend(caller, units)

    def spend(self, caller: str, units: float) -> None:
        """Take `units` from `caller`'s bucket (a subscription's event: no request let in)."""
        now = self.clock()
        tokens = self._tokens(caller, now) - units
        self._buckets.pop(caller, None)
        if tokens < self.limit:
            self._buckets[caller] = _Bucket(tokens, now)
        self._forget(now)

    def budget(self, caller: str, cost: Cost) -> dict[str, float]:
        """`extensions.cost.budget`: `caller`'s bucket once `cost` is drawn from it."""
        tokens = self._tokens(caller, self.clock()) - capacity_units(cost)
        return {
            "limit": float(self.limit),
            "remaining": round(max(tokens, 0.0), 4),
            "resetSeconds": round((self.limit - tokens) / self.per_second, 3),
        }

    def _tokens(self, caller: str, now: float) -> float:
        bucket = self._buckets.get(caller)
        return self.limit if bucket is None else self._refilled(bucket, now)

    def _refilled(self, bucket: _Bucket, now: float) -> float:
        return min(self.limit, bucket.tokens + (now - bucket.at) * self.per_second)

    def _forget(self, now: float) -> None:
        # Oldest draw first: the first bucket still filling up ends the sweep.
        while self._buckets:
            oldest, bucket = next(iter(self._buckets.items()))
            if len(self._buckets) <= self.max_callers and self._refilled(bucket, now) < self.limit:
                return
            del self._buckets[oldest]
