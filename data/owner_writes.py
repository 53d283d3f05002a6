"""Writes an entity's owner may make (`access="owner"` on `Update` and `Delete`), decided by
the write's own condition: the owner read strongly consistent, then held to that value by
the write, so that an item that changed hands meanwhile is refused, never written; and the
moves of a choice only admins may make."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from data.callers import Caller
from data.entities import described
from data.readers import is_owner
from keys.errors import Forbidden, NotFound, Unauthenticated
from model import Entity, Moves
from store.client import Store
from store.requests import Item, Key


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
