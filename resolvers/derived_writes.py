"""The Mutation fields of a declared model (`model/`): a create, an update and a delete per
pattern, each with its input type, its worst case (`resolvers/field_costs.py`) and its rule of
access (`resolvers/access.py`); their payloads are shown as the entity's readers allow."""

from __future__ import annotations

from typing import Any

import strawberry

from data.writes import entities as entity_writes
from data.writes import parents as parent_removals
from model import Create, Delete, Model, Update
from resolvers.access import AdminsGive, SignedIn
from resolvers.context import Context
from resolvers.derived_access import owns_parent, rule
from resolvers.derived_arguments import REQUIRED, Parameters, graphql_type, signed
from resolvers.derived_types import EntityTypes
from resolvers.field_costs import mutation_with_cost, with_item_read, write_calls
from resolvers.readers import reads_parent
from resolvers.relay import NOT_GIVEN, given

Info = strawberry.Info[Context, None]


def _input(name: str, fields: Parameters, description: str | None) -> type[Any]:
    annotations = {field: kind for field, (kind, _) in fields.items()}
    defaults = {field: d for field, (_, d) in fields.items() if d is not REQUIRED}
    namespace = {"__annotations__": annotations, **defaults}
    return strawberry.input(type(name, (), namespace), description=description)


def create_field(model: Model, types: EntityTypes, pattern: Create) -> Any:
    entity = pattern.entity
    taken = [(n, a) for n, a in entity.attributes.items() if a.given]
    # Required fields first, then the optional ones: a settable choice defaults to its
    # initial value.
    fields: dict[str, tuple[Any, Any]] = {
        n: (graphql_type(a, given=True), REQUIRED) for n, a in taken if not a.optional_on_create
    }
    for name, attribute in taken:
        default = attribute.create_default
        if default is not None:
            fields[name] = (graphql_type(attribute, given=True), default)
        elif attribute.optional_on_create:
            fields[name] = (graphql_type(attribute, given=True) | None, NOT_GIVEN)
    imported = [n for n, a in entity.attributes.items() if a.importable]
    owner = entity.owner
    access = rule(pattern.access, entity, None if owner is None else f"input.{owner.attribute}")
    description = None
    for name in imported:
        assert isinstance(access, SignedIn)  # the model refuses an import open to anyone
        access = AdminsGive(access, f"input.{name}", name)
        description = f"`{name}` is optional, for imports of older data: admins only."
    kind = _input(_capital(pattern.field) + "Input", fields, description)

    async def resolve(self: Any, info: Info, input: Any) -> Any:
        values = {name: given(getattr(input, name)) for name in fields}
        context = info.context
        created = await entity_writes.create(
            context.store, model, entity, values, done=pattern.done, caller=context.caller
        )
        return await types.shown(info, entity, created)

    returns = types.types[entity.name]
    cost = write_calls(entity_writes.create_calls(model, entity))
    if reads_parent(entity):
        cost = with_item_read(cost)
    return mutation_with_cost(cost, access)(
        signed(resolve, pattern.field, {"input": (kind, REQUIRED)}, returns)
    )


def update_field(model: Model, types: EntityTypes, pattern: Update) -> Any:
    entity = pattern.entity
    parent = model.parent_of(entity)
    fields: dict[str, tuple[Any, Any]] = {
        n: (graphql_type(entity.attributes[n]), REQUIRED) for n in entity.key_attributes
    }
    for name in pattern.changes:
        kind = graphql_type(entity.attributes[name])
        fields[name] = (kind, REQUIRED) if pattern.inline else (kind | None, NOT_GIVEN)

    async def resolve(self: Any, info: Info, input: Any = None, **arguments: Any) -> Any:
        context = info.context
        values = arguments if pattern.inline else vars(input)
        updated = await entity_writes.update(
            context.store,
            context.items,
            entity,
            {name: values[name] for name in entity.key_attributes},
            {name: given(values[name]) for name in pattern.changes},
            caller=context.caller,
            writer_only=pattern.access == "writer"
            and not owns_parent(entity, parent, values, context.caller),
            transitions=pattern.moves,
            at_least_one=pattern.at_least_one,
            sets=pattern.sets,
            owner_only=pattern.access == "owner",
            parent_owner_of=parent if pattern.access == "parent_owner" else None,
        )
        return await types.shown(info, entity, updated)

    returns = types.types[entity.name]
    cost = write_calls(*entity_writes.update_calls(entity, (*pattern.changes, *pattern.sets)))
    # The parent's owner: the parent read first, and the item after the transaction.
    under_parent = pattern.access == "parent_owner"
    for reads in (reads_parent(entity), pattern.access == "owner", under_parent, under_parent):
        cost = with_item_read(cost) if reads else cost
    parameters = fields
    if not pattern.inline:
        kind = _input(_capital(pattern.field) + "Input", fields, pattern.description)
        parameters = {"input": (kind, REQUIRED)}
    return mutation_with_cost(cost, rule(pattern.access, entity, parent=parent))(
        signed(resolve, pattern.field, parameters, returns)
    )


def delete_field(model: Model, pattern: Delete) -> Any:
    entity = pattern.entity
    parent = model.parent_of(entity)
    below = model.children_of(entity)

    async def resolve(self: Any, info: Info, **arguments: Any) -> bool:
        context = info.context
        if below:
            return await parent_removals.delete(
                context.store,
                context.items,
                model,
                entity,
                arguments,
                caller=context.caller,
                writer_only=pattern.access == "writer",
                children=pattern.children,
            )
        return await entity_writes.delete(
            context.store,
            context.items,
            entity,
            arguments,
            caller=context.caller,
            writer_only=pattern.access == "writer",
            owner_only=pattern.access == "owner",
            parent_owner_of=parent if pattern.access == "parent_owner" else None,
        )

    parameters = {n: (graphql_type(entity.attributes[n]), REQUIRED) for n in entity.key_attributes}
    calls = parent_removals.removal_calls(model, entity) if below else None
    cost = write_calls(*(calls or entity_writes.delete_calls(entity)))
    if pattern.access in ("owner", "parent_owner"):
        cost = with_item_read(cost)  # the item's owner, or the parent's, read first
    under = parent if pattern.access == "parent_owner" else None
    return mutation_with_cost(cost, rule(pattern.access, entity, parent=under))(
        signed(resolve, pattern.field, parameters, bool)
    )


def _capital(name: str) -> str:
    return name[0].upper() + name[1:]
