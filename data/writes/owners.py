"""Writes an entity's owner may make (`access="owner"` on `Update` and `Delete`), and its
parent's owner (`access="parent_owner"`: an event's organizer confirms its orders), decided
by the write's own condition: the owner read strongly consistent, then held to that value
by the write (on the parent's item, by a ConditionCheck in the same transaction), so that
an item that changed hands meanwhile is refused, never written; and the moves of a choice
only admins may make."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from data.callers import Caller
from data.entities import described
from data.readers import is_owner
from errors.vocabulary import Conflict, DynagateError, Forbidden, NotFound, Unauthenticated
from model import Entity, Moves
from store.client import Store
from store.errors import TransactionCanceled
from store.requests import Item, Key, condition_check, expecting, transaction_update


def not_yours(entity: Entity, arguments: Mapping[str, Any]) -> Forbidden:
    owner = entity.owner
    assert owner is not None  # checked when the model is built
    return Forbidden(
        f"{described(entity, arguments)} is not yours: only its {owner.noun} (or an admin)"
        " may change it"
    )


async def owner_held(
    store: Store, entity: Entity, key: Key, arguments: Mapping[str, Any], caller: Caller
) -> dict[str, Any]:
    """The owner value the write's condition holds the item to: as stored, once read and
    found to be the caller's (nothing for an admin)."""
    owner = entity.owner
    assert owner is not None  # checked when the model is built
    if caller.unrestricted:
        return {}
    if not caller.signed_in:
        raise Unauthenticated(f"sign in to change your {entity.noun}")
    found = await store.get(key, consistent=True)
    if found is None:
        raise NotFound(f"{described(entity, arguments)} does not exist")
    name = entity.stored_name(owner.attribute)
    if not is_owner(entity, found.get(name), caller):
        raise not_yours(entity, arguments)
    return {name: found[name]}


def still_owned(entity: Entity, stored: Item | None, caller: Caller) -> bool:
    """Whether the item a refused write found is still the caller's (else: not yours)."""
    owner = entity.owner
    if owner is None or stored is None or caller.unrestricted:
        return True
    return is_owner(entity, stored.get(entity.stored_name(owner.attribute)), caller)


def admins_move(
    entity: Entity, transitions: Sequence[Moves], values: Mapping[str, Any], caller: Caller
) -> None:
    """FORBIDDEN for a move only admins may make (a refund), asked by anyone else."""
    for transition in transitions:
        value = values.get(transition.attribute)
        if value is not None and value in transition.admins_only and not caller.unrestricted:
            raise Forbidden(f"only admins move a {entity.noun}'s {transition.attribute} to {value}")


def not_parent_owner(entity: Entity, parent: Entity) -> Forbidden:
    owner = parent.owner
    assert owner is not None  # checked when the model is built
    return Forbidden(
        f"only the {parent.noun}'s {owner.noun} (or an admin) may change its {entity.noun}s"
    )


async def parent_owner_check(
    store: Store, entity: Entity, parent: Entity, arguments: Mapping[str, Any], caller: Caller
) -> dict[str, Any] | None:
    """The ConditionCheck that holds the parent's item to its owner, read just before and
    found to be the caller, in the write's own transaction (None for an admin)."""
    owner = parent.owner
    assert owner is not None and entity.parent is not None  # checked when built
    if caller.unrestricted:
        return None
    if not caller.signed_in:
        raise Unauthenticated(f"sign in to change a {entity.noun}")
    values = {theirs: arguments[mine] for mine, theirs in entity.parent.attributes.items()}
    key = parent.primary_key(values)
    found = await store.get(key, consistent=True)
    name = parent.stored_name(owner.attribute)
    if found is None or not is_owner(parent, found.get(name), caller):
        raise not_parent_owner(entity, parent)
    check = condition_check(store.table, key, exists=True)
    return expecting(check, {name: found[name]}, old_on_failure=True)


async def update_under(
    store: Store,
    check: dict[str, Any],
    request: dict[str, Any],
    key: Key,
    refusals: Callable[[Item | None], DynagateError],
    parent_refusal: DynagateError,
) -> Item:
    """The update `request`, in one transaction with the parent's `check`; the item as it
    then is, read strongly consistent (a transaction answers nothing). A refusal of the
    update's own condition is said by `refusals` of the item it found."""
    try:
        await store.transact([check, transaction_update(request)])
    except TransactionCanceled as exc:
        if exc.failed(0):
            raise parent_refusal from None
        if exc.failed(1):
            raise refusals(exc.items[1]) from None
        raise exc.as_error("the change could not be made; try again") from exc
    found = await store.get(key, consistent=True)
    if found is None:  # removed right after: the change was made
        raise Conflict("the item was removed right after the change; read it again")
    return found
