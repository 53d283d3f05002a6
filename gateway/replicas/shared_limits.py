"""Rate-limit buckets shared by every process and replica through Redis
(docs/demand-control.md#rate-limit).

One round trip per request: at admission, a script (atomic in Redis) refills the caller's
bucket by Redis's own clock, takes what this process has drawn for the caller since its
last round trip (its debt: what requests and subscription events consumed, known only once
they are done), and returns what is left. A caller's debt this process has not sent yet is
sent within a second (`flush`), so a caller who moves to another replica finds it drawn.

Redis failing (unreachable, refusing, or slower than half a second) does not stop a
request: the process's own buckets (`RateLimiter`, always kept) decide meanwhile, the
failure is logged once and counted, and Redis is tried again after a few seconds. What was
owed before it failed waits for its return; what is spent meanwhile is limited by the
process's buckets and not owed again.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from gateway.demand.ratelimit import RateLimiter, capacity_units
from store.cost import Cost

logger = logging.getLogger("dynagate")
PREFIX = "dynagate:bucket:"
# Seconds during which a failed Redis is not asked again: the process's buckets decide.
RETRY_SECONDS = 5.0
# The most a request waits for Redis before going on without it.
REDIS_SECONDS = 0.5
FLUSH_SECONDS = 1.0

# KEYS[1] the bucket; ARGV limit, refill per second, debt. Returns what is left (below zero
# when the caller consumed more than it held). A bucket refilled to full is deleted, and
# each expires once it would be full anyway: an unknown caller has a full bucket.
_TAKE = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
local limit, rate, debt = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(stored[1]) or limit
local at = tonumber(stored[2]) or t
tokens = math.min(limit, tokens + math.max(0, t - at) * rate) - debt
if tokens >= limit then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(t))
  redis.call('EXPIRE', KEYS[1], math.ceil((limit - tokens) / rate) + 1)
end
return tostring(tokens)
"""

# Errors of a Redis that cannot answer now (redis-py raises its own, or the socket's).
FAILURES = (RedisError, OSError, asyncio.TimeoutError)


class SharedRateLimiter(RateLimiter):
    """`RateLimiter`'s buckets kept in Redis; its own, per process, while Redis fails.
    Requests in flight are still counted per process."""

    def __init__(
        self,
        limit: float,
        redis: Redis,
        *,
        on_failure: Callable[[], None] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(limit, **options)
        self.redis = redis
        self.take = redis.register_script(_TAKE)
        self.on_failure = on_failure
        self.debts: dict[str, float] = {}
        # Each caller's bucket as Redis last told it, and when (this process's clock).
        self.known: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self.down_until: float | None = None

    @property
    def degraded(self) -> bool:
        """Redis failed lately: the process's own buckets decide."""
        return self.down_until is not None

    async def check(self, caller: str) -> int | None:
        now = self.clock()
        if self.down_until is not None and now < self.down_until:
            return self.admit(caller)
        debt = self.debts.pop(caller, 0.0)
        try:
            tokens = await self._take(caller, debt)
        except FAILURES as exc:
            self._owe(caller, debt)
            self._failed(exc)
            return self.admit(caller)
        self._recovered()
        self._know(caller, tokens, now)
        if tokens <= 0:
            return math.floor(-tokens / self.per_second) + 1
        if self._running.get(caller, 0) >= self.max_in_flight:
            return 1
        self._running[caller] = self._running.get(caller, 0) + 1
        return None

    def spend(self, caller: str, units: float) -> None:
        super().spend(caller, units)  # the process's own buckets stay current
        # While Redis fails, the process's buckets limit the caller: what it spends then is
        # not owed again to Redis, which would lock it out once Redis returns.
        if units > 0 and not self.degraded:
            self._owe(caller, units)

    def budget(self, caller: str, cost: Cost) -> dict[str, float]:
        known = self.known.get(caller)
        if self.degraded or known is None:
            return super().budget(caller, cost)
        tokens, at = known
        refilled = min(self.limit, tokens + (self.clock() - at) * self.per_second)
        left = refilled - self.debts.get(caller, 0.0) - capacity_units(cost)
        return {
            "limit": float(self.limit),
            "remaining": round(max(left, 0.0), 4),
            "resetSeconds": round((self.limit - left) / self.per_second, 3),
        }

    async def flush(self) -> None:
        """Send every debt this process holds (one pipeline); kept for later on failure."""
        if not self.debts or (self.down_until is not None and self.clock() < self.down_until):
            return
        debts, self.debts = self.debts, {}
        try:
            async with asyncio.timeout(REDIS_SECONDS), self.redis.pipeline(False) as pipe:
                for caller, debt in debts.items():
                    await self.take(keys=[PREFIX + caller], args=self._args(debt), client=pipe)
                left = await pipe.execute()
        except FAILURES as exc:
            for caller, debt in debts.items():
                self._owe(caller, debt)
            self._failed(exc)
            return
        self._recovered()
        now = self.clock()
        for caller, tokens in zip(debts, left, strict=True):
            self._know(caller, float(tokens), now)

    async def flushing(self) -> None:
        """`flush` every second, until cancelled."""
        while True:
            await asyncio.sleep(FLUSH_SECONDS)
            await self.flush()

    def _know(self, caller: str, tokens: float, now: float) -> None:
        """What Redis said of `caller`'s bucket, for its budget; the least recently told
        forgotten past `max_callers`."""
        self.known.pop(caller, None)
        self.known[caller] = (tokens, now)
        while len(self.known) > self.max_callers:
            self.known.popitem(last=False)

    async def _take(self, caller: str, debt: float) -> float:
        async with asyncio.timeout(REDIS_SECONDS):
            return float(await self.take(keys=[PREFIX + caller], args=self._args(debt)))

    def _args(self, debt: float) -> list[float]:
        return [float(self.limit), self.per_second, debt]

    def _owe(self, caller: str, units: float) -> None:
        # More than a whole bucket only empties it: the wait is the same.
        self.debts[caller] = min(self.debts.get(caller, 0.0) + units, 2 * self.limit)

    def _failed(self, exc: BaseException) -> None:
        if self.down_until is None:
            logger.warning(
                "Redis is unreachable (%s): rate limits are per process until it returns", exc
            )
        self.down_until = self.clock() + RETRY_SECONDS
        if self.on_failure is not None:
            self.on_failure()

    def _recovered(self) -> None:
        if self.down_until is not None:
            logger.info("Redis answers again: rate limits are shared again")
            self.down_until = None
