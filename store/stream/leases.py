"""Leases of the stream's shards, held in the table (docs/subscriptions.md#several-replicas),
as AWS's own stream-consumer library holds them: one reader per shard across every replica.

A lease carries a counter its holder raises at each renewal (every few seconds) and each
checkpoint (the sequence number of the last record it delivered, where whoever takes the
lease over goes on). A process that wants a held lease looks at it now and then: once the
counter has not moved for `LEASE_SECONDS` by its own clock, the holder is taken to be dead
and the lease is taken, on the condition that the counter is still the one it saw. No
machine's clock is compared with another's. A lease given back (its holder stopped) has no
owner and is taken at once. Each call is one conditional UpdateItem, or one read to look:
the condition decides, so two takers never both win.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, Literal

from keys.idempotency import EXPIRES
from keys.leases import lease_key
from store.client import Store
from store.errors import ConditionFailed
from store.requests import to_attributes

# A holder whose counter has not moved this long (three renewals missed) is taken to be
# dead: its shard is read again within it and two looks (`RENEW_SECONDS`), 10 s at most.
LEASE_SECONDS = 6.0
# How often a holder renews, and how often a held lease is looked at.
RENEW_SECONDS = 2.0
# Lease items of shards no longer read are deleted by the table's time to live.
KEPT_SECONDS = 24 * 3600

Start = Literal["LATEST", "TRIM_HORIZON"]


@dataclass
class Lease:
    stream: str
    shard: str
    counter: int
    # The sequence number of the last record its holders delivered, if any.
    checkpoint: str | None
    # When the first holder began reading the shard (seconds since the epoch), and where.
    since: float
    start: Start
    # The shard was read to its end: its children are to be read.
    ended: bool
    # This process took it first: nobody read the shard before.
    first: bool


@dataclass(frozen=True)
class Seen:
    """What a process looking at a lease saw of it."""

    owner: str | None
    counter: int


class ShardLeases:
    """The leases this process (`owner`) looks at, takes, renews, checkpoints and gives back."""

    def __init__(
        self,
        store: Store,
        owner: str,
        *,
        seconds: float = LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.table = store.layout.table
        self.owner = owner
        self.seconds = seconds
        self.clock = clock

    async def look(self, stream: str, shard: str) -> Seen | None:
        """The lease as it is now (a consistent read); None when nobody took it yet."""
        item = await self.store.get(lease_key(self.table, stream, shard), consistent=True)
        if item is None:
            return None
        return Seen(item.get("owner"), int(item.get("counter", 0)))

    async def take(self, stream: str, shard: str, seen: Seen | None, start: Start) -> Lease | None:
        """The lease of `shard`, if it is still as `seen` (None: not there at all); None
        when another process changed it since (took it, or renewed it)."""
        now = self.clock()
        condition = "attribute_not_exists(#pk)" if seen is None else "#counter = :seen"
        values: dict[str, Any] = {":now": now, ":start": start}
        if seen is not None:
            values[":seen"] = seen.counter
        request = self._update(
            stream,
            shard,
            "SET #owner = :me, #counter = if_not_exists(#counter, :zero) + :one,"
            " #since = if_not_exists(#since, :now), #start = if_not_exists(#start, :start),"
            " #expires = :expires",
            condition,
            values,
            names={"#since": "since", "#start": "start"},
        )
        try:
            item = await self.store.update(request)
        except ConditionFailed:
            return None
        return Lease(
            stream,
            shard,
            int(item["counter"]),
            item.get("checkpoint"),
            float(item["since"]),
            "LATEST" if item.get("start") == "LATEST" else "TRIM_HORIZON",
            bool(item.get("ended", False)),
            first=seen is None,
        )

    async def renew(self, lease: Lease) -> bool:
        """False when the lease was lost (another process took it)."""
        return await self._held(lease, "SET #counter = #counter + :one, #expires = :expires", {})

    async def checkpoint(self, lease: Lease, sequence: str | None, *, ended: bool) -> bool:
        """Keep `sequence` as the place to go on from (renewing the lease too); `ended`
        when the shard was read to its end. False when the lease was lost."""
        sets = "SET #counter = #counter + :one, #expires = :expires, #ended = :ended"
        values: dict[str, Any] = {":ended": ended}
        if sequence is not None:
            sets += ", #checkpoint = :checkpoint"
            values[":checkpoint"] = sequence
        lease.ended = ended
        names = {"#ended": "ended", "#checkpoint": "checkpoint"}
        return await self._held(lease, sets, values, names=names)

    async def release(self, lease: Lease) -> None:
        """Give the lease back at once (the process stops): another takes it without
        waiting for it to look dead."""
        request = self._update(
            lease.stream,
            lease.shard,
            "REMOVE #owner SET #counter = #counter + :one",
            "#owner = :me",
            {},
        )
        with suppress(ConditionFailed):  # taken over already
            await self.store.update(request)

    async def _held(
        self,
        lease: Lease,
        sets: str,
        values: dict[str, Any],
        *,
        names: dict[str, str] | None = None,
    ) -> bool:
        request = self._update(lease.stream, lease.shard, sets, "#owner = :me", values, names=names)
        try:
            item = await self.store.update(request)
        except ConditionFailed:
            return False
        lease.counter = int(item["counter"])
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
        used = {
            "#pk": self.table.partition_key,
            "#owner": "owner",
            "#counter": "counter",
            "#expires": EXPIRES,
            **(names or {}),
        }
        text = f"{update} {condition}"
        every = {
            **values,
            ":me": self.owner,
            ":zero": 0,
            ":one": 1,
            ":expires": int(self.clock()) + KEPT_SECONDS,
        }
        return {
            "TableName": self.store.table,
            "Key": to_attributes(lease_key(self.table, stream, shard)),
            "UpdateExpression": update,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": {k: v for k, v in used.items() if _uses(text, k)},
            # DynamoDB refuses values an expression does not use.
            "ExpressionAttributeValues": to_attributes(
                {k: v for k, v in every.items() if _uses(text, k)}
            ),
            "ReturnValues": "ALL_NEW",
            "ReturnConsumedCapacity": "TOTAL",
        }


def _uses(text: str, name: str) -> bool:
    """Whether `text` names the placeholder `name` (not merely one that starts like it)."""
    at = text.find(name)
    while at != -1:
        after = at + len(name)
        if after == len(text) or not (text[after].isalnum() or text[after] == "_"):
            return True
        at = text.find(name, after)
    return False
