"""The readers of entities and fields (`model.Readers`, `data/readers.py`) held on every
path a query takes: an item shown, a list before its read, a field of an item. The parent's
item a rule needs is read through the request's loader, once per request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data import entities
from data.readers import by_token, reads_item, reads_list
from errors.vocabulary import Forbidden
from model import Entity, ListOf, Model, Readers
from resolvers.context import Context


async def parent_record(
    context: Context, model: Model, entity: Entity, values: Mapping[str, Any]
) -> Mapping[str, Any] | None:
    """The record of the parent whose key `values` (the child's attributes) name."""
    parent = model.parent_of(entity)
    if parent is None or entity.parent is None:
        return None
    mapped = {theirs: values[mine] for mine, theirs in entity.parent.attributes.items()}
    item = await context.items.load_item(parent.primary_key(mapped))
    return None if item is None else entities.record(parent, item)


async def needed_parent(
    context: Context,
    model: Model,
    entity: Entity,
    rule: Readers,
    values: Mapping[str, Any],
) -> Mapping[str, Any] | None:
    """The parent's record where the rule needs it to decide for the caller, else None
    (an anonymous caller owns no parent)."""
    if not rule.parent_owner or by_token(rule, context.caller) or not context.caller.signed_in:
        return None
    return await parent_record(context, model, entity, values)


async def require_item(
    context: Context,
    model: Model,
    entity: Entity,
    record: Mapping[str, Any],
    parent: Mapping[str, Any] | None = None,
) -> Mapping[str, Any] | None:
    """FORBIDDEN unless the caller may read `record`; the parent's record the decision read
    (or `parent`), for the item's own lists to decide with."""
    rule = entity.readers
    if rule is None:
        return parent
    if parent is None:
        parent = await needed_parent(context, model, entity, rule, record)
    require_listed(context, model, entity, record, parent)
    return parent


async def require_list(
    context: Context,
    model: Model,
    pattern: ListOf,
    partition: Mapping[str, Any],
    parent: Mapping[str, Any] | None = None,
) -> Mapping[str, Any] | None:
    """FORBIDDEN, before any read, unless the caller may read every item the list can
    hold (`partition`: the values its partition's attributes take); the parent's record
    the decision read (or `parent`), for its items to be shown with."""
    entity = pattern.entity
    rule = entity.readers
    if rule is None:
        return parent
    if parent is None and entity.parent is not None:
        names = set(entity.parent.attributes)
        if names <= set(partition):
            parent = await needed_parent(context, model, entity, rule, partition)
    if not reads_list(pattern, context.caller, partition, model.parent_of(entity), parent):
        raise Forbidden(
            f"`{pattern.field}` lists {entity.name} items, which only {rule.described} may"
            " read, and it may hold others'"
        )
    return parent


def partition_under(entity: Entity, parent: Mapping[str, Any]) -> dict[str, Any]:
    """The values a list under `parent`'s record gives its items' parent attributes."""
    assert entity.parent is not None
    return {mine: parent[theirs] for mine, theirs in entity.parent.attributes.items()}


def require_listed(
    context: Context,
    model: Model,
    entity: Entity,
    record: Mapping[str, Any],
    parent: Mapping[str, Any] | None,
) -> None:
    """FORBIDDEN unless the caller may read `record` under its `parent`'s record: an item
    shown, or one of a page whose list the caller may read (which then never refuses,
    unless the list's own decision were wrong: FORBIDDEN rather than another's item)."""
    rule = entity.readers
    if rule is not None and not reads_item(
        rule, entity, record, context.caller, model.parent_of(entity), parent
    ):
        raise Forbidden(f"{entities.described(entity, record)}: only {rule.described} may read it")


def reads_parent(entity: Entity) -> bool:
    """Whether showing the entity may read its parent's item (its readers name the
    parent's owner): a read its fields' worst case counts."""
    return entity.readers is not None and entity.readers.parent_owner
