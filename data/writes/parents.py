"""The removal of a parent (`Delete(children=…)`, docs/model.md#removing-a-parent): closed
to new children first, then its children found from its key and refused or removed with it.

A mark on the parent's item (`removing`: when, and whose) closes it: a child's create
checks in its own transaction that the parent exists without a fresh mark, so from the
mark on the children only go. They are read from the table strongly consistent, or from an
index after waiting `INDEX_SETTLE` seconds (the moments an index lags behind writes).
Then either CONFLICT naming them (`refuse`; the mark is taken back), or one
TransactWriteItems removes the parent (held to the mark) and every child with its copies,
place and counts: at most 100 actions, which says how far one call goes. Beyond that,
`dynagate remove` takes it in steps (`data/writes/removal_steps.py`). A mark older than
`MARK_LEASE` is a removal that stopped half way: creates pass it, and the next removal
takes it over.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from data.callers import AUTHOR_KEY, Caller, wrote
from data.clock import now
from data.copies.writes import named_key, not_theirs
from data.entities import described, record
from data.writes.kinds import keeping_of
from data.writes.removal_marks import REMOVING, mark_of, open_under
from errors.vocabulary import Conflict, NotFound
from keys.conditions import narrowed_to
from model import Entity, Model
from model.children import ChildrenPlace, children_place
from model.entities import plural
from store.client import TRANSACT_CALLS, Store
from store.errors import ConditionFailed, TransactionCanceled
from store.loaders import ItemLoader
from store.requests import Item, Key, update_request

INDEX_SETTLE = 1.0
# TransactWriteItems' limit: how much one call removes.
MOST_ACTIONS = 100
# The children a refusal names.
NAMED = 3
# The Query calls one read of one child entity's children makes (a 1 MB page each).
READ_CALLS = 4
# A removal whose parent or children changed between its reads and its transaction reads
# them again, this many times in all.
ATTEMPTS = 2
Choice = Literal["refuse", "remove"]


@dataclass(frozen=True)
class Children:
    """Children of one entity found below a parent: their items (copies, for an entity
    read from its copies), and whether more are there."""

    place: ChildrenPlace
    items: list[Item]
    more: bool


def places_below(model: Model, entity: Entity) -> list[ChildrenPlace]:
    """Where each entity below `entity` is found from its key."""
    found = []
    for child in model.children_of(entity):
        place = children_place(child)
        assert place is not None  # the model checks every child of a deleted parent
        found.append(place)
    return found


def removal_calls(model: Model, entity: Entity) -> tuple[int, int]:
    """The most calls a parent's delete makes, and the items its reads take: the mark,
    then per attempt the parent read again, its children read and the transaction, then
    the mark taken back."""
    below = places_below(model, entity)
    reads = 1 + len(below) * READ_CALLS + TRANSACT_CALLS
    items = 1 + len(below) * (MOST_ACTIONS + 1)
    return 1 + ATTEMPTS * reads + 1, ATTEMPTS * items


async def close(
    store: Store,
    entity: Entity,
    arguments: Mapping[str, Any],
    *,
    caller: Caller,
    writer_only: bool,
    take_over: bool = False,
) -> tuple[str, Item]:
    """Mark the parent `arguments` name as being removed: its mark and its item. Another
    removal's fresh mark is CONFLICT, unless `take_over` (an operator's job)."""
    key, missing = named_key(entity, arguments)
    held_to = caller.restriction(f"sign in to remove a {entity.noun}") if writer_only else None
    condition, _, values = (None, {}, {}) if take_over else open_under()
    mark = mark_of(now())
    request = update_request(
        store.table,
        key,
        set_values={REMOVING: mark},
        condition=condition,
        condition_values=values,
        expect=None if held_to is None else {AUTHOR_KEY: held_to},
        old_on_failure=True,
    )
    try:
        return mark, await store.update(request)
    except ConditionFailed as exc:
        if exc.item is None:
            raise missing from None
        if held_to is not None and not wrote(exc.item, caller):
            raise not_theirs(entity, arguments) from None
        raise Conflict(
            f"{described(entity, arguments)} is being removed by another request; try again"
            " in a minute"
        ) from None


async def release(store: Store, key: Key, mark: str) -> None:
    """Take the mark back, unless another removal took it over (or the item is gone)."""
    request = update_request(store.table, key, remove=[REMOVING], expect={REMOVING: mark})
    with contextlib.suppress(ConditionFailed):
        await store.update(request)


async def read_children(
    store: Store, place: ChildrenPlace, parent: Item, parent_entity: Entity, limit: int
) -> Children:
    """Up to `limit` children of `place`'s entity below the parent read as `parent`."""
    values = place.values(record(parent_entity, parent))
    partition = place.partition.render(**{s.name: values[s.name] for s in place.partition.segments})
    leading = {name: values[name] for name in place.leading}
    condition = narrowed_to(place.index, partition, place.sort, leading)
    result = await store.query(
        condition, forward=True, limit=limit + 1, consistent=place.exact, max_calls=READ_CALLS
    )
    items = result.items
    if place.exact:  # the table's range holds only theirs; what says so is checked
        items = [i for i in items if place.child.is_kind_of(i)]
    more = len(items) > limit or result.stopped
    return Children(place, items[:limit], more)


async def delete(
    store: Store,
    items: ItemLoader,
    model: Model,
    entity: Entity,
    arguments: Mapping[str, Any],
    *,
    caller: Caller,
    writer_only: bool,
    children: Choice,
) -> bool:
    """Remove the parent `arguments` name: refused while it has children (`refuse`), or
    with them in one transaction (`remove`)."""
    mark, item = await close(store, entity, arguments, caller=caller, writer_only=writer_only)
    key = keeping_of(entity).own_key(entity, item)
    try:
        removed = await _removed(store, model, entity, arguments, item, mark, children)
    except Exception:
        await release(store, key, mark)
        raise
    for one in removed:
        items.forget(one)
    return True


async def _removed(
    store: Store,
    model: Model,
    entity: Entity,
    arguments: Mapping[str, Any],
    item: Item,
    mark: str,
    children: Choice,
) -> list[Key]:
    below = places_below(model, entity)
    if any(not place.exact for place in below):
        await asyncio.sleep(INDEX_SETTLE)
    named = described(entity, arguments)
    for attempt in range(ATTEMPTS):
        if attempt:
            again = await store.get(keeping_of(entity).own_key(entity, item), consistent=True)
            if again is None:
                raise NotFound(f"{named} does not exist")
            item = again
        actions = keeping_of(entity).removal(store.table, entity, item, {REMOVING: mark})
        room = MOST_ACTIONS - len(actions)
        limit = NAMED if children == "refuse" else room
        found = [await read_children(store, place, item, entity, limit) for place in below]
        if children == "refuse" and any(f.items for f in found):
            raise Conflict(f"{named} still has {_listed(found)}; remove them first")
        for one in found:
            for child in one.items:
                kept = keeping_of(one.place.child)
                actions += kept.removal(store.table, one.place.child, child, {})
        if len(actions) > MOST_ACTIONS or any(f.more for f in found):
            raise Conflict(_too_many(entity, arguments, found))
        try:
            await store.transact(actions)
        except TransactionCanceled as exc:
            if exc.failed(0) and (exc.items[0] or {}).get(REMOVING) != mark:
                raise Conflict(f"{named} is being removed by another request") from None
            if not any(exc.failed(i) for i in range(len(actions))):
                raise exc.as_error(f"{named} could not be removed; try again") from exc
            continue  # the parent or a child changed since read: read them again
        return [keeping_of(entity).own_key(entity, item)] + [
            keeping_of(one.place.child).own_key(one.place.child, child)
            for one in found
            for child in one.items
        ]
    raise Conflict(f"{named} or the entities below it changed meanwhile; try again")


def _listed(found: Sequence[Children]) -> str:
    """`2 bookings (booking 'v1', '2Ab…', …)`, for each entity with children found."""
    parts = []
    for one in found:
        if not one.items:
            continue
        child = one.place.child
        count = f"{len(one.items)}{' or more' if one.more else ''}"
        noun = child.noun if len(one.items) == 1 and not one.more else plural(child.noun)
        names = ", ".join(described(child, record(child, i)) for i in one.items)
        parts.append(f"{count} {noun} ({names})")
    return " and ".join(parts)


def _too_many(entity: Entity, arguments: Mapping[str, Any], found: Sequence[Children]) -> str:
    parts = " ".join(f"{name}={value}" for name, value in arguments.items())
    kinds = ", ".join(plural(f.place.child.noun) for f in found if f.items)
    each = ", ".join(
        f"{keeping_of(f.place.child).removal_size(f.place.child)} per {f.place.child.noun}"
        for f in found
        if f.items
    )
    return (
        f"{described(entity, arguments)} has more below it ({kinds}) than one call removes"
        f" ({MOST_ACTIONS} writes at most; {each}): `dynagate remove {entity.name} {parts}`"
        " removes it in steps"
    )
