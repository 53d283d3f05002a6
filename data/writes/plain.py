"""The writes of an entity kept as its own item alone: a create by one conditional
PutItem, an update by one UpdateItem (re-rendering every key a change touches), a delete
by one transaction.

When the entity has a timestamp stamped on every write (a changing sort key,
docs/model.md#writes-in-detail), the update is conditional on the stored one being earlier,
so a clock running behind or two updates in one millisecond never move an item back: it is
written again just after the stored time, which the refusal brings back. A rule held to the
writer, the owner or the parent's owner is decided by the write's own condition (or a
ConditionCheck on the parent in the same transaction)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from functools import partial
from typing import Any

from data.callers import AUTHOR_KEY, wrote
from data.clock import new_token, now
from data.copies.writes import check_moves, named_key, not_theirs
from data.entities import Record, described, emptied, key_of, record, stored
from data.writes.creates import put_new
from data.writes.keeping import Action, Change, Removing
from data.writes.key_changes import all_of, allowed_moves, held_reads, index_changes, kept_values
from data.writes.owners import (
    not_parent_owner,
    not_yours,
    owner_held,
    parent_owner_check,
    still_owned,
    update_under,
)
from errors.vocabulary import Conflict, DynagateError, NotFound
from keys.codecs import format_timestamp, parse_timestamp
from model import Access, Entity
from store.client import TRANSACT_CALLS, Store
from store.errors import ConditionFailed, TransactionCanceled
from store.loaders import ItemLoader
from store.requests import (
    Item,
    Key,
    expecting,
    primary_key,
    transaction_delete,
    update_request,
)

# Timestamps have millisecond precision: the smallest step that still moves an item up.
_TICK = timedelta(milliseconds=1)
UPDATE_ATTEMPTS = 5


class Plain:
    """An entity kept as its own item alone."""

    answers_unchanged = False

    def derive(self, entity: Entity, values: dict[str, Any]) -> None:
        pass

    def written(self, entity: Entity, item: Item) -> tuple[Item, list[Item]]:
        return {**item, **entity.kind}, []

    def create_calls(self) -> int:
        return 1

    async def create(
        self, store: Store, entity: Entity, item: Item, beside: list[Item], done: str
    ) -> None:
        await put_new(store, item, f"{described(entity, record(entity, item))} already exists")

    def update_calls(self, entity: Entity, changes: Iterable[str]) -> tuple[int, int]:
        reads = 1 if kept_values(entity, set(changes), set(changes)) else 0
        return reads + (UPDATE_ATTEMPTS if _sorting_stamp(entity) else 1), reads

    def update_said(self, key: str, access: Access) -> tuple[str, int]:
        if access == "parent_owner":
            return (
                "GetItem of its parent (consistent), TransactWriteItems (ConditionCheck on the"
                f" parent's owner, Update of {key}), GetItem of it",
                2,
            )
        if access == "owner":
            return f"GetItem (consistent), then UpdateItem of {key} held to its owner", 1
        return f"UpdateItem of {key}", 0

    async def update(
        self, store: Store, items: ItemLoader, entity: Entity, change: Change
    ) -> Record:
        return await _update(store, items, entity, change)

    def delete_calls(self, entity: Entity) -> tuple[int, int]:
        # One transaction, so a resend whose first attempt landed is recognised.
        return TRANSACT_CALLS, 0

    def delete_said(self, access: Access) -> tuple[str, int]:
        if access == "parent_owner":
            return (
                "GetItem of its parent (consistent), TransactWriteItems (ConditionCheck on the"
                " parent's owner, Delete)",
                1,
            )
        if access == "owner":
            return "GetItem (consistent), then TransactWriteItems (Delete held to its owner)", 1
        return "TransactWriteItems", 0

    async def delete(
        self, store: Store, items: ItemLoader, entity: Entity, removing: Removing
    ) -> bool:
        return await _delete(store, items, entity, removing)

    def own_key(self, entity: Entity, item: Item) -> Key:
        return primary_key(item, entity.table)

    def removal(
        self, table: str, entity: Entity, item: Item, held: Mapping[str, Any]
    ) -> list[Action]:
        own = transaction_delete(table, self.own_key(entity, item), must_exist=True)
        return [expecting(own, held, old_on_failure=True) if held else own]

    def removal_size(self, entity: Entity) -> int:
        return 1


def _sorting_stamp(entity: Entity) -> str | None:
    """The item attribute of the time stamped on every write that a key sorts by, if any."""
    name = _sorting_stamp_attribute(entity)
    return None if name is None else entity.stored_name(name)


def _sorting_stamp_attribute(entity: Entity) -> str | None:
    """The timestamp stamped on every write that a key sorts by (a changing sort key): an
    update then
    only moves it forward."""
    keyed = {s.name for template in entity.templates.values() for s in template.segments}
    return next((name for name in entity.write_stamps if name in keyed), None)


async def _update(store: Store, items: ItemLoader, entity: Entity, change: Change) -> Record:
    arguments, values, caller = change.arguments, change.values, change.caller
    writer_only, transitions = change.writer_only, change.transitions
    owner_only, parent_owner_of = change.owner_only, change.parent_owner_of
    key = key_of(entity, arguments)
    missing = f"{described(entity, arguments)} does not exist"
    if key is None:
        raise NotFound(missing)
    held_to = caller.restriction(f"sign in to change a {entity.noun}") if writer_only else None
    stamp_name = _sorting_stamp(entity)
    kept: Record = {}
    held: dict[str, Any] = {} if held_to is None else {AUTHOR_KEY: held_to}
    if owner_only:
        held.update(await owner_held(store, entity, key, arguments, caller))
    check = None
    if parent_owner_of is not None:
        check = await parent_owner_check(store, entity, parent_owner_of, arguments, caller)
    absent: list[str] = []
    reads = kept_values(entity, set(values), set(change.asked))
    if reads:
        # Strongly consistent: what it reads no update changes, but the entity may be new.
        found = await store.get(key, consistent=True)
        if found is None:
            raise NotFound(missing)
        if writer_only and not wrote(found, caller):
            raise not_theirs(entity, arguments)
        kept, read_held, absent = held_reads(entity, reads, found)
        check_moves(entity, arguments, transitions, values, found)
        held.update(read_held)
    allowed, allowed_values = allowed_moves(entity, transitions, values)
    at = now()
    token = new_token()
    for _ in range(UPDATE_ATTEMPTS):
        changed = dict(values)
        for name in entity.write_stamps:
            changed[name] = at
        both = {**kept, **{n: arguments[n] for n in entity.key_attributes}, **changed}
        keys, removed = index_changes(entity, both, changed)
        stamp = None if stamp_name is None else format_timestamp(at)
        request = update_request(
            store.table,
            key,
            set_values={**stored(entity, changed), **keys},
            add=entity.versioned,
            remove=[*removed, *emptied(entity, changed)],
            condition=all_of(
                [*allowed, *(() if stamp_name is None else (f"#{stamp_name} < :stamp",))]
            ),
            condition_values={
                **allowed_values,
                **({} if stamp is None else {":stamp": stamp}),
            },
            expect=held or None,
            absent=absent,
            token=token,
        )
        try:
            if check is None or parent_owner_of is None:
                item = await store.update(request)
            else:
                refused = not_parent_owner(entity, parent_owner_of)
                why = partial(_refusal, described(entity, arguments))
                item = await update_under(store, check, request, key, why, refused)
        except ConditionFailed as exc:
            if exc.item is None:
                raise NotFound(missing) from None
            done = exc.written_by(token)
            if done is None:
                if writer_only and not wrote(exc.item, caller):
                    raise not_theirs(entity, arguments) from None
                if owner_only and not still_owned(entity, exc.item, caller):
                    raise not_yours(entity, arguments) from None
                if reads:
                    again, read_held, now_absent = held_reads(entity, reads, exc.item)
                    if again == kept and (read_held, now_absent) != (
                        {n: held[n] for n in read_held if n in held},
                        absent,
                    ):
                        # The same values, stored since (a migration wrote a default).
                        held.update(read_held)
                        absent = now_absent
                        continue
                if not kept:
                    check_moves(entity, arguments, transitions, values, exc.item)
                if stamp_name is None:
                    raise Conflict(
                        f"{described(entity, arguments)} changed meanwhile; try again"
                    ) from None
                # Changed meanwhile, or this clock is behind: write again just after it.
                at = max(now(), parse_timestamp(exc.item[stamp_name]) + _TICK)
                continue
            item = done
        items.refresh(key, item)
        return record(entity, item)
    raise Conflict(f"{described(entity, arguments)} is being changed by other requests; try again")


def _refusal(named: str, found: Item | None) -> DynagateError:
    """Why an update of the entity `named` under its parent's check was refused, by the
    item it found."""
    if found is None:
        return NotFound(f"{named} does not exist")
    return Conflict(f"{named} changed meanwhile, or may not move so from its state; read it again")


async def _delete(store: Store, items: ItemLoader, entity: Entity, removing: Removing) -> bool:
    arguments, caller, writer_only = removing.arguments, removing.caller, removing.writer_only
    owner_only, parent_owner_of = removing.owner_only, removing.parent_owner_of
    key, missing = named_key(entity, arguments)
    held_to = caller.restriction(f"sign in to remove a {entity.noun}") if writer_only else None
    action = transaction_delete(store.table, key, must_exist=True)
    held = {} if held_to is None else {AUTHOR_KEY: held_to}
    if owner_only:
        held.update(await owner_held(store, entity, key, arguments, caller))
    if held:
        action = expecting(action, held, old_on_failure=True)
    actions = [action]
    if parent_owner_of is not None:
        check = await parent_owner_check(store, entity, parent_owner_of, arguments, caller)
        actions = [action] if check is None else [check, action]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        own = len(actions) - 1
        stored = exc.items[own]
        refusal: DynagateError = missing
        if stored is not None and held_to is not None and not wrote(stored, caller):
            refusal = not_theirs(entity, arguments)
        elif stored is not None and owner_only and not still_owned(entity, stored, caller):
            refusal = not_yours(entity, arguments)
        refusals = {own: refusal}
        if own and parent_owner_of is not None:
            refusals = {0: not_parent_owner(entity, parent_owner_of), own: refusal}
        retry = f"the {entity.noun} could not be removed; try again"
        raise exc.explained(refusals, retry) from exc
    items.forget(key)
    return True
