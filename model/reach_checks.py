"""Where a query can reach an entity whose items only some may read (`Entity.readers`): each
list and subscription of it must be one whose pages are the caller's to read whole, decided
before any read, or the model is refused naming the path and the ways to fix it. A page is
never read and then thinned out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from model.errors import ModelError
from model.patterns import ListOf

if TYPE_CHECKING:
    from model.entities import Entity
    from model.model import Model


def check_reach(model: Model) -> None:
    for entity in model.entities:
        rule = entity.readers
        parent = model.parent_of(entity)
        fields_with_parent = [a for a in entity.attributes.values() if a.readers is not None]
        rules = [r for r in (rule, *(a.readers for a in fields_with_parent)) if r is not None]
        if any(r.parent_owner for r in rules) and (parent is None or parent.owner is None):
            raise ModelError(
                f"{entity.name}'s readers: parent_owner needs a parent that declares its Owner"
            )
        if rule is None:
            continue
        for pattern in model.of_kind(ListOf):
            if pattern.entity is entity:
                _check_list(entity, pattern, parent)


def keyed_by_owner(entity: Entity, pattern: ListOf) -> bool:
    """Whether the list's partition is its owner's: every page one owner's items."""
    keys = entity.keys_on(pattern.index)
    owner = entity.owner
    return owner is not None and keys is not None and owner.attribute in keys.partition.attributes


def _check_list(entity: Entity, pattern: ListOf, parent: Entity | None) -> None:
    rule = entity.readers
    assert rule is not None
    whole_pages = (
        (rule.owner and keyed_by_owner(entity, pattern))
        or bool(rule.groups)
        or rule.signed_in
        or (rule.parent_owner and parent is not None)
    )
    holder = "Query" if pattern.root or parent is None else parent.name
    paths = [(f"{holder}.{pattern.field}", pattern.access if pattern.root else None)]
    if pattern.subscription is not None:
        paths.append((f"Subscription.{pattern.subscription}", pattern.subscription_access))
    for path, access in paths:
        if whole_pages or access == "admins":
            continue
        raise ModelError(
            f"{path} reaches {entity.name}, which only {rule.described} may read, and its"
            f" pages would hold others' items: key the list by the owner (its partition holding"
            f" {entity.owner.attribute if entity.owner else 'the owner'!r}), let a group or the"
            f" parent's owner read {entity.name} (readers(groups=[...], parent_owner=True)),"
            ' give the list to admins (access="admins"), or leave the list out'
        )
