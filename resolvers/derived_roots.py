"""The root fields of a declared model (`model/`): a Query field per lookup, a Mutation per
create and update (each with its input type), a Subscription per followed list; each with
its worst case (`resolvers/cost.py`) and its rule of access (`resolvers/access.py`).

Resolvers are made per pattern; Strawberry reads their arguments from the signature each
is given, so the schema shows exactly the declared arguments.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import strawberry

from data import entities, entity_writes
from data.changes import ChangeKind, Followed
from model import Access, Create, Entity, ListOf, Lookup, Model, Update
from resolvers import lookahead
from resolvers.access import ADMINS, ANYONE, AUTHOR, SIGNED_IN, Rule, Stored
from resolvers.context import Context
from resolvers.cost import entity as named_entity
from resolvers.cost import field_with_cost, item_read, mutation_with_cost, write_calls
from resolvers.derived_types import EntityTypes, graphql_type
from resolvers.relay import NOT_GIVEN, given
from resolvers.subscriptions import follow, subscription

Info = strawberry.Info[Context, None]
_RULES: Mapping[str, Rule] = {
    "anyone": ANYONE,
    "signed_in": SIGNED_IN,
    "author": AUTHOR,
    "admins": ADMINS,
}


@dataclass(frozen=True)
class Roots:
    """The root types a schema is made of, each merged in order, and the entities whose
    changes its subscriptions follow."""

    query: tuple[type[Any], ...] = ()
    mutation: tuple[type[Any], ...] = ()
    subscription: tuple[type[Any], ...] = ()
    followed: tuple[Followed, ...] = ()


def derived_roots(model: Model) -> Roots:
    """The root types of `model`'s patterns."""
    types = EntityTypes(model)
    query = {p.field: _lookup(model, types, p) for p in model.of_kind(Lookup)}
    mutation: dict[str, Any] = {}
    for pattern in model.patterns:
        if isinstance(pattern, Create):
            mutation[pattern.field] = _create(model, types, pattern)
        elif isinstance(pattern, Update):
            mutation[pattern.field] = _update(types, pattern)
    lists = [p for p in model.of_kind(ListOf) if p.subscription is not None]
    follows = {p.subscription: _follow(types, p) for p in lists if p.subscription is not None}
    return Roots(
        query=_root("DerivedQuery", query),
        mutation=_root("DerivedMutation", mutation),
        subscription=_root("DerivedSubscription", follows),
        followed=tuple(entities.followed(p) for p in lists),
    )


def rule(access: Access, entity: Entity) -> Rule:
    if access != "writer":
        return _RULES[access]
    author = entity.author
    role = "author" if author is None else author[1].role
    return Stored(f"the {entity.noun}'s {role}")


def _root(name: str, fields: Mapping[str, Any]) -> tuple[type[Any], ...]:
    return (strawberry.type(type(name, (), dict(fields))),) if fields else ()


def _signed(
    resolve: Callable[..., Any], name: str, arguments: Mapping[str, Any], returns: Any
) -> Callable[..., Any]:
    """`resolve(self, info, **arguments)` as Strawberry sees a resolver named `name` with
    these arguments (by name, their types) and return type."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("info", keyword, annotation=Info),
        *(inspect.Parameter(n, keyword, annotation=t) for n, t in arguments.items()),
    ]
    resolve.__name__ = name
    resolve.__signature__ = inspect.Signature(parameters, return_annotation=returns)  # type: ignore[attr-defined]
    return resolve


def _lookup(model: Model, types: EntityTypes, pattern: Lookup) -> Any:
    entity = pattern.entity
    lists = model.lists_under(entity)

    async def resolve(self: Any, info: Info, **arguments: Any) -> Any:
        builders = {
            p.field: _prefetch(p, entity, arguments) for p in lists if _prefetchable(p, entity)
        }
        reads = lookahead.child_reads(info, builders)
        context = info.context
        found, prefetched = await entities.load_with_lists(
            context.items, context.pages, entity, arguments, reads
        )
        return None if found is None else types.node(entity, found, prefetched)

    arguments = {n: graphql_type(entity.attributes[n]) for n in entity.key_attributes}
    kind = types.types[entity.name]
    signed = _signed(resolve, pattern.field, arguments, kind | None)
    cost = item_read(named_entity(entity.name, *entity.key_attributes))
    return field_with_cost(cost, rule(pattern.access, entity))(signed)


def _prefetchable(pattern: ListOf, parent: Entity) -> bool:
    """Whether the lookup's arguments name the list's partition and the parent's place."""
    keys = parent.all_keys[pattern.index]
    return set(keys.partition.attributes + keys.sort.attributes) <= set(parent.key_attributes)


def _prefetch(pattern: ListOf, parent: Entity, arguments: Mapping[str, Any]) -> Any:
    return lambda a: entities.list_read(pattern, parent, arguments, lookahead.page_args(a))


def _input(name: str, fields: Mapping[str, Any], description: str | None) -> type[Any]:
    annotations: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    for field, (kind, optional) in fields.items():
        annotations[field] = kind | None if optional else kind
        if optional:
            defaults[field] = NOT_GIVEN
    namespace = {"__annotations__": annotations, **defaults}
    return strawberry.input(type(name, (), namespace), description=description)


def _create(model: Model, types: EntityTypes, pattern: Create) -> Any:
    entity = pattern.entity
    fields = {n: (graphql_type(a), a.optional) for n, a in entity.attributes.items() if a.given}
    kind = _input(_capital(pattern.field) + "Input", fields, None)

    async def resolve(self: Any, info: Info, input: Any) -> Any:
        values = {name: given(getattr(input, name)) for name in fields}
        context = info.context
        created = await entity_writes.create(
            context.store, model, entity, values, done=pattern.done, caller=context.caller
        )
        return types.node(entity, created)

    signed = _signed(resolve, pattern.field, {"input": kind}, types.types[entity.name])
    cost = write_calls(entity_writes.create_calls(model, entity))
    return mutation_with_cost(cost, rule(pattern.access, entity))(signed)


def _update(types: EntityTypes, pattern: Update) -> Any:
    entity = pattern.entity
    fields = {n: (graphql_type(entity.attributes[n]), False) for n in entity.key_attributes}
    fields.update({n: (graphql_type(entity.attributes[n]), True) for n in pattern.changes})
    kind = _input(_capital(pattern.field) + "Input", fields, pattern.description)

    async def resolve(self: Any, info: Info, input: Any) -> Any:
        context = info.context
        updated = await entity_writes.update(
            context.store,
            context.items,
            entity,
            {name: getattr(input, name) for name in entity.key_attributes},
            {name: given(getattr(input, name)) for name in pattern.changes},
            caller=context.caller,
            writer_only=pattern.access == "writer",
        )
        return types.node(entity, updated)

    signed = _signed(resolve, pattern.field, {"input": kind}, types.types[entity.name])
    cost = write_calls(entity_writes.update_calls(entity))
    return mutation_with_cost(cost, rule(pattern.access, entity))(signed)


def _follow(types: EntityTypes, pattern: ListOf) -> Any:
    entity = pattern.entity
    partition = entity.all_keys[pattern.index].partition.attributes
    event = types.changes[entity.name]

    def made(kind: ChangeKind, change: Any) -> Any:
        state = change.new if change.new is not None else change.old
        node = None if change.new is None else types.node(entity, change.new)
        keys = {name: state[name] for name in entity.key_attributes}
        return event(kind=kind, **keys, **{entity.noun: node})

    async def resolve(self: Any, info: Info, **arguments: Any) -> AsyncGenerator[Any, None]:
        values = [str(entities.checked(entity.attributes[n], arguments[n], n)) for n in partition]
        topic = (entity.noun, entities.topic(values))
        return follow(info, (topic, lambda _state: True), made)

    arguments = {n: graphql_type(entity.attributes[n]) for n in partition}
    name = pattern.subscription or ""
    signed = _signed(resolve, name, arguments, AsyncGenerator[event, None])  # type: ignore[valid-type]
    if pattern.subscription_description is not None:
        signed.__doc__ = pattern.subscription_description
    return subscription(rule(pattern.subscription_access, entity))(signed)


def _capital(name: str) -> str:
    return name[0].upper() + name[1:]
