"""The root fields of a declared model (`model/`): a Query field per lookup and per root
list, a Mutation per write (`resolvers/derived_writes.py`), a Subscription per followed
list; each with its worst case (`resolvers/field_costs.py`) and its rule of access
(`resolvers/access.py`)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import strawberry

from data import entities
from data.callers import Caller
from data.changes import ChangeKind, Followed
from data.collections import Prefetched
from data.entities import Record
from data.entity_lists import Narrowed, followed, list_read, topic_of, whole_page
from data.places import items as entity_places
from data.readers import by_token
from model import (
    Choice,
    Create,
    Delete,
    Entity,
    Heatmap,
    ListOf,
    Lookup,
    Model,
    Near,
    Nearest,
    Update,
)
from resolvers import derived_places, lookahead
from resolvers.context import Context
from resolvers.derived_access import on_token, owned, rule
from resolvers.derived_arguments import (
    REQUIRED,
    graphql_type,
    list_parameters,
    narrowing,
    signed,
)
from resolvers.derived_nearest import nearest_field
from resolvers.derived_types import EntityTypes, filtering, shown_key
from resolvers.derived_writes import create_field, delete_field, update_field
from resolvers.field_costs import entity as named_entity
from resolvers.field_costs import (
    field_with_cost,
    item_read,
    page_read,
    with_item_read,
)
from resolvers.planned import ItemRead, planned
from resolvers.readers import reads_parent, require_item, require_list
from resolvers.relay import Connection, connection_field
from resolvers.scalars import SortDirection
from resolvers.subscriptions import follow, subscription
from store.pagination import PageArgs

Info = strawberry.Info[Context, None]


@dataclass(frozen=True)
class Roots:
    """The root types a schema is made of, each merged in order, and the entities whose
    changes its subscriptions follow."""

    query: tuple[type[Any], ...] = ()
    mutation: tuple[type[Any], ...] = ()
    subscription: tuple[type[Any], ...] = ()
    followed: tuple[Followed, ...] = ()
    # The entities' object types, for a hook's fields to answer with.
    types: EntityTypes | None = None

    def node(self, entity: Entity, record: Mapping[str, Any]) -> Any:
        """The object of `entity`'s type answering `record`, for a hook's resolver (an
        entity with readers is answered through `shown`, which checks the caller)."""
        assert self.types is not None, "the derived roots carry the types"
        return self.types.node(entity, record)

    async def shown(self, info: Info, entity: Entity, record: Mapping[str, Any]) -> Any:
        """The object of `entity`'s type answering `record`, if the caller may read it."""
        assert self.types is not None, "the derived roots carry the types"
        return await self.types.shown(info, entity, record)

    def type_of(self, entity: Entity) -> type[Any]:
        """`entity`'s object type, for a hook's field to return."""
        assert self.types is not None, "the derived roots carry the types"
        return self.types.types[entity.name]

    def part(self, *fields: str) -> tuple[type[Any], ...]:
        """The derived root types holding `fields`, in that order: a hook places them among
        its own (each derived field is a root type of its own)."""
        held = {
            name: kind
            for kind in (*self.query, *self.mutation, *self.subscription)
            for name in getattr(kind, FIELDS, ())
        }
        return tuple(held[name] for name in fields)


def derived_roots(model: Model) -> Roots:
    """The root types of `model`'s patterns, in the order they are declared."""
    types = EntityTypes(model)
    query: dict[str, Any] = {}
    mutation: dict[str, Any] = {}
    follows: dict[str, Any] = {}
    for pattern in model.patterns:
        if isinstance(pattern, Lookup):
            query[pattern.field] = _lookup(model, types, pattern)
        elif isinstance(pattern, Create):
            mutation[pattern.field] = create_field(model, types, pattern)
        elif isinstance(pattern, Update):
            mutation[pattern.field] = update_field(model, types, pattern)
        elif isinstance(pattern, Delete):
            mutation[pattern.field] = delete_field(model, pattern)
        elif isinstance(pattern, Near):
            query[pattern.field] = derived_places.near(types, pattern, on_token(pattern.access))
            if pattern.subscription is not None:
                access = on_token(pattern.subscription_access)
                made = _made(types, pattern.entity)
                follows[pattern.subscription] = derived_places.follow_near(
                    types, pattern, access, made
                )
        elif isinstance(pattern, Heatmap):
            query[pattern.field] = derived_places.heatmap(pattern, on_token(pattern.access))
        elif isinstance(pattern, Nearest):
            query[pattern.field] = nearest_field(types, pattern, on_token(pattern.access))
        else:
            if pattern.root:
                query[pattern.field] = _root_list(types, pattern)
            if pattern.subscription is not None:
                follows[pattern.subscription] = _follow(types, pattern)
    lists = [p for p in model.of_kind(ListOf) if p.subscription is not None]
    near = [p for p in model.of_kind(Near) if p.subscription is not None]
    return Roots(
        query=_root("DerivedQuery", query),
        mutation=_root("DerivedMutation", mutation),
        subscription=_root("DerivedSubscription", follows),
        followed=(
            *(followed(p) for p in lists),
            *(entity_places.followed(p) for p in near),
        ),
        types=types,
    )


# The fields a derived root type holds.
FIELDS = "__dynagate_fields__"


def _root(name: str, fields: Mapping[str, Any]) -> tuple[type[Any], ...]:
    return tuple(
        strawberry.type(type(f"{name}_{field}", (), {field: resolver, FIELDS: (field,)}))
        for field, resolver in fields.items()
    )


def _lookup(model: Model, types: EntityTypes, pattern: Lookup) -> Any:
    entity = pattern.entity
    lists = [p for p in model.lists_under(entity) if _prefetchable(p, entity)]

    owner = entity.owner
    # An owner the arguments do not name is checked on the entity read.
    read_decides = pattern.access == "owner" and (
        owner is not None and owner.attribute not in entity.key_attributes
    )

    def builders(context: Context, arguments: Mapping[str, Any]) -> dict[str, Any]:
        # A list whose readers neither the token nor this entity's item (its owner, for a
        # rule of the parent's owner) can settle decides on its own, before its own read.
        return {
            p.field: _prefetch(p, entity, arguments)
            for p in lists
            if _may_prefetch(p, context.caller)
        }

    async def read(
        context: Context, arguments: Mapping[str, Any], reads: Mapping[str, Any]
    ) -> tuple[Record, Prefetched] | None:
        found, prefetched = await entities.load_with_lists(
            context.items, context.pages, entity, arguments, reads
        )
        if found is None:
            return None
        if read_decides:
            owned(entity, found, context.caller, entities.described(entity, arguments))
        await require_item(context, model, entity, found)
        return found, prefetched

    async def resolve(self: Any, info: Info, **arguments: Any) -> Any:
        reads = lookahead.child_reads(info, builders(info.context, arguments))
        found = await read(info.context, arguments, reads)
        return None if found is None else types.node(entity, *found, checked=True)

    parameters = {n: (graphql_type(entity.attributes[n]), REQUIRED) for n in entity.key_attributes}
    kind = types.types[entity.name]
    # Names in any case are one entity when its key folds them.
    folded = all(entity.attributes[n].folds_case for n in entity.key_attributes)
    cost = item_read(named_entity(entity.name, *entity.key_attributes, fold_case=folded))
    if reads_parent(entity):
        cost = with_item_read(cost)
    given = None if read_decides or owner is None else owner.attribute
    field = field_with_cost(cost, rule(pattern.access, entity, given))(
        signed(resolve, pattern.field, parameters, kind | None)
    )
    return planned(field, ItemRead(entity, builders, read))


def _may_prefetch(pattern: ListOf, caller: Caller) -> bool:
    """Whether the list's first page may be read with its parent for `caller`: no rule of
    readers, or one the token settles. A rule of the parent's owner waits for the parent's
    item: read with it, the page of a caller it does not name would be read and thrown away."""
    rule = pattern.entity.readers
    return rule is None or by_token(rule, caller)


def _prefetchable(pattern: ListOf, parent: Entity) -> bool:
    """Whether the lookup's arguments name the list's partition and the parent's place."""
    keys = parent.all_keys.get(pattern.index)
    if keys is None or pattern.entity.keys_on(pattern.index) != pattern.entity.all_keys.get(
        pattern.index
    ):
        return False  # a list of copies: its partition is not the parent's
    return set(keys.partition.attributes + keys.sort.attributes) <= set(parent.key_attributes)


def _prefetch(pattern: ListOf, parent: Entity, arguments: Mapping[str, Any]) -> Any:
    """The read a list below the lookup makes, from the list's arguments as the document
    gives them; a narrowed list reads its own page (it does not begin at the parent)."""

    def build(given_arguments: Mapping[str, Any]) -> Any:
        if pattern.whole is not None:
            return list_read(pattern, parent, arguments, whole_page(pattern))
        narrowed = _unnarrowed(pattern, given_arguments)
        page = lookahead.page_args(given_arguments)
        return list_read(pattern, parent, arguments, page, narrowed)

    return build


def _unnarrowed(pattern: ListOf, arguments: Mapping[str, Any]) -> Narrowed:
    names = (
        *pattern.equal,
        *(() if pattern.range is None else (pattern.range.argument,)),
        *pattern.filtered,
    )
    if any(arguments.get(name) is not None for name in names if name not in pattern.filtered):
        raise ValueError("narrowed")  # left to the field itself
    # A filter passes the parent: its page still begins there.
    given: dict[str, Any] = {}
    choices = pattern.entity.attributes_of(Choice)  # filters are, as the model checks
    for name in pattern.filtered:
        attribute = choices[name]
        given[name] = lookahead.enum_value(attribute.values, arguments.get(name))
    direction = lookahead.enum_value(SortDirection, arguments.get("direction"))
    if direction is not None:
        given["direction"] = direction
    return narrowing(pattern, given)


def _root_list(types: EntityTypes, pattern: ListOf) -> Any:
    entity = pattern.entity

    async def resolve(self: Any, info: Info, page: PageArgs, **arguments: Any) -> Any:
        partition = {**arguments, **pattern.at}
        parent = await require_list(info.context, types.model, pattern, partition)
        read = list_read(pattern, None, arguments, page, narrowing(pattern, arguments))
        found = await read.page(info.context.pages)
        return Connection.from_page(found.map(read.record), types.listed(info, entity, parent))

    parameters = {**list_parameters(pattern, partition=True), "page": (PageArgs, REQUIRED)}
    returns = Connection[types.types[entity.name]]  # type: ignore[name-defined]
    cost = page_read(entities.most_bytes(entity), filtered=filtering(pattern))
    if reads_parent(entity) and _names_parent(pattern):
        cost = with_item_read(cost)
    # `owner`: the arguments name the owner (its partition's, checked when declared).
    owner = None if entity.owner is None else entity.owner.attribute
    return connection_field(cost, rule(pattern.access or "signed_in", entity, owner))(
        signed(resolve, pattern.field, parameters, returns)
    )


def _made(
    types: EntityTypes, entity: Entity, shown: Callable[[Any], Any] | None = None
) -> Callable[[ChangeKind, Any], Any]:
    """The event of a change of `entity`: its kind, its key and its new state (null once
    it is gone), `shown` as the subscription's list shows its items."""
    event = types.changes[entity.name]
    show = shown or (lambda record: types.node(entity, record))

    def made(kind: ChangeKind, change: Any) -> Any:
        state = change.new if change.new is not None else change.old
        node = None if change.new is None else show(change.new)
        keys = {name: state[name] for name in shown_key(entity)}
        return event(kind=kind, **keys, **{entity.field_name: node})

    return made


def _follow(types: EntityTypes, pattern: ListOf) -> Any:
    entity = pattern.entity
    keys = entity.keys_on(pattern.index)
    assert keys is not None  # checked when the model is built
    partition = keys.partition.attributes
    event = types.changes[entity.name]

    async def resolve(self: Any, info: Info, **arguments: Any) -> AsyncGenerator[Any, None]:
        # As a record holds them: the topic is made from the changed entity's record.
        given = {**arguments, **pattern.at}
        checked = {n: entities.checked(entity.attributes[n], given[n], n) for n in partition}
        # Its events are its list's items: decided once, as the list is, before the first.
        parent = await require_list(info.context, types.model, pattern, checked)
        made = _made(types, entity, types.listed(info, entity, parent))
        narrowed = narrowing(pattern, arguments)
        wanted = (pattern.subscription or pattern.field, topic_of(entity, partition, checked))
        return follow(info, (wanted, lambda state: narrowed.contains(pattern, state)), made)

    returns = AsyncGenerator[event, None]  # type: ignore[valid-type]
    parameters = list_parameters(pattern, partition=True, subscription=True)
    resolver = signed(resolve, pattern.subscription or "", parameters, returns)
    owner = None if entity.owner is None else entity.owner.attribute
    reads = reads_parent(entity) and _names_parent(pattern)
    return subscription(rule(pattern.subscription_access, entity, owner), reads_parent=reads)(
        resolver
    )


def _names_parent(pattern: ListOf) -> bool:
    """Whether the list's partition names its entity's parent (whose item a rule of
    readers may decide on)."""
    entity = pattern.entity
    keys = entity.keys_on(pattern.index)
    return (
        entity.parent is not None
        and keys is not None
        and set(entity.parent.attributes) <= {*keys.partition.attributes, *pattern.at}
    )
