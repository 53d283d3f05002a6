"""Who may read an entity's items (`model.Readers`), decided for a caller: an item on what it
holds (its owner) and its parent's item (the parent's owner), a list before any read, on
what its partition names and the caller's token alone, so that a page is never read and
then thinned out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data.callers import Caller
from model import Entity, ListOf, Readers
from model.reach_checks import keyed_by_owner


def by_token(rule: Readers, caller: Caller) -> bool:
    """Whether the token alone lets `caller` read whatever the rule guards: admins (and
    anyone in open mode), members of its groups, any signed-in caller where it says so."""
    return (
        caller.unrestricted
        or (rule.signed_in and caller.signed_in)
        or not caller.groups.isdisjoint(rule.groups)
    )


def is_owner(entity: Entity, value: Any, caller: Caller) -> bool:
    """Whether `value` of the entity's owner attribute names `caller` (a handle ignoring
    case, an identifier exactly)."""
    owner = entity.owner
    if owner is None or value is None or caller.username is None:
        return False
    if entity.attributes[owner.attribute].folds_case:
        return caller.is_user(str(value))
    return str(value) == caller.username


def reads_item(
    rule: Readers,
    entity: Entity,
    record: Mapping[str, Any],
    caller: Caller,
    parent: Entity | None = None,
    parent_record: Mapping[str, Any] | None = None,
) -> bool:
    """Whether `caller` may read the entity's item `record` (under `parent_record`)."""
    owner = entity.owner
    return (
        by_token(rule, caller)
        or (
            rule.owner
            and owner is not None
            and is_owner(entity, record.get(owner.attribute), caller)
        )
        or (
            rule.parent_owner
            and parent is not None
            and parent.owner is not None
            and parent_record is not None
            and is_owner(parent, parent_record.get(parent.owner.attribute), caller)
        )
    )


def reads_list(
    pattern: ListOf,
    caller: Caller,
    partition: Mapping[str, Any],
    parent: Entity | None = None,
    parent_record: Mapping[str, Any] | None = None,
) -> bool:
    """Whether `caller` may read every item the list can hold, before reading it: the
    list's `partition` values name the caller as the owner, or the parent's item its owner,
    or the token is enough."""
    entity = pattern.entity
    rule = entity.readers
    if rule is None or by_token(rule, caller):
        return True
    owner = entity.owner
    keyed = rule.owner and owner is not None and keyed_by_owner(entity, pattern)
    if keyed and owner is not None and is_owner(entity, partition.get(owner.attribute), caller):
        return True
    return bool(
        rule.parent_owner
        and parent is not None
        and parent.owner is not None
        and parent_record is not None
        and is_owner(parent, parent_record.get(parent.owner.attribute), caller)
    )
