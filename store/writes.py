"""The writes of the store: each answered once it is known to be applied (`store.witness`),
transactions sent again after a mere conflict, and with a read cache, what a write touched
dropped from it before the write is answered (`store/cache/reads.py`)."""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from errors.vocabulary import Conflict, Unavailable
from store import witness
from store.cache import dependencies as read_dependencies
from store.cache.memory import Dependency
from store.calls import Calls, Method
from store.errors import ConditionFailed, TransactionCanceled
from store.requests import Item, Key, from_attributes, get_request, transaction_update
from store.trace_marks import marked_actions, marked_put, marked_update
from store.witness import Intent, Witness

logger = logging.getLogger("dynagate.store")

# Transactions cancelled by a mere conflict are sent again this many times.
_CONFLICT_RETRIES = 3
# The most calls one `Store.transact` makes.
TRANSACT_CALLS = _CONFLICT_RETRIES + 1
_Answer = TypeVar("_Answer")


class Writes(Calls):
    async def put(self, request: dict[str, Any]) -> None:
        if self.tracing is not None:
            request = dict(marked_put(request, self.tracing.cause()))
        if self._intent() is not None:
            await self._alone_in_transaction({"Put": request})
            return
        # Not in `put_request`: the same Put goes into transactions, which refuse it.
        sent = {**request, "ReturnConsumedCapacity": "TOTAL"}
        seen = witness.of_put(request, self.layout.table)
        await self._changing(
            lambda _: self._touched("PutItem", request),
            self._unless_landed(seen, self.client.put_item, sent),
            lambda _: [from_attributes(request["Item"])],
        )

    async def update(self, request: dict[str, Any]) -> Item:
        """The item as updated (`ReturnValues` ALL_NEW)."""
        if self.tracing is not None:
            request = dict(marked_update(request, self.tracing.cause()))
        if self._intent() is not None:
            # A transaction returns no item: read back what it wrote.
            await self._alone_in_transaction(transaction_update(request))
            key = {k: str(v) for k, v in from_attributes(request["Key"]).items()}
            updated = await self._read_consistently(key)
            if updated is None:  # removed since, by another request
                raise Unavailable("the item changed while it was written; read it again")
            return updated
        response = await self._changing(
            lambda answer: self._touched("UpdateItem", request, _image(answer)),
            self._unless_landed(witness.of_update(request), self.client.update_item, request),
            lambda answer: [image] if (image := _image(answer)) is not None else [],
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
        if self.tracing is not None:
            items = marked_actions(items, self.tracing.cause())
        if intent is None:
            seen = witness.stamp(items, uuid.uuid4().hex, self.layout.table)
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
                await self._changing(
                    lambda _: self._touched_by_transaction(items),
                    self._unless_landed(seen, self.client.transact_write_items, request),
                    lambda _: [from_attributes(a["Put"]["Item"]) for a in items if "Put" in a],
                )
                if intent is not None:
                    intent.landed = True
                return
            except TransactionCanceled as exc:
                if intent is not None:
                    exc = _without_intent(exc, intent)
                if not resend_conflicts or attempt == _CONFLICT_RETRIES or not exc.only_conflicts:
                    raise exc from None
            await asyncio.sleep(random.uniform(0, 0.02 * 2**attempt))

    async def _changing(
        self,
        touched: Callable[[Any], set[Dependency]],
        write: Awaitable[_Answer],
        images: Callable[[Any], list[Item]],
    ) -> _Answer:
        """The write's answer; with a cache, what it touched is dropped from it (and the
        other replicas told) before the write is answered, or refused: a refusal may be
        the resend of a write that was applied (its answer lost), which the caller then
        answers as done."""
        cache = self.cache
        if cache is None:
            return await write
        try:
            answer = await write
        except asyncio.CancelledError:
            cache.touched(touched(None))  # no time to tell the replicas: the stream will
            raise
        except BaseException:
            await cache.wrote(touched(None))
            raise
        await cache.wrote(touched(answer), images(answer))
        return answer

    def _touched(
        self, operation: str, request: Mapping[str, Any], image: Item | None = None
    ) -> set[Dependency]:
        indexes = set() if self.cache is None else self.cache.indexes
        return read_dependencies.of_write(operation, request, self.layout.table, indexes, image)

    def _touched_by_transaction(self, actions: Sequence[Mapping[str, Any]]) -> set[Dependency]:
        indexes = set() if self.cache is None else self.cache.indexes
        return read_dependencies.of_transaction(actions, self.layout.table, indexes)

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
        self, seen: Witness | None, method: Method, request: dict[str, Any]
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
        response = await self._call(self.client.get_item, request, budgeted=False)
        item = response.get("Item")
        self.cost.record("GetItem", response, returned=0 if item is None else 1)
        return None if item is None else from_attributes(item)


@dataclass(frozen=True)
class Landed:
    """A write whose answers were lost, found applied: the item its witness read."""

    item: Item | None


def _image(answer: dict[str, Any] | Landed | None) -> Item | None:
    """The item an update left, from its answer (ReturnValues ALL_NEW)."""
    if isinstance(answer, Landed):
        return answer.item
    if answer is None or "Attributes" not in answer:
        return None
    return from_attributes(answer["Attributes"])


def _without_intent(exc: TransactionCanceled, intent: Intent) -> TransactionCanceled:
    """The cancellation as the request's own actions see it; CONFLICT, in the intent's own
    words, when its record failed its condition: another request wrote it first."""
    if exc.failed(len(exc.reasons) - 1):
        raise Conflict(intent.refusal)
    return TransactionCanceled(exc.reasons[:-1], exc.items[:-1])
