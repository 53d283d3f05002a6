"""A copied entity's writes (`model.Copies`, docs/model.md#copies): its own item and a copy in every
list a filter can ask for, changed together in one TransactWriteItems.

The own item's `version` guards every change, so a failed or concurrent write never leaves
copies that disagree with it; the copies carry every attribute of the own item (the author
too), since lists read the entity from them. An update or a delete first reads the item
(consistently): which copies exist follows from the values stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import combinations, product
from typing import Any

from data.callers import AUTHOR, AUTHOR_KEY, Caller, wrote
from data.clock import now
from data.entities import Record, described, key_of, record, stored
from data.writes.creates import put_all
from data.writes.keeping import Action, Change, ReadFirst, Removing
from errors.vocabulary import BadUserInput, Conflict, DynagateError, Forbidden, NotFound
from keys.codecs import format_timestamp, parse_timestamp
from model import Entity, Moves
from model.kinds import copies_made, domain
from store.client import TRANSACT_CALLS, Store
from store.errors import TransactionCanceled
from store.loaders import ItemLoader
from store.requests import Item, Key, expecting, primary_key, transaction_delete, transaction_put

# The read that finds the stored item, then the transaction.
CHANGE_CALLS = 1 + TRANSACT_CALLS
VERSION = "version"


def copies(entity: Entity, item: Item) -> list[Item]:
    """The copies the stored own `item` implies: its attributes (the entity's, the
    author's and the version; not the engine's own, such as a write's token) under each
    copy's keys."""
    values = record(entity, item)
    kept = (*entity.attributes, AUTHOR, AUTHOR_KEY, VERSION)
    fields = {name: item[name] for name in kept if name in item}
    fields["type"] = f"{entity.label}_COPY"
    templates = entity.copy_templates
    return [
        {
            **{
                name: template.render(**{s.name: chosen[s.name] for s in template.segments})
                for name, template in templates.items()
            },
            **fields,
        }
        for chosen in _filters(entity, values)
    ]


def _filters(entity: Entity, values: Record) -> Iterator[dict[str, Any]]:
    """Each copy's values: the entity's, with each `either` filter its value or None (any)
    and each set filter one of the sets that hold its value."""
    assert entity.copies is not None
    choices: list[list[tuple[str, Any]]] = []
    for name in entity.copies.either:
        choices.append([(name, values[name]), (name, None)])
    for name in entity.copies.sets:
        value = values[name]
        others = [v for v in domain(entity.attributes[name]) if v != value]
        choices.append(
            [
                (name, frozenset({value, *extra}))
                for size in range(len(others) + 1)
                for extra in combinations(others, size)
            ]
        )
    for chosen in product(*choices):
        yield {**values, **dict(chosen)}


async def update(store: Store, items: ItemLoader, entity: Entity, change: Change) -> Record:
    """Change the checked values of the entity `change` names and move its copies between
    lists, in one transaction at the version read; an unchanged entity is not written."""
    arguments, values, caller = change.arguments, change.values, change.caller
    writer_only, transitions = change.writer_only, change.transitions
    key, current = await _read(store, entity, arguments, caller, writer_only, "change")
    check_moves(entity, arguments, transitions, values, current)
    was = record(entity, current)
    if all(was[name] == value for name, value in values.items()):
        return was
    changed = dict(stored(entity, values))
    for stamp in entity.write_stamps:
        # Never back in time, whatever this clock says.
        earlier = current.get(stamp)
        at = now() if earlier is None else max(now(), parse_timestamp(earlier))
        changed[stamp] = format_timestamp(at)
    # An item written before its entity kept copies has no version yet (nor copies).
    new = {**current, **changed, VERSION: current.get(VERSION, 0) + 1}
    new.update(entity.item_keys(record(entity, new)))
    new_copies = copies(entity, new)
    kept = {items.item_key(c) for c in new_copies}
    actions = [
        _guarded(transaction_put(store.table, new), current, caller, writer_only),
        *(transaction_put(store.table, copy) for copy in new_copies),
        *(
            transaction_delete(store.table, primary_key(c, entity.table))
            for c in copies(entity, current)
            if items.item_key(c) not in kept
        ),
    ]
    await _commit(store, entity, arguments, actions, caller, "changed")
    items.refresh(key, new)
    return record(entity, new)


async def delete(store: Store, items: ItemLoader, entity: Entity, removing: Removing) -> bool:
    """Remove the entity `removing` names and every copy, from every list, at once."""
    arguments, caller, writer_only = removing.arguments, removing.caller, removing.writer_only
    key, current = await _read(store, entity, arguments, caller, writer_only, "remove")
    actions = [
        _guarded(transaction_delete(store.table, key), current, caller, writer_only),
        *(
            transaction_delete(store.table, primary_key(c, entity.table))
            for c in copies(entity, current)
        ),
    ]
    await _commit(store, entity, arguments, actions, caller, "removed")
    items.forget(key)
    return True


async def _read(
    store: Store,
    entity: Entity,
    arguments: Mapping[str, Any],
    caller: Caller,
    writer_only: bool,
    verb: str,
) -> tuple[Key, Item]:
    """The entity as stored; a caller who did not write it is refused here already, which
    saves a write its condition would refuse anyway."""
    key = key_of(entity, arguments)
    if writer_only:
        caller.restriction(f"sign in to {verb} a {entity.noun}")
    current = None if key is None else await store.get(key, consistent=True)
    if key is None or current is None:
        raise NotFound(f"{described(entity, arguments)} does not exist")
    if writer_only and not wrote(current, caller):
        raise not_theirs(entity, arguments)
    return key, current


def _guarded(
    action: dict[str, Any], current: Item, caller: Caller, writer_only: bool
) -> dict[str, Any]:
    """The own item's action: only at the version read and, for a writer's rule, while the
    caller is its author. The stored item comes back with a refusal, to tell which failed."""
    versioned = VERSION in current
    expected: dict[str, Any] = {VERSION: current[VERSION]} if versioned else {}
    restriction = caller.restriction() if writer_only else None
    if restriction is not None:
        expected[AUTHOR_KEY] = restriction
    absent = () if versioned else (VERSION,)
    return expecting(action, expected, absent=absent, old_on_failure=True)


async def _commit(
    store: Store,
    entity: Entity,
    arguments: Mapping[str, Any],
    actions: list[dict[str, Any]],
    caller: Caller,
    done: str,
) -> None:
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        stored_item = exc.items[0]
        refusal: DynagateError = Conflict(
            f"{described(entity, arguments)} was changed by another request; reload it"
        )
        if stored_item is not None and not wrote(stored_item, caller):
            refusal = not_theirs(entity, arguments)
        retry = f"the {entity.noun} could not be {done}; try again"
        raise exc.explained({0: refusal}, retry) from exc


def check_moves(
    entity: Entity,
    arguments: Mapping[str, Any],
    transitions: Sequence[Moves],
    values: Mapping[str, Any],
    item: Mapping[str, Any],
) -> None:
    """BAD_USER_INPUT when the stored item's choice may not move to the value asked."""
    for transition in transitions:
        name = transition.attribute
        sources = [str(source) for source in transition.sources(values.get(name))]
        # A choice declared since the item was written is its initial value.
        was = item.get(entity.stored_name(name), _initial(entity, name))
        if name in values and was not in sources:
            raise BadUserInput(
                f"{described(entity, arguments)} cannot move from {was} to {values[name]}",
                field=name,
            )


def _initial(entity: Entity, name: str) -> str | None:
    attribute = entity.attributes.get(name)
    initial = None if attribute is None else attribute.starts_at
    return None if initial is None else str(initial)


def named_key(entity: Entity, arguments: Mapping[str, Any]) -> tuple[Key, NotFound]:
    """The key of the entity `arguments` name, and the refusal for when no item is stored
    under it: raised at once when they name no key."""
    missing = NotFound(f"{described(entity, arguments)} does not exist")
    key = key_of(entity, arguments)
    if key is None:
        raise missing
    return key, missing


def not_theirs(entity: Entity, arguments: Mapping[str, Any]) -> Forbidden:
    verb = "written" if entity.author is None else entity.author[1].verb
    return Forbidden(f"{described(entity, arguments)} was {verb} by someone else")


class Copied(ReadFirst):
    """An entity kept with a copy in every list a filter can ask for (docs/model.md#copies)."""

    answers_unchanged = True
    updates = (
        "TransactWriteItems (the item, its copies in the lists it is in now, and the end of"
        " those in lists it left)"
    )
    deletes = "TransactWriteItems (the item and every copy)"

    def derive(self, entity: Entity, values: dict[str, Any]) -> None:
        pass

    def written(self, entity: Entity, item: Item) -> tuple[Item, list[Item]]:
        own = {**item, **entity.kind, VERSION: 1}
        return own, copies(entity, own)

    def create_calls(self) -> int:
        return TRANSACT_CALLS

    async def create(
        self, store: Store, entity: Entity, item: Item, beside: list[Item], done: str
    ) -> None:
        taken = f"{described(entity, record(entity, item))} already exists"
        await put_all(store, item, beside, taken)

    def update_calls(self, entity: Entity, changes: Iterable[str]) -> tuple[int, int]:
        return CHANGE_CALLS, 1

    async def update(
        self, store: Store, items: ItemLoader, entity: Entity, change: Change
    ) -> Record:
        return await update(store, items, entity, change)

    def delete_calls(self, entity: Entity) -> tuple[int, int]:
        return CHANGE_CALLS, 1

    async def delete(
        self, store: Store, items: ItemLoader, entity: Entity, removing: Removing
    ) -> bool:
        return await delete(store, items, entity, removing)

    def own_key(self, entity: Entity, item: Item) -> Key:
        # A copy holds every value of its own item, but its key is a copy's.
        if not entity.is_kind_of(item):
            return entity.primary_key(record(entity, item))
        return primary_key(item, entity.table)

    def removal(
        self, table: str, entity: Entity, item: Item, held: Mapping[str, Any]
    ) -> list[Action]:
        expected = dict(held)
        if VERSION in item:
            expected[VERSION] = item[VERSION]
        absent = () if VERSION in item else (VERSION,)  # written before it kept copies
        own = transaction_delete(table, self.own_key(entity, item), must_exist=True)
        return [
            expecting(own, expected, absent=absent, old_on_failure=True),
            *(
                transaction_delete(table, primary_key(c, entity.table))
                for c in copies(entity, item)
            ),
        ]

    def removal_size(self, entity: Entity) -> int:
        return 1 + copies_made(entity)
