"""The shards this process reads when replicas share the stream: those whose lease it holds
(`store.stream.leases`), as the stream reader (`store.stream.reader`) asks before it polls one.

A held lease is renewed every `RENEW_SECONDS`; a lease held elsewhere is looked at as often,
and taken once free, given back, or its holder's counter stood still for a lease's time by
this process's clock. A shard taken over goes on from its checkpoint; its lease is
checkpointed once a batch is handed over, and given back once the shard is read to its end.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable

from store.stream.leases import RENEW_SECONDS, Lease, ShardLeases
from store.stream.shards import Shard

logger = logging.getLogger("dynagate")

# A shard taken over after its readers stopped a while goes on from there, but does not
# deliver changes older than this again (they would reach subscribers long after).
REPLAY_SECONDS = 60.0
# Between this process's clock and a record's time: clocks drift a few seconds, and a
# record's time is rounded down (to the second by DynamoDB, to the minute by DynamoDB
# Local), so a change is taken for older than it is by up to this much.
CLOCK_MARGIN = 65.0


class Hold(enum.Enum):
    """Whether this process reads a shard now."""

    HELD = "held"
    # Another process reads it, or it is not this process's turn to look.
    ELSEWHERE = "elsewhere"
    # Another process read it to its end: on to its children.
    ENDED = "ended"


class LeasedShards:
    """The leases this process holds, and what it knows of those others hold."""

    def __init__(self, leases: ShardLeases, clock: Callable[[], float]) -> None:
        self.leases = leases
        self._clock = clock
        # Those this process holds, when each was renewed, and when a lease is tried for
        # again.
        self.held: dict[str, Lease] = {}
        self._renewed: dict[str, float] = {}
        self._next_try: dict[str, float] = {}
        # Of leases others hold: the counter seen, and since when (this process's clock).
        self._observed: dict[str, tuple[int, float]] = {}
        # For a shard taken over with no checkpoint, the time before which its records were
        # already delivered (they are read again from its oldest record).
        self._skip_before: dict[str, float] = {}

    async def hold(self, shard: Shard) -> Hold:
        """Whether this process holds `shard`'s lease: renewed when due; taken when free,
        given back, or its holder's counter stood still for a lease's time by this
        process's clock (looked at every few seconds); reading placed where it goes on."""
        now = self._clock()  # this process's own: only its own readings are compared
        lease = self.held.get(shard.id)
        if lease is not None:
            if now - self._renewed.get(shard.id, 0.0) < RENEW_SECONDS:
                return Hold.HELD
            if await self.leases.renew(lease):
                self._renewed[shard.id] = now
                return Hold.HELD
            logger.warning("the lease of shard %s was taken over", shard.id)
            self._let_go(shard)
            return Hold.ELSEWHERE
        if now < self._next_try.get(shard.id, 0.0):
            return Hold.ELSEWHERE
        self._next_try[shard.id] = now + RENEW_SECONDS
        seen = await self.leases.look(shard.stream, shard.id)
        if seen is not None and seen.owner is not None and seen.owner != self.leases.owner:
            observed = self._observed.get(shard.id)
            if observed is None or observed[0] != seen.counter:
                self._observed[shard.id] = (seen.counter, now)  # its holder is alive
                return Hold.ELSEWHERE
            if now - observed[1] < self.leases.seconds:
                return Hold.ELSEWHERE
        taken = await self.leases.take(shard.stream, shard.id, seen, shard.start)
        if taken is None:  # another process took or renewed it meanwhile
            return Hold.ELSEWHERE
        self._observed.pop(shard.id, None)
        if taken.ended:
            await self.leases.release(taken)
            return Hold.ENDED
        if not taken.first:
            self._taken_over(shard, taken)
        self.held[shard.id] = taken
        self._renewed[shard.id] = now
        return Hold.HELD

    def skip_before(self, shard: Shard) -> float | None:
        """The time before which `shard`'s records were delivered already, if any."""
        return self._skip_before.get(shard.id)

    async def checkpoint(self, shard: Shard, *, delivered: bool, ended: bool) -> bool:
        """After a GetRecords of `shard`: its place kept when a batch was `delivered` or it
        `ended` (read to its end: the lease is given back). False when the lease was lost
        meanwhile: reading of the shard is left to its new holder."""
        lease = self.held.get(shard.id)
        if lease is None or not (delivered or ended):
            return True
        if not await self.leases.checkpoint(lease, shard.last, ended=ended):
            logger.warning("the lease of shard %s was lost while reading it", shard.id)
            self._let_go(shard)
            return False
        if ended:
            await self.leases.release(lease)
            self.held.pop(shard.id, None)
        return True

    async def release(self) -> None:
        """Give back every lease held (the process stops): others take them at once."""
        for lease in list(self.held.values()):
            try:
                await self.leases.release(lease)
            except Exception:
                logger.warning("the lease of shard %s was not given back", lease.shard)
        self.held.clear()

    def _taken_over(self, shard: Shard, lease: Lease) -> None:
        """Reading placed after the checkpoint, else at the oldest record; what was written
        before the lease's first holder began (when it began at the latest record), or
        longer ago than `REPLAY_SECONDS` (all readers stopped for a while), is not
        delivered again."""
        shard.last, shard.start, shard.iterator = lease.checkpoint, "TRIM_HORIZON", None
        skip = self._clock() - REPLAY_SECONDS - CLOCK_MARGIN
        if lease.checkpoint is None and lease.start == "LATEST":
            skip = max(skip, lease.since - CLOCK_MARGIN)
        self._skip_before[shard.id] = skip

    def _let_go(self, shard: Shard) -> None:
        self.held.pop(shard.id, None)
        self._renewed.pop(shard.id, None)
        self._skip_before.pop(shard.id, None)
        shard.iterator = None  # whoever holds it next places reading
