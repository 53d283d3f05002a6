"""A declared entity's writes (`model/`): create, update and delete, each one request or
one transaction, every key attribute derived from the values in the same write.

A create stamps its timestamps, makes its generated id and records its author; under a
parent it is one transaction with the check that the parent exists (and is not being
removed). What each write then does follows from how the entity's items are kept
(`data/writes/keeping.py`): its own item alone, with copies, or by place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from data import validation
from data.callers import Caller
from data.clock import new_ksuid, now
from data.entities import Record, checked, described, record, stored
from data.writes.creates import put_under
from data.writes.keeping import Change, Removing
from data.writes.kinds import keeping_of
from data.writes.owners import admins_move
from errors.vocabulary import BadUserInput
from model import Entity, Model, Moves
from model.attributes import Creation
from store.client import TRANSACT_CALLS, Store
from store.loaders import ItemLoader
from store.requests import Item


def create_calls(model: Model, entity: Entity) -> int:
    """The most DynamoDB calls a create makes."""
    if model.parent_of(entity) is not None:
        return TRANSACT_CALLS
    return keeping_of(entity).create_calls()


def update_calls(entity: Entity, changes: Iterable[str]) -> tuple[int, int]:
    """The most calls an update of `changes` makes, and the items its reads take."""
    return keeping_of(entity).update_calls(entity, changes)


def delete_calls(entity: Entity) -> tuple[int, int]:
    """The most calls a delete makes, and the items its reads take."""
    return keeping_of(entity).delete_calls(entity)


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
    values, item, beside = new_items(
        entity, given, caller=caller, created=_created(entity, given, current), current=current
    )
    parent = model.parent_of(entity)
    if parent is not None and entity.parent is not None:
        theirs = {their: values[mine] for mine, their in entity.parent.attributes.items()}
        named = described(parent, theirs)
        await put_under(
            store,
            parent.primary_key(theirs),
            f"{named} does not exist",
            item,
            *beside,
            retry=f"the {entity.noun} could not be {done}; try again",
            removing=f"{named} is being removed",
        )
    else:
        await keeping_of(entity).create(store, entity, item, beside, done)
    return record(entity, item)


def new_items(
    entity: Entity,
    given: Mapping[str, Any],
    *,
    caller: Caller,
    created: datetime,
    current: datetime,
) -> tuple[dict[str, Any], Item, list[Item]]:
    """A new entity's values, its item and the items written beside it (its copies):
    `given` checked, its id generated, its timestamps stamped (`created`, and `current` for
    those stamped on every write)."""
    values: dict[str, Any] = {}
    creation = Creation(created=created, current=current, new_id=new_ksuid)
    for name, attribute in entity.attributes.items():
        made = attribute.made(given.get(name), creation)
        if made is not None:
            values[name] = made
        elif attribute.given:
            values[name] = checked(attribute, given.get(name), name)
    # What the engine computes from the others (a total over the lines) comes once they are.
    for name, attribute in entity.attributes.items():
        computed = attribute.computed(entity, values)
        if computed is not None:
            values[name] = computed
    kept = keeping_of(entity)
    kept.derive(entity, values)
    item, beside = kept.written(
        entity,
        {
            **entity.item_keys(values),
            **stored(entity, values),
            **(caller.authored() if entity.author is not None else {}),
        },
    )
    return values, item, beside


def _created(entity: Entity, given: Mapping[str, Any], current: datetime) -> datetime:
    """When the entity is made: now, or the earlier time an import gives."""
    for name, attribute in entity.attributes.items():
        value = given.get(name)
        if attribute.importable and value is not None:
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
    kept = keeping_of(entity)
    given = {name: value for name, value in changes.items() if value is not None}
    if not given and not sets and (at_least_one or not kept.answers_unchanged):
        raise BadUserInput(_give(list(changes)))
    given.update(sets or {})
    values = {name: checked(entity.attributes[name], v, name) for name, v in given.items()}
    admins_move(entity, transitions, values, caller)
    change = Change(
        arguments,
        values,
        caller,
        writer_only,
        transitions,
        frozenset({*changes, *(sets or {})}),
        owner_only,
        parent_owner_of,
    )
    return await kept.update(store, items, entity, change)


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
    removing = Removing(arguments, caller, writer_only, owner_only, parent_owner_of)
    return await keeping_of(entity).delete(store, items, entity, removing)
