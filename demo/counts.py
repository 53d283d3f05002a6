"""New items counted on another item (an organization's teams, a repository's issues): the
item and the change of its count written in one transaction, so that neither is written
without the other."""

from __future__ import annotations

from typing import Any

from dynagate import Item, Store, transaction_put, transaction_update, update_request


def counted_put(
    store: Store, item: Item, counted_on: dict[str, str], condition: str, **counting: Any
) -> list[dict[str, Any]]:
    """The actions that put `item` and change the count on the item `counted_on` under
    `condition` (`counting`: the rest of the update, as `update_request` takes it). The
    count's update comes first: its refusal brings back the counting item as stored, or
    none when there is none."""
    count = update_request(
        store.table, counted_on, condition=condition, old_on_failure=True, **counting
    )
    return [
        transaction_update(count),
        transaction_put(store.table, item, new_on=store.layout.table),
    ]
