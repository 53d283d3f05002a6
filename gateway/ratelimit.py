"""The rate limit: a token bucket of DynamoDB capacity units per caller, per process."""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import HTTPConnection

from store.cost import Cost


def caller(request: HTTPConnection) -> str:
    """Whose bucket a request draws from: the client's address ("" when unknown).

    Behind a proxy this is the address uvicorn reads from `X-Forwarded-For`, which it does
    for the proxies listed in `FORWARDED_ALLOW_IPS`.
    """
    return request.client.host if request.client is not None else ""


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
    and stay empty until refilled. A full bucket is what an unknown caller gets, so full
    ones are forgotten; past `max_callers` the least recently seen are forgotten too.
    """

    def __init__(
        self,
        limit: float,
        *,
        max_callers: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.per_second = limit / 60
        self.max_callers = max_callers
        self.clock = clock
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def __len__(self) -> int:
        """How many callers are remembered: those whose bucket is not full."""
        return len(self._buckets)

    def retry_after(self, caller: str) -> int | None:
        """Whole seconds until `caller`'s bucket holds something again; None if it does."""
        tokens = self._tokens(caller, self.clock())
        if tokens > 0:
            return None
        return math.floor(-tokens / self.per_second) + 1

    def draw(self, caller: str, units: float) -> None:
        """Take the capacity units a request of `caller` consumed."""
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
