"""Leases of the stream's shards, held in the table (API.md section 11), as AWS's own
stream-consumer library holds them: one reader per shard across every replica.

A lease is taken where none is held, or where its holder let it lapse (a process that died
renews nothing); its holder renews it every few seconds while it reads, and keeps in it
the sequence number of the last record it delivered (the checkpoint), so that whoever takes
it over goes on from there. A holder that cannot renew stops reading the shard. Each call
is one conditional UpdateItem: the condition decides, so two takers never both win.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from keys.leases import lease_key
from keys.table import TABLE
from store.client import Store
from store.errors import ConditionFailed
from store.requests import to_attributes

# A lease lapses this long after its last renewal: a dead holder's shard is taken over
# within it and a renewal period.
LEASE_SECONDS = 10.0
# How often a holder renews, and how often a free or lapsed lease is tried for.
RENEW_SECONDS = 3.0


@dataclass
class Lease:
    stream: str
    shard: str
    until: float
    # The sequence number of the last record its holders delivered, if any.
    checkpoint: str | None
    # When the first holder began reading the shard (seconds since the epoch).
    since: float
    # The shard was read to its end: its children are to be read.
    ended: bool
    # This process took it first: nobody read the shard before.
    first: bool


class ShardLeases:
    """The leases this process (`owner`) takes, renews, checkpoints and gives back."""

    def __init__(
        self,
        store: Store,
        owner: str,
        *,
        seconds: float = LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.owner = owner
        self.seconds = seconds
        self.clock = clock

    async def take(self, stream: str, shard: str) -> Lease | None:
        """The lease of `shard`, unless another process holds it."""
        now = self.clock()
        request = self._update(
            stream,
            shard,
            "SET #owner = :me, #until = :until, #since = if_not_exists(#since, :now),"
            " #takes = if_not_exists(#takes, :zero) + :one",
            "attribute_not_exists(#pk) OR #until < :now OR #owner = :me",
            {":until": now + self.seconds, ":now": now, ":zero": 0, ":one": 1},
            names={"#since": "since", "#takes": "takes"},
        )
        try:
            item = await self.store.update(request)
        except ConditionFailed:
            return None
        return Lease(
            stream,
            shard,
            float(item["until"]),
            item.get("checkpoint"),
            float(item["since"]),
            bool(item.get("ended", False)),
            first=int(item["takes"]) == 1,
        )

    async def renew(self, lease: Lease) -> bool:
        """False when the lease was lost (it lapsed and another process took it)."""
        return await self._held(lease, "SET #until = :until", {})

    async def checkpoint(self, lease: Lease, sequence: str | None, *, ended: bool) -> bool:
        """Keep `sequence` as the place to go on from (renewing the lease too); `ended`
        when the shard was read to its end. False when the lease was lost."""
        sets = "SET #until = :until, #ended = :ended"
        values: dict[str, Any] = {":ended": ended}
        if sequence is not None:
            sets += ", #checkpoint = :checkpoint"
            values[":checkpoint"] = sequence
        lease.ended = ended
        return await self._held(lease, sets, values, checkpoint=True)

    async def release(self, lease: Lease) -> None:
        """Give the lease back at once (the process stops): another takes it without
        waiting for it to lapse."""
        lease.until = 0.0
        request = self._update(
            lease.stream,
            lease.shard,
            "SET #until = :gone",
            "#owner = :me",
            {":gone": 0},
        )
        with suppress(ConditionFailed):  # lapsed and taken already
            await self.store.update(request)

    async def _held(
        self,
        lease: Lease,
        sets: str,
        values: dict[str, Any],
        *,
        checkpoint: bool = False,
    ) -> bool:
        until = self.clock() + self.seconds
        names = {"#ended": "ended", "#checkpoint": "checkpoint"} if checkpoint else {}
        request = self._update(
            lease.stream,
            lease.shard,
            sets,
            "#owner = :me",
            {**values, ":until": until},
            names=names,
        )
        try:
            await self.store.update(request)
        except ConditionFailed:
            return False
        lease.until = until
        return True

    def _update(
        self,
        stream: str,
        shard: str,
        update: str,
        condition: str,
        values: dict[str, Any],
        *,
        names: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        used = {"#pk": TABLE.partition_key, "#owner": "owner", "#until": "until", **(names or {})}
        return {
            "TableName": self.store.table,
            "Key": to_attributes(lease_key(stream, shard)),
            "UpdateExpression": update,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": {
                k: v for k, v in used.items() if k in update or k in condition
            },
            "ExpressionAttributeValues": to_attributes({**values, ":me": self.owner}),
            "ReturnValues": "ALL_NEW",
            "ReturnConsumedCapacity": "TOTAL",
        }
