"""Creates by PutItem that tell their own earlier attempt from another call's item."""

from __future__ import annotations

from data.clock import new_token
from keys.errors import Conflict
from store.client import Store
from store.errors import ConditionFailed
from store.requests import Item, put_request


async def put_new(store: Store, item: Item, conflict: str) -> None:
    """Write `item` where nothing is stored yet, else CONFLICT saying `conflict`.

    Botocore resends a PutItem whose answer was lost; when the first attempt was applied,
    the resend fails its condition on that very item. The item carries this call's token
    and the refusal brings the stored item back, so the resend recognises its own write
    (success) apart from another call's item (CONFLICT), with no extra read.
    """
    token = new_token()
    try:
        await store.put(put_request(store.table, item, must_be_new=True, token=token))
    except ConditionFailed as exc:
        if exc.written_by(token) is None:
            raise Conflict(conflict) from exc
