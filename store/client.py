"""The client of the table: every read and write of a GraphQL request goes through here.

A `Store` is cheap: it pairs the client opened once in the application lifespan with the
cost report of one GraphQL request. Botocore retries throttled calls (standard mode);
the store adds retries for unprocessed BatchGetItem keys and maps botocore's errors to
the product's own (`store.errors`).
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from keys.conditions import KeyCondition
from keys.errors import Conflict, Unavailable
from store import witness
from store.cost import Cost, Operation
from store.errors import (
    UNREACHABLE,
    BoundExceeded,
    ConditionFailed,
    TransactionCanceled,
    mapped,
)
from store.requests import (
    Filter,
    Item,
    Key,
    batch_get_requests,
    from_attributes,
    get_request,
    page_key,
    query_request,
    transaction_update,
)
from store.witness import Intent, Witness

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient as DynamoDBClient
else:
    DynamoDBClient = Any

logger = logging.getLogger("dynagate.store")

_UNPROCESSED_RETRIES = 8
# Transactions cancelled by a mere conflict are sent again this many times.
_CONFLICT_RETRIES = 3
# The most calls one `Store.transact` makes.
TRANSACT_CALLS = _CONFLICT_RETRIES + 1
# The most items one filtered refill asks DynamoDB to evaluate.
_MAX_REFILL = 1_000

# A client method such as `client.query`: keyword arguments in, a response dict out.
_Operation = Callable[..., Awaitable[Any]]


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


@dataclass
class Store:
    client: DynamoDBClient
    table: str
    cost: Cost = field(default_factory=Cost)
    # The most calls this request may make: the bound computed before it ran. Reaching it
    # (retries of unprocessed keys under throttling, say) is UNAVAILABLE, never more calls.
    budget: int | None = None
    # A record written in the same transaction as the request's first write (`Intent`).
    intent: Intent | None = None

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
    ) -> QueryResult:
        """Items matching `condition`, up to `limit` (all when None).

        DynamoDB stops a page at 1 MB (or at `Limit` before filtering); this goes on from
        LastEvaluatedKey until `limit` matches are in hand or the range is exhausted.
        With a filter, each refill reads as far as the hit rate so far says it must (twice
        as far as the last read while nothing matched), so a sparse stretch costs a few
        requests rather than one per item; matches past `limit` are dropped. With a budget
        (`max_scanned` items evaluated, `max_calls` calls) the read stops when it is spent
        and says so (`stopped`), `last_key` telling where to go on.
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
            response = await self._call("read", self.client.query, request)
            calls += 1
            page = [from_attributes(i) for i in response.get("Items", [])]
            read = response.get("ScannedCount", 0)
            scanned += read
            self.cost.record("read", response, scanned=read, returned=len(page))
            items.extend(page)
            raw_last = response.get("LastEvaluatedKey")
            start_key = None if raw_last is None else _key(raw_last)
            if limit is not None and len(items) > limit:
                del items[limit:]
                start_key = page_key(items[-1], condition.index)
            if start_key is None or (limit is not None and len(items) >= limit):
                return QueryResult(items, start_key)

    async def get_many(self, keys: Sequence[Key]) -> list[Item]:
        """The items that exist among `keys`, in no particular order (BatchGetItem)."""
        found = await asyncio.gather(
            *(self._batch_get(r) for r in batch_get_requests(self.table, keys))
        )
        return [item for batch in found for item in batch]

    async def _batch_get(self, request: dict[str, Any]) -> list[Item]:
        items: list[Item] = []
        for attempt in range(_UNPROCESSED_RETRIES):
            response = await self._call("read", self.client.batch_get_item, request)
            page = [from_attributes(i) for i in response.get("Responses", {}).get(self.table, [])]
            self.cost.record("read", response, returned=len(page))
            items.extend(page)
            unprocessed = response.get("UnprocessedKeys") or {}
            if not unprocessed:
                return items
            request = {**request, "RequestItems": unprocessed}
            await asyncio.sleep(min(0.05 * 2**attempt, 1.0))
        raise Unavailable("DynamoDB is throttling reads; try again shortly")

    async def get(self, key: Key, *, consistent: bool = False) -> Item | None:
        """One item by key; `consistent` for a read-before-write decision."""
        request = get_request(self.table, key, consistent=consistent)
        response = await self._call("read", self.client.get_item, request)
        item = response.get("Item")
        self.cost.record("read", response, returned=0 if item is None else 1)
        return None if item is None else from_attributes(item)

    async def scan(self, request: dict[str, Any]) -> ScanPage:
        """One page of a Scan (`scan_request`): admin tools only."""
        response = await self._call("read", self.client.scan, request)
        items = [from_attributes(i) for i in response.get("Items", [])]
        scanned = response.get("ScannedCount", 0)
        self.cost.record("read", response, scanned=scanned, returned=len(items))
        return ScanPage(items, scanned, response.get("LastEvaluatedKey"))

    async def put(self, request: dict[str, Any]) -> None:
        if self._intent() is not None:
            await self._alone_in_transaction({"Put": request})
            return
        # Not in `put_request`: the same Put goes into transactions, which refuse it.
        sent = {**request, "ReturnConsumedCapacity": "TOTAL"}
        await self._unless_landed(witness.of_put(request), self.client.put_item, sent)

    async def update(self, request: dict[str, Any]) -> Item:
        """The item as updated (`ReturnValues` ALL_NEW)."""
        if self._intent() is not None:
            # A transaction returns no item: read back what it wrote.
            await self._alone_in_transaction(transaction_update(request))
            key = {k: str(v) for k, v in from_attributes(request["Key"]).items()}
            updated = await self._read_consistently(key)
            if updated is None:  # removed since, by another request
                raise Unavailable("the item changed while it was written; read it again")
            return updated
        response = await self._unless_landed(
            witness.of_update(request), self.client.update_item, request
        )
        if isinstance(response, Landed):  # the item as the check read it
            assert response.item is not None
            return response.item
        return from_attributes(response.get("Attributes", {}))

    async def transact(
        self, actions: Sequence[dict[str, Any]], *, resend_conflicts: bool = True
    ) -> None:
        """All of `actions` or none of them (TransactWriteItems, at most 100 actions).

        A transaction cancelled only because another one held an item (TransactionConflict)
        changed nothing, so it is sent again after a short random pause, a few times
        (unless the caller retries by itself: `resend_conflicts=False`).
        """
        intent = self._intent()
        items = list(actions)
        if intent is None:
            seen = witness.stamp(items, uuid.uuid4().hex)
        else:
            items.append(intent.action)
            seen = intent.witness
        for attempt in range(_CONFLICT_RETRIES + 1 if resend_conflicts else 1):
            request = {
                "TransactItems": items,
                "ReturnConsumedCapacity": "TOTAL",
                # Botocore resends the same token when it retries, so a transaction that was
                # applied but whose answer was lost is not applied twice or refused as a
                # conflict.
                "ClientRequestToken": uuid.uuid4().hex,
            }
            try:
                await self._unless_landed(seen, self.client.transact_write_items, request)
                if intent is not None:
                    intent.landed = True
                return
            except TransactionCanceled as exc:
                if intent is not None:
                    exc = _without_intent(exc, intent)
                if not resend_conflicts or attempt == _CONFLICT_RETRIES or not exc.only_conflicts:
                    raise exc from None
            await asyncio.sleep(random.uniform(0, 0.02 * 2**attempt))

    def _intent(self) -> Intent | None:
        """The record this request's first write carries, until one has landed."""
        intent = self.intent
        return None if intent is None or intent.landed else intent

    async def _alone_in_transaction(self, action: dict[str, Any]) -> None:
        """One write, in a transaction with this request's `intent`; a failed condition is
        `ConditionFailed` with the stored item, as the write alone would raise it."""
        try:
            await self.transact([action])
        except TransactionCanceled as exc:
            if exc.failed(0):
                raise ConditionFailed(exc.items[0]) from None
            raise exc.as_error("the write met another one; try again") from None

    async def _unless_landed(
        self, seen: Witness | None, method: _Operation, request: dict[str, Any]
    ) -> dict[str, Any] | Landed:
        """The write's answer; `Landed` when every answer was lost (or DynamoDB failed
        past retries) yet its witness, read consistently, shows that it was applied."""
        try:
            return await self.write(method, request)
        except Unavailable:
            if seen is None:
                raise
            try:
                item = await self._read_consistently(seen.key)
            except Unavailable:
                item = None
                if seen.token is None:  # a delete's witness read failed: not known
                    raise
            if not seen.holds(item):
                raise
            logger.warning("a write's answers were lost; a consistent read found it applied")
            return Landed(item)

    async def _read_consistently(self, key: Key) -> Item | None:
        """A consistent read made to learn what a write did: outside the request's bound
        (`budget`), which counts the write itself."""
        request = get_request(self.table, key, consistent=True)
        response = await self._call("read", self.client.get_item, request, budgeted=False)
        item = response.get("Item")
        self.cost.record("read", response, returned=0 if item is None else 1)
        return None if item is None else from_attributes(item)

    async def write(self, method: _Operation, request: dict[str, Any]) -> dict[str, Any]:
        response = await self._call("write", method, request)
        self.cost.record("write", response)
        return response

    async def _call(
        self,
        operation: Operation,
        method: _Operation,
        request: dict[str, Any],
        *,
        budgeted: bool = True,
    ) -> dict[str, Any]:
        if budgeted and self.budget is not None and self.cost.requests >= self.budget:
            self.cost.past_bound += 1
            logger.error(
                "a request was about to pass its bound of %d DynamoDB calls: a cost model is"
                " too low",
                self.budget,
            )
            raise BoundExceeded(f"past the bound of {self.budget} DynamoDB calls")
        try:
            response: dict[str, Any] = await method(**request)
        except ClientError as exc:
            # A failed conditional write still used capacity and was a request.
            self.cost.record(operation, exc.response)
            error = mapped(exc)
            if error is None:
                raise
            raise error from exc
        except UNREACHABLE as exc:
            logger.warning("DynamoDB unreachable: %s", exc)
            raise Unavailable("the database is unreachable; try again shortly") from exc
        return response


@dataclass(frozen=True)
class Landed:
    """A write whose answers were lost, found applied: the item its witness read."""

    item: Item | None


def _without_intent(exc: TransactionCanceled, intent: Intent) -> TransactionCanceled:
    """The cancellation as the request's own actions see it; CONFLICT, in the intent's own
    words, when its record failed its condition: another request wrote it first."""
    if exc.failed(len(exc.reasons) - 1):
        raise Conflict(intent.refusal)
    return TransactionCanceled(exc.reasons[:-1], exc.items[:-1])


def _refill_limit(remaining: int, matched: int, scanned: int, last_read: int) -> int:
    if matched == 0:
        return min(max(remaining, 2 * last_read), _MAX_REFILL)
    return min(max(remaining, math.ceil(remaining * scanned / matched)), _MAX_REFILL)


def _key(attributes: Mapping[str, Any]) -> Key:
    return {name: str(value) for name, value in from_attributes(attributes).items()}
