"""The client of the table: every read and write of a GraphQL request goes through here.

A `Store` is cheap: it pairs the client opened once in the application lifespan with the
cost report of one GraphQL request (`store/calls.py`). Botocore retries throttled calls
(standard mode); the store adds retries for unprocessed BatchGetItem keys. Its writes are
in `store/writes.py`.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from errors.vocabulary import Unavailable
from keys.conditions import KeyCondition
from keys.table import Index
from store.cache import dependencies as read_dependencies
from store.cache.memory import Dependency
from store.cache.reads import (
    BatchTickets,
    CachedReads,
    item_cache_key,
    item_dependency,
    query_answer,
    query_cache_key,
    read_units,
)
from store.calls import DynamoDBClient as DynamoDBClient
from store.cost import Cost
from store.requests import (
    BATCH_GET_LIMIT,
    Filter,
    Item,
    Key,
    batch_get_requests,
    from_attributes,
    get_request,
    page_key,
    query_request,
)
from store.writes import TRANSACT_CALLS as TRANSACT_CALLS
from store.writes import Writes

_UNPROCESSED_RETRIES = 8
# The most items one filtered refill asks DynamoDB to evaluate.
_MAX_REFILL = 1_000


@dataclass
class QueryResult:
    items: list[Item]
    last_key: Key | None
    # The read stopped at its budget (`max_scanned`, `max_calls`) with the range unread
    # from `last_key` on.
    stopped: bool = False


@dataclass
class ScanPage:
    items: list[Item]
    scanned: int
    # As DynamoDB returned it, to be passed back as the next page's start.
    last_key: dict[str, Any] | None


class Store(Writes):
    """The store of one GraphQL request: the calls of `Calls`, the writes of `Writes`,
    and the reads, answered from the read cache where it holds them."""

    def sibling(self, cost: Cost | None = None) -> Store:
        """A store of the same table and cache: with `cost`, counting in it."""
        return Store(
            self.client,
            self.table,
            cost=cost or Cost(),
            cache=self.cache,
            tracing=self.tracing,
            layout=self.layout,
        )

    async def query(
        self,
        condition: KeyCondition,
        *,
        forward: bool,
        limit: int | None = None,
        start_key: Key | None = None,
        filter: Filter | None = None,
        max_scanned: int | None = None,
        max_calls: int | None = None,
        consistent: bool = False,
    ) -> QueryResult:
        """Items matching `condition`, up to `limit` (all when None).

        DynamoDB stops a page at 1 MB (or at `Limit` before filtering); this goes on from
        LastEvaluatedKey until `limit` matches are in hand or the range is exhausted.
        With a filter, each refill reads as far as the hit rate so far says it must (twice
        as far as the last read while nothing matched), so a sparse stretch costs a few
        requests rather than one per item; matches past `limit` are dropped. With a budget
        (`max_scanned` items evaluated, `max_calls` calls) the read stops when it is spent
        and says so (`stopped`), `last_key` telling where to go on. `consistent` reads the
        table strongly consistent, past the read cache: for a decision before a write.
        """
        items: list[Item] = []
        scanned = read = calls = 0
        while True:
            if (max_scanned is not None and scanned >= max_scanned) or calls == max_calls:
                return QueryResult(items, start_key, stopped=True)
            remaining = None if limit is None else limit - len(items)
            if remaining is not None and filter is not None and scanned:
                remaining = _refill_limit(remaining, len(items), scanned, read)
            if max_scanned is not None:
                # DynamoDB's Limit counts the items it evaluates, before the filter.
                budget = max_scanned - scanned
                remaining = budget if remaining is None else min(remaining, budget)
            request = query_request(
                self.table,
                condition,
                forward=forward,
                limit=remaining,
                start_key=start_key,
                filter=filter,
            )
            if consistent:
                response = await self._call(self.client.query, {**request, "ConsistentRead": True})
                fresh = True
            else:
                response, fresh = await self._query_call(
                    condition, request, filtered=filter is not None
                )
            calls += 1
            page = [from_attributes(i) for i in response.get("Items", [])]
            # A page from the cache counts as DynamoDB's did, so that the read goes on as it
            # would have; only its cost is not DynamoDB's.
            read = response.get("ScannedCount", 0)
            scanned += read
            if fresh:
                self.cost.record("Query", response, scanned=read, returned=len(page))
            items.extend(page)
            raw_last = response.get("LastEvaluatedKey")
            start_key = None if raw_last is None else _key(raw_last)
            if limit is not None and len(items) > limit:
                del items[limit:]
                start_key = page_key(items[-1], self.layout.page_key_attributes(condition.index))
            if start_key is None or (limit is not None and len(items) >= limit):
                return QueryResult(items, start_key)

    async def _query_call(
        self, condition: KeyCondition, request: dict[str, Any], *, filtered: bool
    ) -> tuple[dict[str, Any], bool]:
        """One Query call's answer, and whether DynamoDB gave it (else the cache did)."""
        cache = await self.reading_cache()
        if cache is None:
            return await self._call(self.client.query, request), True
        key = query_cache_key(request)
        kept = cache.lookup(key)
        if kept is not None:
            self.cost.cached(read_units(kept))
            if self.depended is not None:
                self.depended |= _query_depends(
                    condition, kept, self.layout.table, filtered=filtered
                )
            return kept, False
        cache.note(condition.index)
        ticket = cache.begin()
        # Moments after a change of the partition, a read of the table is made consistent
        # (no index can be): kept for good rather than only for moments.
        partition = read_dependencies.partition(condition.index, condition.partition)
        consistent = condition.index.name is None and cache.settling([partition])
        try:
            sent = {**request, "ConsistentRead": True} if consistent else request
            response = await self._call(self.client.query, sent)
            depends = _query_depends(condition, response, self.layout.table, filtered=filtered)
            if self.depended is not None:
                self.depended |= depends
            if ticket is not None:
                taken, ticket = ticket, None
                answer = query_answer(response, halved=consistent)
                cache.keep(taken, key, answer, depends, consistent=consistent)  # ends the ticket
        finally:
            if ticket is not None:
                cache.end(ticket)
        return response, True

    async def get_many(self, keys: Sequence[Key]) -> list[Item]:
        """The items that exist among `keys`, in no particular order (BatchGetItem)."""
        cache = await self.reading_cache()
        found: list[Item] = []
        wanted = list(keys)
        if self.depended is not None:
            self.depended.update(item_dependency(key, self.layout.table) for key in keys)
        if cache is not None:
            wanted, found = self._kept_items(cache, keys)
        if not wanted:
            return found
        read = await asyncio.gather(
            *(self._batch_get(r) for r in batch_get_requests(self.table, wanted))
        )
        return found + [item for batch in read for item in batch]

    def _kept_items(self, cache: CachedReads, keys: Sequence[Key]) -> tuple[list[Key], list[Item]]:
        """The keys the cache does not hold, and the items it holds of the others."""
        wanted: list[Key] = []
        found: list[Item] = []
        distinct = {item_cache_key(k): k for k in keys}
        for cache_key, key in distinct.items():
            kept = cache.lookup(cache_key)
            if kept is None:
                wanted.append(key)
                continue
            item, units = kept
            self.cost.saved_read_capacity_units += units
            if item is not None:
                found.append(from_attributes(item))
        if not wanted:  # no call at all: as many as it would have made
            self.cost.cached_requests += -(-len(distinct) // BATCH_GET_LIMIT)
        return wanted, found

    async def _batch_get(self, request: dict[str, Any]) -> list[Item]:
        items: list[Item] = []
        tickets = BatchTickets(await self.reading_cache(), self.layout.table)
        if tickets.begin(request["RequestItems"][self.table]["Keys"]):
            # Moments after a change of one of them, read consistently: kept for good.
            wanted = {**request["RequestItems"][self.table], "ConsistentRead": True}
            request = {**request, "RequestItems": {self.table: wanted}}
        try:
            for attempt in range(_UNPROCESSED_RETRIES):
                response = await self._call(self.client.batch_get_item, request)
                typed = response.get("Responses", {}).get(self.table, [])
                page = [from_attributes(i) for i in typed]
                self.cost.record("BatchGetItem", response, returned=len(page))
                tickets.found(typed, page)
                items.extend(page)
                unprocessed = response.get("UnprocessedKeys") or {}
                asked = request["RequestItems"][self.table]["Keys"]
                tickets.answered(asked, (unprocessed.get(self.table) or {}).get("Keys", []))
                if not unprocessed:
                    return items
                request = {**request, "RequestItems": unprocessed}
                await asyncio.sleep(min(0.05 * 2**attempt, 1.0))
        finally:
            tickets.end()
        raise Unavailable("DynamoDB is throttling reads; try again shortly")

    async def get(self, key: Key, *, consistent: bool = False) -> Item | None:
        """One item by key; `consistent` for a read-before-write decision, which never
        uses the cache."""
        cache = None if consistent else await self.reading_cache()
        cache_key = item_cache_key(key)
        if self.depended is not None:
            self.depended.add(item_dependency(key, self.layout.table))
        if cache is not None and (kept := cache.lookup(cache_key)) is not None:
            typed, units = kept
            self.cost.cached(units)
            return None if typed is None else from_attributes(typed)
        ticket = None if cache is None else cache.begin()
        depends = [item_dependency(key, self.layout.table)]
        # Moments after a change of the item, read consistently: kept for good.
        settling = cache is not None and cache.settling(depends)
        request = get_request(self.table, key, consistent=consistent or settling)
        try:
            response = await self._call(self.client.get_item, request)
            item = response.get("Item")
            self.cost.record("GetItem", response, returned=0 if item is None else 1)
            if cache is not None and ticket is not None:
                kept, ticket = ticket, None
                units = read_units(response) / (2 if settling else 1)
                cache.keep(kept, cache_key, (item, units), depends, consistent=settling)
        finally:
            if cache is not None and ticket is not None:
                cache.end(ticket)
        return None if item is None else from_attributes(item)

    async def scan(self, request: dict[str, Any]) -> ScanPage:
        """One page of a Scan (`scan_request`): admin tools only."""
        response = await self._call(self.client.scan, request)
        items = [from_attributes(i) for i in response.get("Items", [])]
        scanned = response.get("ScannedCount", 0)
        self.cost.record("Scan", response, scanned=scanned, returned=len(items))
        return ScanPage(items, scanned, response.get("LastEvaluatedKey"))


def _query_depends(
    condition: KeyCondition, answer: Mapping[str, Any], table: Index, *, filtered: bool
) -> set[Dependency]:
    """What a Query's answer (DynamoDB's typed one) depends on."""
    keys = [from_attributes({k: i[k] for k in table.attributes}) for i in answer.get("Items", [])]
    return read_dependencies.of_query(condition, keys, table, filtered=filtered)


def _refill_limit(remaining: int, matched: int, scanned: int, last_read: int) -> int:
    if matched == 0:
        return min(max(remaining, 2 * last_read), _MAX_REFILL)
    return min(max(remaining, math.ceil(remaining * scanned / matched)), _MAX_REFILL)


def _key(attributes: Mapping[str, Any]) -> Key:
    return {name: str(value) for name, value in from_attributes(attributes).items()}
