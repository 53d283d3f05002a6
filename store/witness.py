"""How a write tells, after every answer to it was lost, whether it was applied.

Botocore resends a write whose answer did not arrive; when the answers of every attempt
are lost, the caller would hear UNAVAILABLE for a write that may well be done. A write that
stamps an item with its own token (`WRITE_TOKEN`) has a witness: that item, read with a
consistent read, holds the token exactly when the write landed. Creates put such an item,
status moves set the token with the status, and a transaction stamps the first item it
puts on a condition (or the record of an Idempotency-Key it carries, `Intent`); one that
only deletes has landed when the item it deletes on a condition is gone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from keys.table import Index
from store.requests import WRITE_TOKEN, Key, from_attributes, primary_key

# The most reads a write of a mutation makes to learn what it did: its witness, after every
# answer was lost, and under an Idempotency-Key, the item an update wrote (a transaction
# returns none). Part of every mutation's bound (`resolvers.field_costs.writes`).
CHECK_READS = 2


@dataclass(frozen=True)
class Witness:
    """The item a write stamps with `token`; or, with no token, the item a delete removes
    (it landed when the item is gone: an outcome another delete would share)."""

    key: Key
    token: str | None

    def holds(self, item: Mapping[str, Any] | None) -> bool:
        if self.token is None:
            return item is None
        return item is not None and item.get(WRITE_TOKEN) == self.token


@dataclass
class Intent:
    """A record to write in the same transaction as a request's first write (an
    Idempotency-Key's, `data/idempotency.py`): a TransactWriteItems Put of an item that
    holds `token`, and whether the write it went with landed. Should the Put fail its
    condition (another request wrote the record first), the write is refused as CONFLICT
    with `refusal`: only the record's maker knows what it stands for."""

    action: dict[str, Any]
    witness: Witness
    refusal: str
    landed: bool = False


def of_put(request: Mapping[str, Any], table: Index) -> Witness | None:
    """The witness of a PutItem (or a transaction's Put) whose item carries a token; its
    key on `table` (the layout's)."""
    item = from_attributes(request["Item"])
    token = item.get(WRITE_TOKEN)
    return None if token is None else Witness(primary_key(item, table), str(token))


def of_update(request: Mapping[str, Any]) -> Witness | None:
    """The witness of an `update_request` made with a token."""
    names = request.get("ExpressionAttributeNames", {})
    alias = next((a for a, name in names.items() if name == WRITE_TOKEN), None)
    found = alias and re.search(rf"{alias} = (:\w+)", request["UpdateExpression"])
    if not found:
        return None
    token = from_attributes(request["ExpressionAttributeValues"])[found.group(1)]
    key = {name: str(value) for name, value in from_attributes(request["Key"]).items()}
    return Witness(key, str(token))


def stamp(actions: list[dict[str, Any]], token: str, table: Index) -> Witness | None:
    """A transaction's witness: its first conditional Put, made to carry `token` (in
    place), else its first conditional Delete; None when it has neither. Conditional only:
    the unconditional Puts of a comment's copies (`dynagate verify` repairs them so) must
    stay exactly as their comment implies."""
    for position, action in enumerate(actions):
        put = action.get("Put")
        if put is None or "ConditionExpression" not in put:
            continue
        stamped = {**put, "Item": {**put["Item"], WRITE_TOKEN: {"S": token}}}
        actions[position] = {**action, "Put": stamped}
        return of_put(stamped, table)
    for action in actions:
        delete = action.get("Delete")
        if delete is not None and "ConditionExpression" in delete:
            key = {k: str(v) for k, v in from_attributes(delete["Key"]).items()}
            return Witness(key, None)
    return None
