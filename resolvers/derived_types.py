"""The Strawberry types of a declared model's entities (`model/`): one object type per
entity, with a field per shown attribute and a connection field per list under it, and the
event type of each list that has a subscription.

Types are made with `type()` and annotations holding the types themselves, as
`@strawberry.type` reads them; an entity's children are made before it, so its connection
fields can name them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from enum import Enum
from itertools import count
from types import ModuleType
from typing import Any, TypeVar

import strawberry

from data import entities
from data.changes import ChangeKind
from data.collections import Prefetched, page_for
from data.entities import described
from data.entity_lists import list_read, whole_page
from data.readers import reads_item
from errors.vocabulary import Forbidden
from model import Entity, ListOf, Model, Near
from model.attributes import Attribute
from resolvers.context import Context
from resolvers.derived_arguments import (
    REQUIRED,
    enum,
    graphql_type,
    line_types,
    list_parameters,
    narrowing,
    signed,
)
from resolvers.field_costs import (
    FieldCost,
    cost,
    field_options,
    item_read,
    items_of,
    owner_of,
    page_read,
    with_item_read,
)
from resolvers.planned import ListRead, planned
from resolvers.readers import (
    partition_under,
    reads_parent,
    require_item,
    require_list,
    require_listed,
)
from resolvers.relay import Connection, connection_field
from store.pagination import Page, PageArgs, query_calls

Info = strawberry.Info[Context, None]
E = TypeVar("E", bound=Enum)
_MODELS = count()


class EntityTypes:
    """The object type of each entity of `model`, by entity name."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.types: dict[str, type[Any]] = {}
        self.changes: dict[str, type[Any]] = {}
        # Where the types' names resolve, for a child's field naming its parent's type,
        # made after it: the types are this module's globals (`strawberry.lazy` needs a
        # module, and a model's types have none of their own).
        self.names = ModuleType(f"{__name__}.model{next(_MODELS)}")
        sys.modules[self.names.__name__] = self.names
        for entity in sorted(model.entities, key=self._depth, reverse=True):
            self.types[entity.name] = self._object_type(entity)
            setattr(self.names, entity.name, self.types[entity.name])
        followed: list[ListOf | Near] = [*model.of_kind(ListOf), *model.of_kind(Near)]
        for pattern in followed:
            if pattern.subscription is not None:
                self.changes[pattern.entity.name] = self._change_type(pattern.entity)

    def node(
        self,
        entity: Entity,
        record: entities.Record,
        prefetched: Prefetched | None = None,
        *,
        checked: bool = False,
    ) -> Any:
        """The object of `entity` answering `record`; of an entity with readers, only once
        the caller's reading it is `checked` (`shown` checks it)."""
        if entity.readers is not None and not checked:
            raise RuntimeError(f"{entity.name} has readers: show it through `shown`")
        kind = self.types[entity.name]
        shown = {
            n: _shown(a, record[n])
            for n, a in entity.attributes.items()
            if a.shown and a.readers is None
        }
        return kind(**shown, record=record, prefetched=prefetched or {})

    async def shown(
        self,
        info: Info,
        entity: Entity,
        record: entities.Record,
        prefetched: Prefetched | None = None,
    ) -> Any:
        """The object of `entity` answering `record`, if the caller may read it (FORBIDDEN
        otherwise): a lookup's, a payload's, an event's, a parent's."""
        await require_item(info.context, self.model, entity, record)
        return self.node(entity, record, prefetched, checked=True)

    def listed(self, info: Info, entity: Entity, parent: Mapping[str, Any] | None) -> Any:
        """The objects of a page's records, the list's readers decided before it was read."""
        context = info.context

        def node(record: entities.Record) -> Any:
            require_listed(context, self.model, entity, record, parent)
            return self.node(entity, record, checked=True)

        return node

    def _depth(self, entity: Entity) -> int:
        parent = self.model.parent_of(entity)
        return 0 if parent is None else 1 + self._depth(parent)

    def _object_type(self, entity: Entity) -> type[Any]:
        annotations: dict[str, Any] = {}
        namespace: dict[str, Any] = {}
        for name, attribute in entity.attributes.items():
            if not attribute.shown:
                continue
            if attribute.readers is not None:
                namespace[name] = self._guarded(entity, name, attribute)
                continue
            annotations[name] = graphql_type(attribute)
            description = attribute.field_description(entity)
            most = attribute.listed_most
            if most is not None:  # a list whose length the bound counts
                fanout = FieldCost(fanout=most)
                namespace[name] = strawberry.field(description=description, metadata=cost(fanout))
            elif description is not None:
                namespace[name] = strawberry.field(description=description)
        annotations["record"] = strawberry.Private[Mapping[str, Any]]
        annotations["prefetched"] = strawberry.Private[Prefetched]
        for pattern in self.model.lists_under(entity):
            if pattern.whole is None:
                namespace[pattern.field] = self._connection(entity, pattern)
            else:
                namespace[pattern.field] = self._whole(entity, pattern)
        if entity.parent is not None and entity.parent.field is not None:
            namespace[entity.parent.field] = self._parent(entity, entity.parent.field)
        namespace["__annotations__"] = annotations
        namespace["__module__"] = self.names.__name__
        return strawberry.type(type(entity.name, (), namespace))

    def _guarded(self, entity: Entity, name: str, attribute: Attribute) -> Any:
        """A field only its readers see: others get null and FORBIDDEN at its path."""
        rule = attribute.readers
        assert rule is not None

        def resolve(self: Any, info: Info) -> Any:
            # A field's readers are decided on its item alone (no parent's owner among them).
            if not reads_item(rule, entity, self.record, info.context.caller):
                raise Forbidden(f"`{name}` of a {entity.noun}: only {rule.described} may read it")
            return _shown(attribute, self.record[name])

        returns = graphql_type(attribute) | None
        resolver = signed(resolve, name, {}, returns)
        return strawberry.field(resolver, description=attribute.description)

    def _parent(self, entity: Entity, field: str) -> Any:
        """The child's field answering its parent, through the request's loader: one read
        for every item of a page, which one parent listed."""
        parent = self.model.parent_of(entity)
        assert parent is not None and entity.parent is not None
        mapping = entity.parent.attributes
        types = self

        async def resolve(self: Any, info: Info) -> Any:
            values = {theirs: self.record[mine] for mine, theirs in mapping.items()}
            item = await info.context.items.load_item(parent.primary_key(values))
            if item is None:
                raise LookupError(f"{described(entity, self.record)} names a missing {parent.noun}")
            return await types.shown(info, parent, entities.record(parent, item))

        kinds = [_listed(p) for p in self.model.lists_under(parent) if p.entity is entity]
        cost = item_read(owner_of(*kinds))
        if reads_parent(parent):
            cost = with_item_read(cost)
        resolver = signed(resolve, field, {}, None)
        return strawberry.field(resolver, graphql_type=parent.name, **field_options(cost, None))

    def _connection(self, parent: Entity, pattern: ListOf) -> Any:
        child = pattern.entity
        item_bytes = entities.most_bytes(child)

        types, model = self, self.model

        async def read(
            context: Context,
            arguments: Mapping[str, Any],
            page: PageArgs,
            record: entities.Record,
            prefetched: Prefetched,
            key: str,
        ) -> Page[entities.Record]:
            partition = partition_under(child, record)
            await require_list(context, model, pattern, partition, record)
            narrowed = narrowing(pattern, arguments)
            read = list_read(pattern, parent, record, page, narrowed)
            return await page_for(prefetched, key, read, context.pages)

        def check(context: Context, record: entities.Record, parent: entities.Record) -> None:
            require_listed(context, model, child, record, parent)

        async def resolve(self: Any, info: Info, page: PageArgs, **arguments: Any) -> Any:
            context, key = info.context, str(info.path.key)
            found = await read(context, arguments, page, self.record, self.prefetched, key)
            return Connection.from_page(found, types.listed(info, child, self.record))

        parameters = {**list_parameters(pattern, partition=False), "page": (PageArgs, REQUIRED)}
        returns = Connection[self.types[child.name]]  # type: ignore[name-defined]
        # Named, so that its items' field naming their parent knows which one listed them;
        # only for items that read nothing else per item (it would count once per page).
        named = child.parent is not None and child.parent.field is not None
        identity = (
            items_of(_listed(pattern)) if named and not self.model.lists_under(child) else None
        )
        cost = page_read(item_bytes, identity, filtered=filtering(pattern))
        field = connection_field(cost)(signed(resolve, pattern.field, parameters, returns))
        if pattern.description is not None:
            field.description = pattern.description
        return planned(field, ListRead(child, read, check))

    def _whole(self, parent: Entity, pattern: ListOf) -> Any:
        """A plain list of every child, in key order, read in one Query (with the parent's
        item when it is selected with it)."""
        child, most = pattern.entity, pattern.whole
        assert most is not None
        types = self

        model = self.model

        async def resolve(self: Any, info: Info) -> Any:
            partition = partition_under(child, self.record)
            await require_list(info.context, model, pattern, partition, self.record)
            read = list_read(pattern, parent, self.record, whole_page(pattern))
            found = await page_for(self.prefetched, str(info.path.key), read, info.context.pages)
            records = [edge.item for edge in found.edges]
            ordered = records if read.forward else records[::-1]
            node = types.listed(info, child, self.record)
            return [node(record) for record in ordered]

        calls = query_calls(most + 2, entities.most_bytes(child))
        read = FieldCost(requests=calls, items=most + 2, fanout=most, shared=True)
        returns = list[self.types[child.name]]  # type: ignore[name-defined]
        return strawberry.field(
            signed(resolve, pattern.field, {}, returns), **field_options(read, None)
        )

    def _change_type(self, entity: Entity) -> type[Any]:
        annotations: dict[str, Any] = {"kind": enum(ChangeKind)}
        for name in shown_key(entity):
            annotations[name] = graphql_type(entity.attributes[name])
        annotations[entity.field_name] = self.types[entity.name] | None
        return strawberry.type(type(f"{entity.name}Change", (), {"__annotations__": annotations}))


def shown_key(entity: Entity) -> tuple[str, ...]:
    """The attributes of its key that its type shows: what a change names it by (an issue
    by its number, its repository being the subscription's own)."""
    return tuple(n for n in entity.key_attributes if entity.attributes[n].shown)


def _shown(attribute: Attribute, value: Any) -> Any:
    """A record's value as its field answers it (each line an object)."""
    lines = attribute.as_lines
    if lines is not None:
        line = line_types(lines)[0]
        return [line(**values) for values in value]
    return value


def _listed(pattern: ListOf) -> str:
    return f"{pattern.entity.name} of {pattern.field}"


def filtering(pattern: ListOf) -> Callable[[Mapping[str, Any]], bool]:
    """Whether a page's arguments apply the list's FilterExpression (its bound then is the
    filter's budget)."""
    return lambda args: (
        pattern.mixed or any(args.get(name) is not None for name in pattern.filtered)
    )
