"""Safe retries (docs/http.md#safe-retries): the record of an Idempotency-Key, written in the same
transaction as the mutation's first write (`store.witness.Intent`), then given the answer.

A retry finds the record: with the same fingerprint and an answer, it gets that answer and
nothing runs again; with another fingerprint it is CONFLICT. No record means nothing was
written (a mutation refused before its write leaves none), so the retry runs. A record
without an answer is a request still being answered, or, once its time is past, one whose
answer could not be kept (the mutation was done).
"""

from __future__ import annotations

import asyncio
import time
from contextlib import suppress
from dataclasses import dataclass

from data.clock import new_token, now
from errors.vocabulary import Unavailable
from keys import idempotency as keys
from keys.codecs import format_timestamp
from keys.table import CLASSIC, Layout
from store.client import Store
from store.errors import ConditionFailed
from store.requests import WRITE_TOKEN, to_attributes, update_request
from store.witness import Intent, Witness

# An answer DynamoDB can hold with the rest of the record (items hold 400 KB).
MAX_ANSWER_BYTES = 300_000
KEEP_ATTEMPTS = 3
# What a request hears when another one with the same key wrote the record first.
BEING_ANSWERED = "a request with this Idempotency-Key is being answered; retry shortly"


@dataclass
class MalformedKey:
    """An Idempotency-Key header that is not one: queries ignore it; a mutation sent with
    it is refused (`refused` once it was), and nothing runs."""

    reason: str
    refused: bool = False


@dataclass(frozen=True)
class Record:
    fingerprint: str
    # The first request's JSON answer, without `extensions`; None until it is kept.
    answer: str | None
    # When the first request wrote it (seconds since the epoch).
    written: float


async def find_record(store: Store, caller: str, key: str) -> Record | None:
    """The record of `key` from `caller`, read consistently; one past its 24 hours (not
    yet deleted by the time to live) is none."""
    item = await store.get(keys.record_key(store.layout.table, caller, key), consistent=True)
    if item is None or int(item[keys.EXPIRES]) <= time.time():
        return None
    return Record(item["fingerprint"], item.get("answer"), float(item["writtenAt"]))


def new_intent(
    table: str, caller: str, key: str, fingerprint: str, layout: Layout = CLASSIC
) -> Intent:
    """The record to write with the mutation's first write: only where none is kept, or
    the one kept has expired (on `table`, of `layout`)."""
    record_key = keys.record_key(layout.table, caller, key)
    token = new_token()
    item = {
        **record_key,
        "type": "IDEMPOTENCY",
        "fingerprint": fingerprint,
        "createdAt": format_timestamp(now()),
        "writtenAt": round(time.time(), 3),
        keys.EXPIRES: int(time.time()) + keys.HOURS * 3600,
        WRITE_TOKEN: token,
    }
    put = {
        "TableName": table,
        "Item": to_attributes(item),
        "ConditionExpression": "attribute_not_exists(#pk) OR #expires <= :now",
        "ExpressionAttributeNames": {"#pk": layout.table.partition_key, "#expires": keys.EXPIRES},
        "ExpressionAttributeValues": to_attributes({":now": int(time.time())}),
    }
    return Intent({"Put": put}, Witness(record_key, token), refusal=BEING_ANSWERED)


async def keep_answer(store: Store, intent: Intent, answer: str) -> bool:
    """The answer, on the record this request wrote: tried a few times, and where every
    answer of a try was lost, the record read back to see whether it took. False when it
    could not be kept (too large, DynamoDB failing throughout, or the record is another
    request's since it expired)."""
    if len(answer.encode()) > MAX_ANSWER_BYTES:
        return False
    request = update_request(
        store.table,
        intent.witness.key,
        set_values={"answer": answer},
        expect={WRITE_TOKEN: intent.witness.token},
    )
    for attempt in range(KEEP_ATTEMPTS):
        try:
            await store.update(request)
            return True
        except ConditionFailed:
            return False
        except Unavailable:
            with suppress(Unavailable):
                kept = await store.get(intent.witness.key, consistent=True)
                if kept is not None and kept.get("answer") == answer:
                    return True
        await asyncio.sleep(0.05 * 2**attempt)
    return False
