"""Creates: by PutItem, telling their own earlier attempt from another call's item; and in a
transaction, under an item that must exist."""

from __future__ import annotations

from data.clock import new_token
from data.writes.removal_marks import open_under
from errors.vocabulary import Conflict, NotFound
from store.client import Store
from store.errors import ConditionFailed, TransactionCanceled
from store.requests import (
    Item,
    Key,
    also_holding,
    condition_check,
    put_request,
    transaction_put,
)


async def put_new(store: Store, item: Item, conflict: str) -> None:
    """Write `item` where nothing is stored yet, else CONFLICT saying `conflict`.

    Botocore resends a PutItem whose answer was lost; when the first attempt was applied,
    the resend fails its condition on that very item. The item carries this call's token
    and the refusal brings the stored item back, so the resend recognises its own write
    (success) apart from another call's item (CONFLICT), with no extra read.
    """
    token = new_token()
    try:
        await store.put(put_request(store.table, item, new_on=store.layout.table, token=token))
    except ConditionFailed as exc:
        if exc.written_by(token) is None:
            raise Conflict(conflict) from exc


async def put_all(store: Store, item: Item, copies: list[Item], conflict: str) -> None:
    """Write the new `item` and its `copies` as they are in one transaction, else CONFLICT
    saying `conflict`."""
    actions = [
        transaction_put(store.table, item, new_on=store.layout.table),
        *(transaction_put(store.table, copy) for copy in copies),
    ]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        raise exc.explained({0: Conflict(conflict)}, conflict) from exc


async def put_under(
    store: Store,
    parent: Key,
    missing: str,
    item: Item,
    *copies: Item,
    retry: str,
    removing: str,
) -> None:
    """Write the new `item`, and its `copies` as they are, in one transaction with the check
    that `parent` exists and is not being removed (`data/writes/removal_marks.py`): NOT_FOUND
    saying `missing` when it does not, CONFLICT saying `removing` when it is being removed,
    or `retry` when a concurrent write got in the way."""
    check = also_holding(
        condition_check(store.table, parent, exists=True), *open_under(), old_on_failure=True
    )
    actions = [
        check,
        transaction_put(store.table, item, new_on=store.layout.table),
        *(transaction_put(store.table, copy) for copy in copies),
    ]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        closed = exc.items[0] is not None
        refusal = Conflict(removing) if closed else NotFound(missing)
        raise exc.explained({0: refusal}, retry) from exc
