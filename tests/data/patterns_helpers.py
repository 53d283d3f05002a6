"""What several access pattern tests measure: the calls a pattern makes against the worst
case it declares, and the size DynamoDB gives an item against the size the cost models
assume."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from store.client import Store
from store.cost import Cost, declared
from store.requests import Item, to_attributes

T = TypeVar("T")


async def within_declared(
    store: Store, pattern: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any
) -> tuple[T, Cost]:
    """`pattern(store, *args, **kwargs)`, and what it spent, which must be within the worst
    case it declares (calls, and items read)."""
    store.cost = Cost()
    result = await pattern(store, *args, **kwargs)
    worst, spent = declared(pattern), store.cost
    assert spent.requests <= worst.requests, f"{spent.requests} calls, {worst} declared"
    assert spent.items_scanned <= worst.items, f"{spent.items_scanned} items, {worst} declared"
    return result, spent


async def stored_kib(store: Store, item: Item) -> int:
    """The size DynamoDB gives `item`, in whole KiB rounded up: the write units a PutItem
    of it consumes on the table alone (its indexes apart)."""
    response = await store.client.put_item(
        TableName=store.table, Item=to_attributes(item), ReturnConsumedCapacity="INDEXES"
    )
    return int(response["ConsumedCapacity"]["Table"]["CapacityUnits"])
