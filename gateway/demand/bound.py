"""The bound of an operation, computed from its document before anything runs.

Walks the operation's selections (`resolvers/selections.py`: fragments expanded, `@skip`
and `@include` decided as execution decides them) with the cost model of each field
(`resolvers/field_costs.py`): a field adds its own requests and items once per parent object, one
to the fields of the response per parent object, and multiplies what is selected below it
by its fanout. The same selections always cost the same in the same place, so each is
costed once per place (type, list size, parent) it is selected in: a document that
doubles at every fragment level is bounded in linear time.

Introspection reads no table: its fields are counted exactly, over the schema itself.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLField,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    NamedTypeNode,
    OperationDefinitionNode,
    OperationType,
    get_named_type,
)
from graphql.execution.values import VariableValues, get_argument_values, get_variable_values
from graphql.type.introspection import SchemaMetaFieldDef, TypeMetaFieldDef

from gateway.demand.introspection import introspection_fields
from resolvers.field_costs import COST, PAGE, FieldCost, Tune, figure
from resolvers.selections import Fragments, Walk, fragments_of
from store.pagination import FLAG_ITEMS, FLAG_REQUESTS

# What a field without a model costs: a plain attribute of its parent.
FREE = FieldCost()
_STRAWBERRY = "strawberry-definition"


# A read the request makes once however often it is asked for: the loaders key it.
ReadKey = Hashable


@dataclass(frozen=True)
class Bound:
    """Reads made once per parent object, reads made once per request (by key), fields;
    the arguments picked to fit the limits (`Tune`), and why a given one does not."""

    requests: int = 0
    items: int = 0
    fields: int = 0
    shared: Mapping[ReadKey, tuple[int, int]] = field(default_factory=dict)
    # By response key: the value a root field's resolver uses for its tuned argument.
    chosen: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __add__(self, other: Bound) -> Bound:
        return Bound(
            self.requests + other.requests,
            self.items + other.items,
            self.fields + other.fields,
            _merged(self.shared, other.shared),
            {**self.chosen, **other.chosen} if other.chosen else self.chosen,
            self.notes + other.notes,
        )

    def times(self, count: int) -> Bound:
        """Under `count` parents: shared reads stay one each."""
        if count == 1:
            return self
        return Bound(
            self.requests * count,
            self.items * count,
            self.fields * count,
            self.shared,
            self.chosen,
            self.notes,
        )

    @property
    def total_requests(self) -> int:
        return self.requests + sum(r for r, _ in self.shared.values())

    @property
    def total_items(self) -> int:
        return self.items + sum(i for _, i in self.shared.values())

    def as_dict(self) -> dict[str, int]:
        return {
            "requests": self.total_requests,
            "itemsScanned": self.total_items,
            "fields": self.fields,
        }


ZERO = Bound()


def _merged(
    one: Mapping[ReadKey, tuple[int, int]], other: Mapping[ReadKey, tuple[int, int]]
) -> Mapping[ReadKey, tuple[int, int]]:
    if not other:
        return one
    if not one:
        return other
    merged = dict(one)
    for key, (requests, items) in other.items():
        known = merged.get(key, (0, 0))
        merged[key] = (max(known[0], requests), max(known[1], items))
    return merged


@dataclass(frozen=True)
class Within:
    """What the nearest sizing field above says to the fields below it: the length of its
    list (`fanout=PAGE`), and what a `pageInfo` flag of its connection costs."""

    page: int | None = None
    flag: tuple[int, int] | None = None


OUTSIDE = Within()


class Place(NamedTuple):
    """Where a selection set is bounded: on which type, within which list, below what."""

    parent: GraphQLNamedType
    within: Within
    # What the field above answers with (`FieldCost.identity`); None: unknown.
    identity: Hashable


def model_of(field: GraphQLField) -> FieldCost | None:
    """The cost model declared on a field's resolver, if any."""
    definition = (field.extensions or {}).get(_STRAWBERRY)
    metadata = getattr(definition, "metadata", None) or {}
    model = metadata.get(COST)
    return model if isinstance(model, FieldCost) else None


def bound_operation(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    variables: Mapping[str, Any] | None,
    fits: Callable[[Bound], bool] | None = None,
) -> Bound:
    """The worst case of the operation the request runs (ZERO when there is none to run:
    execution reports that). With `fits` (the limits in force), tuned arguments left out
    are picked to fit them."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if operation_name is not None:
        operations = [o for o in operations if o.name and o.name.value == operation_name]
    if len(operations) != 1:
        return ZERO
    operation = operations[0]
    root = {
        OperationType.QUERY: schema.query_type,
        OperationType.MUTATION: schema.mutation_type,
        OperationType.SUBSCRIPTION: schema.subscription_type,
    }[operation.operation]
    if root is None:
        return ZERO
    coerced = get_variable_values(
        schema, operation.variable_definitions or (), dict(variables or {})
    )
    if not isinstance(coerced, VariableValues):
        return ZERO  # execution refuses the variables before any read
    # Reads of a query are shared within the request; a mutation's are its own.
    identity = ("Query",) if operation.operation is OperationType.QUERY else None
    walk = BoundWalk(schema, fragments_of(document), coerced, fits)
    return walk.selections(operation.selection_set, Place(root, OUTSIDE, identity))


class BoundWalk(Walk[Place, Bound]):
    """The bound of each selection set, once per place it is selected in (so a fragment
    spread under lists of one size is costed once)."""

    zero = ZERO

    def __init__(
        self,
        schema: GraphQLSchema,
        fragments: Fragments,
        variables: VariableValues,
        fits: Callable[[Bound], bool] | None,
    ) -> None:
        super().__init__(fragments, variables)
        self.schema = schema
        self.fits = fits
        # What arguments are read with; the selections kept are `variables`' (a worst
        # case over every value keeps them all: `gateway/demand/worst_case.py`).
        self.values = variables

    def add(self, total: Bound, more: Bound) -> Bound:
        return total + more

    def fragment(self, condition: NamedTypeNode | None, context: Place) -> Place | None:
        if condition is None:
            return context
        kind = self.schema.get_type(condition.name.value)
        return None if kind is None else context._replace(parent=kind)

    def field(self, node: FieldNode, context: Place) -> Bound:
        name, parent = node.name.value, context.parent
        if name == "__typename":
            return Bound(fields=1)
        if name in ("__schema", "__type"):
            meta = SchemaMetaFieldDef if name == "__schema" else TypeMetaFieldDef
            fields = introspection_fields(self.schema, node, meta, self.fragments, self.variables)
            return Bound(fields=fields)
        if not isinstance(parent, GraphQLObjectType) or name not in parent.fields:
            return ZERO  # validation refuses it before execution
        definition = parent.fields[name]
        model = model_of(definition) or FREE
        try:
            args = get_argument_values(definition, node, self.values)
        except GraphQLError:
            return Bound(fields=1)  # execution refuses the arguments before any read
        if model.tune is not None and self.fits is not None:
            return self.tuned(node, definition, model, model.tune, args, context)
        return self.with_args(node, definition, model, args, context)

    def tuned(
        self,
        node: FieldNode,
        definition: GraphQLField,
        model: FieldCost,
        tune: Tune,
        args: dict[str, Any],
        place: Place,
    ) -> Bound:
        """A field whose `tune` argument is picked to fit (left out), or whose refusal
        names the value that would fit (given)."""
        assert self.fits is not None

        def bound(value: Any) -> Bound:
            tried = {**args, tune.argument: value}
            return self.with_args(node, definition, model, tried, place)

        response_key = (node.alias or node.name).value
        given = args.get(tune.argument)
        if given is None:
            choices = tune.choices(args)
            if not choices:
                return bound(None)  # the field refuses its arguments before any read
            for value in choices:
                found = bound(value)
                if self.fits(found):
                    break
            else:
                note = (
                    f"`{response_key}`: even {tune.argument} {value} is over a limit"
                    f" for these arguments: {tune.advice}"
                )
                found = found + Bound(notes=(note,))
            return found + Bound(chosen={response_key: value})
        found = bound(given)
        if self.fits(found):
            return found
        fitting = next((v for v in tune.choices(args) if self.fits(bound(v))), None)
        largest = (
            "every smaller one is too"
            if fitting is None
            else f"the largest they allow is {fitting}"
        )
        note = (
            f"`{response_key}`: {tune.argument} {given} is over a limit for these arguments;"
            f" {largest}"
        )
        return found + Bound(notes=(note,))

    def with_args(
        self,
        node: FieldNode,
        definition: GraphQLField,
        model: FieldCost,
        args: Mapping[str, Any],
        place: Place,
    ) -> Bound:
        name, (parent, within, identity) = node.name.value, place
        if model.reads_flag:
            requests, items = within.flag or (FLAG_REQUESTS, FLAG_ITEMS)
        else:
            # A figure below zero (an argument out of range) reads nothing.
            requests = max(0, figure(model.requests, args))
            items = max(0, figure(model.items, args))
        key = model.read_key(f"{parent.name}.{name}", args, identity) if requests else None
        if key is None:
            own = Bound(requests, items, 1)
        else:
            own = Bound(fields=1, shared={key: (requests, items)})
        if node.selection_set is None:
            return own
        fanout = within.page if model.fanout == PAGE else figure(model.fanout, args)
        fanout = max(0, fanout or 0)
        below = Place(
            get_named_type(definition.type),
            within if model.structure else self._within(model, args),
            model.returns(args, identity),
        )
        return own + self.selections(node.selection_set, below).times(fanout)

    @staticmethod
    def _within(model: FieldCost, args: Mapping[str, Any]) -> Within:
        page = None if model.page is None else max(0, figure(model.page, args))
        return Within(page, None if model.flag is None else model.flag(args))
