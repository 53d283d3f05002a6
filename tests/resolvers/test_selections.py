"""The one walk of a document's selections (no DynamoDB): fragments expanded once,
`@skip`/`@include` decided by the variables when they are known, cycles harmless."""

from __future__ import annotations

import time
from typing import Any

import pytest
from graphql import FieldNode, OperationDefinitionNode, parse
from graphql.execution.values import VariableValues, get_variable_values

from gateway.schema.build import build_schema
from resolvers.selections import Walk, fields_in, fragments_of, included

SCHEMA = build_schema()._schema


def doubling(levels: int) -> str:
    fragments = ["fragment L0 on Query { a: __typename b: __typename }"]
    fragments += [f"fragment L{n} on Query {{ ...L{n - 1} ...L{n - 1} }}" for n in range(1, levels)]
    return "\n".join([f"{{ ...L{levels - 1} }}", *fragments])


def operation(document: Any) -> OperationDefinitionNode:
    found = document.definitions[0]
    assert isinstance(found, OperationDefinitionNode)
    return found


def variables(document: Any, values: dict[str, Any]) -> VariableValues:
    coerced = get_variable_values(SCHEMA, operation(document).variable_definitions, values)
    assert isinstance(coerced, VariableValues)
    return coerced


class Count(Walk[tuple[()], int]):
    """Fields, every copy counted; `calls` says how often a field was figured."""

    zero = 0
    calls = 0

    def field(self, node: FieldNode, context: tuple[()]) -> int:
        self.calls += 1
        return 1 + self.selections(node.selection_set, ())

    def add(self, total: int, more: int) -> int:
        return total + more


def test_each_fragment_is_walked_once_however_often_it_is_spread() -> None:
    document = parse(doubling(60))
    walk = Count(fragments_of(document), None)
    started = time.perf_counter()
    assert walk.selections(operation(document).selection_set, ()) == 2**60
    assert walk.calls == 2  # the two fields of L0, once
    assert time.perf_counter() - started < 0.5


def test_a_fragment_cycle_adds_nothing() -> None:
    # Validation refuses cycles; a walk of such a document still ends.
    document = parse(
        "{ ...A } fragment A on Query { x: __typename ...B } fragment B on Query { ...A }"
    )
    walk = Count(fragments_of(document), None)
    assert walk.selections(operation(document).selection_set, ()) == 1


@pytest.mark.parametrize(
    ("directives", "values", "kept"),
    [
        ("", {}, True),
        ("@skip(if: true)", {}, False),
        ("@skip(if: false)", {}, True),
        ("@include(if: false)", {}, False),
        ("@include(if: true) @skip(if: true)", {}, False),
        ("@skip(if: $flag)", {"flag": True}, False),
        ("@include(if: $flag)", {"flag": True}, True),
        ("@include(if: $flag)", {"flag": False}, False),
    ],
)
def test_skip_and_include_decide_as_execution_does(
    directives: str, values: dict[str, Any], kept: bool
) -> None:
    document = parse(f"query ($flag: Boolean) {{ __typename {directives} }}")
    [node] = operation(document).selection_set.selections
    assert included(node, variables(document, values)) is kept
    # The document alone (validation knows no variables): every selection counts.
    assert included(node, None)


def test_the_fields_below_a_field_are_flattened_once() -> None:
    text = doubling(60).replace("{ ...L59 }", '{ customer(id: "x") { ...L59 } }')
    text = text.replace("on Query", "on Customer").replace("__typename", "id")
    document = parse(text)
    [customer] = operation(document).selection_set.selections
    assert isinstance(customer, FieldNode)
    started = time.perf_counter()
    found = fields_in([customer.selection_set], fragments_of(document), None)
    assert [(f.alias and f.alias.value, f.name.value) for f in found] == [("a", "id"), ("b", "id")]
    assert time.perf_counter() - started < 0.5


def test_flattening_honours_skip_in_fragments() -> None:
    document = parse(
        'query ($no: Boolean!) { customer(id: "x") { id ... @include(if: $no) { name } '
        "...F @skip(if: $no) } } fragment F on Customer { email }"
    )
    [customer] = operation(document).selection_set.selections
    assert isinstance(customer, FieldNode)
    for no, names in ((True, ["id", "name"]), (False, ["id", "email"])):
        found = fields_in(
            [customer.selection_set], fragments_of(document), variables(document, {"no": no})
        )
        assert [f.name.value for f in found] == names
