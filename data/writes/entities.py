"""A declared entity's writes (`model/`): create and update, each one request or one
transaction, every key attribute derived from the values in the same write.

A create stamps its timestamps, makes its generated id and records its author; under a
parent it is one transaction with the check that the parent exists. An update re-renders
every key that uses a changed attribute. When the entity has a timestamp stamped on every
write (seed 001's changing sort key), the write is conditional on the stored one being
earlier, so a clock running behind or two updates in one millisecond never move an item
back: it is written again just after the stored time, which the refusal brings back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from data import validation
from data.callers import AUTHOR_KEY, Caller, wrote
from data.clock import new_ksuid, new_token, now
from data.copies import writes as entity_copies
from data.copies.writes import check_moves, not_theirs
from data.entities import Record, checked, described, emptied, key_of, record, stored, total
from data.places import items as entity_places
from data.places import moves as place_updates
from data.writes.creates import put_all, put_new, put_under
from data.writes.key_changes import all_of, allowed_moves, held_reads, index_changes, kept_values
from data.writes.owners import (
    admins_move,
    not_parent_owner,
    not_yours,
    owner_held,
    parent_owner_check,
    still_owned,
    update_under,
)
from errors.vocabulary import BadUserInput, Conflict, DynagateError, NotFound
from keys.codecs import format_timestamp, parse_timestamp
from model import Choice, Entity, GeneratedId, Model, Moves, Timestamp
from model.attributes import Counter, Total, Version
from store.client import TRANSACT_CALLS, Store
from store.errors import ConditionFailed, TransactionCanceled
from store.loaders import ItemLoader
from store.requests import Item, expecting, transaction_delete, update_request

# Timestamps have millisecond precision: the smallest step that still moves an item up.
_TICK = timedelta(milliseconds=1)
UPDATE_ATTEMPTS = 5


def create_calls(model: Model, entity: Entity) -> int:
    """The most DynamoDB calls a create makes."""
    alone = model.parent_of(entity) is None and entity.copies is None and entity.places is None
    return 1 if alone else TRANSACT_CALLS


def update_calls(entity: Entity, changes: Iterable[str]) -> tuple[int, int]:
    """The most calls an update of `changes` makes, and the items its reads take."""
    if entity.copies is not None:
        return entity_copies.CHANGE_CALLS, 1
    if entity.places is not None:
        return place_updates.CHANGE_CALLS, place_updates.CHANGE_READS
    reads = 1 if kept_values(entity, set(changes), set(changes)) else 0
    return reads + (UPDATE_ATTEMPTS if _sorting_stamp(entity) else 1), reads


def _sorting_stamp(entity: Entity) -> str | None:
    """The item attribute of the time stamped on every write that a key sorts by, if any."""
    name = _sorting_stamp_attribute(entity)
    return None if name is None else entity.stored_name(name)


def _sorting_stamp_attribute(entity: Entity) -> str | None:
    """The timestamp stamped on every write that a key sorts by (seed 001): an update then
    only moves it forward."""
    keyed = {s.name for template in entity.templates.values() for s in template.segments}
    return next((name for name in entity.write_stamps if name in keyed), None)


def delete_calls(entity: Entity) -> tuple[int, int]:
    """A delete is one transaction (so a resend whose first attempt landed is recognised),
    after the read that finds a copied entity's copies."""
    if entity.copies is not None:
        return entity_copies.CHANGE_CALLS, 1
    if entity.places is not None:
        return entity_places.REMOVE_CALLS, 1
    return TRANSACT_CALLS, 0


async def create(
    store: Store,
    model: Model,
    entity: Entity,
    given: Mapping[str, Any],
    *,
    done: str = "created",
    caller: Caller,
) -> Record:
    current = now()
    values, item, copies = new_items(
        entity, given, caller=caller, created=_created(entity, given, current), current=current
    )
    parent = model.parent_of(entity)
    retry = f"the {entity.noun} could not be {done}; try again"
    if parent is not None and entity.parent is not None:
        theirs = {their: values[mine] for mine, their in entity.parent.attributes.items()}
        named = described(parent, theirs)
        await put_under(
            store,
            parent.primary_key(theirs),
            f"{named} does not exist",
            item,
            *copies,
            retry=retry,
            removing=f"{named} is being removed",
        )
    elif copies:
        await put_all(store, item, copies, f"{described(entity, values)} already exists")
    elif entity.places is not None:
        await entity_places.create(store, entity, item, done)
    else:
        await put_new(store, item, f"{described(entity, values)} already exists")
    return record(entity, item)


def new_items(
    entity: Entity,
    given: Mapping[str, Any],
    *,
    caller: Caller,
    created: datetime,
    current: datetime,
) -> tuple[dict[str, Any], Item, list[Item]]:
    """A new entity's values, its item and its copies: `given` checked, its id generated,
    its timestamps stamped (`created`, and `current` for those stamped on every write)."""
    values: dict[str, Any] = {}
    for name, attribute in entity.attributes.items():
        if isinstance(attribute, Timestamp) and attribute.stamped is not None:
            values[name] = created if attribute.stamped == "create" else current
        elif isinstance(attribute, Choice) and attribute.settable and given.get(name) is None:
            values[name] = attribute.initial  # a settable choice left out
        elif attribute.given:
            values[name] = checked(attribute, given.get(name), name)
        elif isinstance(attribute, GeneratedId):
            values[name] = new_ksuid(created)
        elif isinstance(attribute, Choice):
            values[name] = attribute.initial
        elif isinstance(attribute, Counter):
            values[name] = 0
        elif isinstance(attribute, Version):
            values[name] = 1
    for name, attribute in entity.attributes.items():
        if isinstance(attribute, Total):
            values[name] = total(entity, attribute, values)
    if entity.places is not None:
        _, _, geohash = entity.position
        values[geohash] = entity_places.geohash_of(entity, values)
    item = {
        **entity.item_keys(values),
        # An entity kept by place is listed from its place item, which carries the type.
        **({} if entity.places is not None else entity.kind),
        **stored(entity, values),
        **(caller.authored() if entity.author is not None else {}),
    }
    copies: list[Item] = []
    if entity.copies is not None:
        item[entity_copies.VERSION] = 1
        copies = entity_copies.copies(entity, item)
    return values, item, copies


def _created(entity: Entity, given: Mapping[str, Any], current: datetime) -> datetime:
    """When the entity is made: now, or the earlier time an import gives."""
    for name, attribute in entity.attributes.items():
        value = given.get(name)
        if isinstance(attribute, Timestamp) and attribute.imported and value is not None:
            return validation.past_time(checked(attribute, value, name), name, current)
    return current


async def update(
    store: Store,
    items: ItemLoader,
    entity: Entity,
    arguments: Mapping[str, Any],
    changes: Mapping[str, Any],
    *,
    caller: Caller,
    writer_only: bool,
    transitions: Sequence[Moves] = (),
    at_least_one: bool = True,
    sets: Mapping[str, Any] | None = None,
    owner_only: bool = False,
    parent_owner_of: Entity | None = None,
) -> Record:
    """Change those of `changes` that are given (at least one) of the entity `arguments`
    name; with `writer_only`, only its author (or an admin) may, which the same write's
    condition checks: a refusal that brings back another's entity is FORBIDDEN, at once.
    A choice with `transitions` moves only as they allow, checked by the same condition."""
    for name in entity.key_attributes:
        checked(entity.attributes[name], arguments[name], name)
    given = {name: value for name, value in changes.items() if value is not None}
    if not given and not sets and (entity.copies is None or at_least_one):
        raise BadUserInput(_give(list(changes)))
    given.update(sets or {})
    values = {name: checked(entity.attributes[name], v, name) for name, v in given.items()}
    admins_move(entity, transitions, values, caller)
    if entity.copies is not None or entity.places is not None:
        # Several items to write anew: the kind's own update, at the version it reads.
        kind = entity_copies.update if entity.copies is not None else place_updates.update
        return await kind(
            store,
            items,
            entity,
            arguments,
            values,
            caller=caller,
            writer_only=writer_only,
            transitions=transitions,
        )
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
    reads = kept_values(entity, set(values), {*changes, *(sets or {})})
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


def _give(names: list[str]) -> str:
    quoted = [f"`{name}`" for name in names]
    if len(quoted) == 1:
        return f"give {quoted[0]}"
    if len(quoted) == 2:
        return f"give {quoted[0]}, {quoted[1]} or both"
    return f"give at least one of {', '.join(quoted)}"


async def delete(
    store: Store,
    items: ItemLoader,
    entity: Entity,
    arguments: Mapping[str, Any],
    *,
    caller: Caller,
    writer_only: bool,
    owner_only: bool = False,
    parent_owner_of: Entity | None = None,
) -> bool:
    """Remove the entity `arguments` name; with `writer_only`, only its author (or an
    admin) may, and with `owner_only` its owner, decided by the delete's own condition;
    with `parent_owner_of`, its parent's owner, held by a ConditionCheck on the parent in
    the same transaction."""
    if entity.copies is not None:
        return await entity_copies.delete(
            store, items, entity, arguments, caller=caller, writer_only=writer_only
        )
    if entity.places is not None:
        return await entity_places.delete(
            store, items, entity, dict(arguments), caller=caller, writer_only=writer_only
        )
    key = key_of(entity, arguments)
    missing = NotFound(f"{described(entity, arguments)} does not exist")
    if key is None:
        raise missing
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
