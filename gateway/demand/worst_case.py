"""The worst case of an operation over every value its variables may take, for `dynagate
documents add` and `list` (docs/http.md#trusted-documents): what any request running it can
cost, computed once, before any request names it.

The bound of a request (`gateway/demand/bound.py`) is computed from its variables' values. Here
every selection counts, whatever `@skip` and `@include` say, and each argument a variable
gives is taken at its worst: an argument that sizes a read (a page size, `PAGE_SIZING`, or
what the field's cost model declares, `FieldCost.worst_values`) at each value it allows
whose read is the largest (a page size at 100, `markers(limit:)` at 1,000, each precision
of `heatmap`), the largest of them kept; any other at a value of its own per variable, so
that reads keyed by two variables are two reads (a filter is so given, which reads at least
as far as none: `issues(state:)`). An argument whose worst no finite list holds
(`FieldCost.unbounded`: a heatmap's viewport) leaves the operation without a worst case,
said as such.

Two fields given the same variable are each taken at their own worst, and a read keyed by a
sized variable is never taken for one made elsewhere: the figures are at most, never less.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import product
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLEnumType,
    GraphQLError,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    ListValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    OperationType,
    Undefined,
    ValueNode,
    VariableNode,
    is_input_type,
    type_from_ast,
)
from graphql.execution.values import VariableValues, get_argument_values, get_variable_values
from graphql.type.introspection import TypeMetaFieldDef

from gateway.demand.bound import FREE, OUTSIDE, Bound, BoundWalk, Place, ReadKey, model_of
from gateway.demand.introspection import introspection_fields
from resolvers.selections import fragments_of
from store.pagination import MAX_PAGE_SIZE

# The arguments that size any connection's read, and the values a variable's worst is
# among: the largest each allows (a larger one is refused before any read). A field's own
# are in its cost model (`FieldCost.worst_values`, `FieldCost.unbounded`).
PAGE_SIZING: Mapping[str, tuple[Any, ...]] = {"first": (MAX_PAGE_SIZE,), "last": (MAX_PAGE_SIZE,)}


@dataclass(frozen=True)
class Worst:
    """The worst case of an operation (None: not known in advance), and why not."""

    bound: Bound | None
    reasons: tuple[str, ...] = ()


def worst_case(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    fits: Callable[[Bound], bool] | None = None,
) -> Worst:
    """The most any request running `operation` of `document` can cost (with `fits`, the
    limits in force, tuned arguments left out are picked to fit them, as for a request)."""
    root = {
        OperationType.QUERY: schema.query_type,
        OperationType.MUTATION: schema.mutation_type,
        OperationType.SUBSCRIPTION: schema.subscription_type,
    }[operation.operation]
    values = _placeholders(schema, operation)
    if root is None or values is None:
        return Worst(None, ("its variables take no value (the schema refuses their types)",))
    identity = ("Query",) if operation.operation is OperationType.QUERY else None
    walk = _WorstWalk(schema, document, values, fits)
    bound = walk.selections(operation.selection_set, Place(root, OUTSIDE, identity))
    if walk.unbounded:
        return Worst(None, tuple(dict.fromkeys(walk.unbounded)))
    return Worst(bound)


class _WorstWalk(BoundWalk):
    """`BoundWalk` over every selection, each variable at its worst where it sizes a read."""

    def __init__(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        values: VariableValues,
        fits: Callable[[Bound], bool] | None,
    ) -> None:
        super().__init__(schema, fragments_of(document), values, fits)
        self.variables = None  # every selection counts, whatever @skip and @include say
        self.unbounded: list[str] = []

    def field(self, node: FieldNode, context: Place) -> Bound:
        given = _given_by_variables(node)
        name, parent = node.name.value, context.parent
        if name == "__type" and given:
            return self._any_type(node)
        if not given or not isinstance(parent, GraphQLObjectType) or name not in parent.fields:
            return super().field(node, context)
        definition = parent.fields[name]
        coordinate = f"{parent.name}.{name}"
        model = model_of(definition) or FREE
        choices: list[tuple[str, Sequence[Any]]] = []
        for argument in given:
            what = model.unbounded.get(argument)
            if what is not None:
                self.unbounded.append(f"`{coordinate}` takes {what} from a variable")
                continue
            sizing = model.worst_values.get(argument) or PAGE_SIZING.get(argument)
            if sizing is not None:
                choices.append((argument, sizing))
        if not choices:
            return super().field(node, context)
        try:
            args = get_argument_values(definition, node, self.values)
        except GraphQLError:
            return Bound(fields=1)  # execution refuses the arguments before any read
        bounds = []
        for picked in product(*(values for _, values in choices)):
            tried = {
                **args,
                **{argument: v for (argument, _), v in zip(choices, picked, strict=True)},
            }
            if model.tune is not None and self.fits is not None:
                bound = self.tuned(node, definition, model, model.tune, tried, context)
            else:
                bound = self.with_args(node, definition, model, tried, context)
            bounds.append(bound)
        # Its reads are keyed by the variables that sized them: two variables, two reads.
        apart = tuple(sorted(_variables_in(node)))
        return _most(bounds, apart)

    def _any_type(self, node: FieldNode) -> Bound:
        """`__type(name: $t)`: as large as the largest type of the schema answers."""
        fields = 1
        for type_name in self.schema.type_map:
            values = VariableValues(
                self.values.sources,
                {**self.values.coerced, **dict.fromkeys(_variables_in(node), type_name)},
            )
            counted = introspection_fields(
                self.schema, node, TypeMetaFieldDef, self.fragments, values
            )
            fields = max(fields, counted)
        return Bound(fields=fields)


def _most(bounds: Sequence[Bound], apart: tuple[str, ...]) -> Bound:
    """The largest of `bounds`, its shared reads keyed apart by `apart`; when none is the
    largest in every figure, every figure's largest, its reads counted unshared."""
    for bound in bounds:
        if all(_within(other, bound) for other in bounds):
            shared: dict[ReadKey, tuple[int, int]] = {
                (apart, key): figures for key, figures in bound.shared.items()
            }
            return replace(bound, shared=shared, chosen={})
    notes = tuple(dict.fromkeys(note for bound in bounds for note in bound.notes))
    return Bound(
        max(b.total_requests for b in bounds),
        max(b.total_items for b in bounds),
        max(b.fields for b in bounds),
        notes=notes,
    )


def _within(one: Bound, other: Bound) -> bool:
    return (
        one.total_requests <= other.total_requests
        and one.total_items <= other.total_items
        and one.fields <= other.fields
    )


def _given_by_variables(node: FieldNode) -> list[str]:
    """The arguments of `node` whose value holds a variable."""
    return [a.name.value for a in node.arguments or () if _holds_variable(a.value)]


def _variables_in(node: FieldNode) -> set[str]:
    found: set[str] = set()
    for argument in node.arguments or ():
        _collect(argument.value, found)
    return found


def _holds_variable(value: ValueNode) -> bool:
    found: set[str] = set()
    _collect(value, found)
    return bool(found)


def _collect(value: ValueNode, found: set[str]) -> None:
    if isinstance(value, VariableNode):
        found.add(value.name.value)
    elif isinstance(value, ListValueNode):
        for item in value.values:
            _collect(item, found)
    elif isinstance(value, ObjectValueNode):
        for field in value.fields:
            _collect(field.value, found)


def _placeholders(
    schema: GraphQLSchema, operation: OperationDefinitionNode
) -> VariableValues | None:
    """A value of each variable's type, its own for each variable where it could key a
    read (a string, an id); None when the schema refuses the values made."""
    inputs: dict[str, Any] = {}
    for definition in operation.variable_definitions or ():
        kind = type_from_ast(schema, definition.type)
        if kind is None or not is_input_type(kind):
            return None
        inputs[definition.variable.name.value] = _value(kind, definition.variable.name.value)
    coerced = get_variable_values(schema, operation.variable_definitions or (), inputs)
    return coerced if isinstance(coerced, VariableValues) else None


# What a placeholder of a scalar is, as a client sends it; strings name their variable.
_SCALARS: Mapping[str, Any] = {"Int": 0, "Float": 0.0, "Boolean": False}
_DATE = "1970-01-01T00:00:00Z"


def _value(kind: GraphQLInputType, name: str) -> Any:
    if isinstance(kind, GraphQLNonNull):
        return _value(kind.of_type, name)
    if isinstance(kind, GraphQLList):
        return []
    if isinstance(kind, GraphQLEnumType):
        return next(iter(kind.values))
    if isinstance(kind, GraphQLInputObjectType):
        return {
            field_name: _value(field.type, f"{name}.{field_name}")
            for field_name, field in kind.fields.items()
            if isinstance(field.type, GraphQLNonNull) and field.default_value is Undefined
        }
    assert isinstance(kind, GraphQLScalarType)
    if kind.name in _SCALARS:
        return _SCALARS[kind.name]
    return _DATE if kind.name == "DateTime" else f"${name}"
