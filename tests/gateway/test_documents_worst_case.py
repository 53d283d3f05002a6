"""The worst case of a trusted document over every value of its variables
(`gateway/demand/worst_case.py`): never below the bound of any request, and what `dynagate
documents add` and `list` print."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import graphql

from gateway.cli.trusted import OVER
from gateway.demand.bound import Bound, bound_operation, model_of
from gateway.demand.control import Limits
from gateway.demand.worst_case import _most, worst_case
from gateway.schema.build import build_schema
from tests.gateway.test_cli import on_table, run

SCHEMA = build_schema()._schema
LIMITS = Limits()
VIEW = {"north": 1.0, "south": 0.0, "east": 1.0, "west": 0.0}
WORLD = {"north": 90.0, "south": -90.0, "east": 180.0, "west": -180.0}
VIEWS = [VIEW, WORLD, {"north": 0.01, "south": 0.0, "east": 0.01, "west": 0.0}]


def fits(bound: Bound) -> bool:
    return not LIMITS.exceeded(bound)


def worst(text: str) -> dict[str, int] | None:
    document = graphql.parse(text)
    (operation,) = [
        d for d in document.definitions if isinstance(d, graphql.OperationDefinitionNode)
    ]
    found = worst_case(SCHEMA, document, operation, fits).bound
    return None if found is None else found.as_dict()


def bound(text: str, variables: dict[str, Any] | None = None) -> dict[str, int]:
    return bound_operation(SCHEMA, graphql.parse(text), None, variables, fits).as_dict()


def test_a_variable_that_sizes_a_read_counts_at_its_largest() -> None:
    orders = "query ($n: Int) { openOrders(first: $n) { edges { node { id status } } } }"
    assert worst(orders) == bound(orders, {"n": 100})
    assert worst(orders) != bound(orders)  # its default, 10, is not the worst
    markers = """query ($l: Int, $v: Viewport!) {
      markers(viewport: $v, limit: $l) { markers { id } truncated } }"""
    assert worst(markers) == bound(markers, {"l": 1_000, "v": VIEW})
    issues = """query ($s: IssueState, $n: Int) {
      repo(owner: "a", name: "b") { issues(state: $s, last: $n) { edges { node { title } } } } }"""
    assert worst(issues) == bound(issues, {"s": "OPEN", "n": 100})
    heatmap = """query ($p: Int) {
      heatmap(viewport: {north: 1, south: 0, east: 1, west: 0}, precision: $p) {
        cells { geohash count } } }"""
    assert worst(heatmap) == max(
        (bound(heatmap, {"p": p}) for p in range(3, 9)), key=lambda b: b["itemsScanned"]
    )


def test_reads_keyed_by_two_variables_are_two_reads() -> None:
    two = """query ($a: ID!, $b: ID!) {
      a: customer(id: $a) { name } b: customer(id: $b) { name } c: customer(id: $a) { name } }"""
    assert (
        worst(two)
        == bound(two, {"a": "1", "b": "2"})
        == {
            "requests": 2,
            "itemsScanned": 2,
            "fields": 6,
        }
    )
    pages = """query ($a: Int, $b: Int) { a: openOrders(first: $a) { edges { node { id } } }
      b: openOrders(first: $b) { edges { node { id } } } }"""
    one = bound("{ openOrders(first: 100) { edges { node { id } } } }")
    assert worst(pages) == {figure: 2 * count for figure, count in one.items()}


def test_every_selection_counts_whatever_skip_and_include_say() -> None:
    either = """query ($b: Boolean!) {
      product(id: "p") @skip(if: $b) { name } order(id: "o") @include(if: $b) { id } }"""
    found = worst(either)
    assert found is not None
    for value in (True, False):
        assert found["requests"] > bound(either, {"b": value})["requests"]


def test_a_viewport_from_a_variable_has_no_worst_case() -> None:
    assert worst("query ($v: Viewport!) { heatmap(viewport: $v) { precision } }") is None


def _literal(kind: graphql.GraphQLInputType) -> str:
    """A GraphQL literal the field accepts for a required argument."""
    if isinstance(kind, graphql.GraphQLNonNull):
        return _literal(kind.of_type)
    if isinstance(kind, graphql.GraphQLList):
        return "[]"
    if isinstance(kind, graphql.GraphQLEnumType):
        return next(iter(kind.values))
    if isinstance(kind, graphql.GraphQLInputObjectType):
        if kind.name == "Viewport":
            return "{north: 1, south: 0, east: 1, west: 0}"
        inner = ", ".join(
            f"{name}: {_literal(field.type)}"
            for name, field in kind.fields.items()
            if isinstance(field.type, graphql.GraphQLNonNull)
        )
        return "{" + inner + "}"
    assert isinstance(kind, graphql.GraphQLScalarType)
    return {"Int": "1", "Float": "0.5", "Boolean": "true"}.get(kind.name, '"x"')


def _samples(kind: graphql.GraphQLInputType) -> list[Any]:
    """Values a client may send for an argument of `kind`, from harmless to extreme."""
    nullable = not isinstance(kind, graphql.GraphQLNonNull)
    named = graphql.get_named_type(kind)
    values: list[Any]
    listed = kind.of_type if isinstance(kind, graphql.GraphQLNonNull) else kind
    if isinstance(listed, graphql.GraphQLList):
        values = [[], [1], [1, 2, 3, 4, 5]] if named.name == "Int" else [[], ["x"]]
    elif isinstance(named, graphql.GraphQLEnumType):
        values = list(named.values)
    elif named.name == "Viewport":
        values = VIEWS
    elif isinstance(named, graphql.GraphQLInputObjectType):
        return [None] if nullable else []  # mutations' inputs: their cost is declared whole
    elif named.name == "Int":
        values = [0, 1, 3, 5, 8, 10, 99, 100, 101, 999, 1_000, 1_001, -1]
    elif named.name == "Boolean":
        values = [True, False]
    elif named.name == "Float":
        values = [0.5, 90.0]
    elif named.name == "DateTime":
        values = ["2024-01-01T00:00:00Z"]
    else:
        values = ["x", "y"]
    return [None, *values] if nullable else values


def _paths() -> Iterator[tuple[str, graphql.GraphQLObjectType, str]]:
    """Every object type reachable from a root, with the selection that reaches it: an
    opening (`query` …) and the text to close it with."""
    roots = [
        ("query", SCHEMA.query_type),
        ("mutation", SCHEMA.mutation_type),
        ("subscription", SCHEMA.subscription_type),
    ]
    seen: set[str] = set()
    queue: list[tuple[str, graphql.GraphQLObjectType, int]] = [
        (f"{kind} ($v: %s) {{ ", root, 0) for kind, root in roots if root is not None
    ]
    while queue:
        opening, kind, depth = queue.pop(0)
        yield opening, kind, "} " * (depth + 1)
        if kind.name in seen or opening.startswith(("mutation", "subscription")):
            continue
        seen.add(kind.name)
        for name, field in kind.fields.items():
            target = graphql.get_named_type(field.type)
            if isinstance(target, graphql.GraphQLObjectType) and target.name not in seen:
                queue.append((opening + f"{name}{_required(field)} {{ ", target, depth + 1))


def _required(field: graphql.GraphQLField, but: str | None = None) -> str:
    given = [
        f"{name}: {_literal(argument.type)}"
        for name, argument in field.args.items()
        if name != but and isinstance(argument.type, graphql.GraphQLNonNull)
    ]
    return f"({', '.join(given)})" if given else ""


def test_no_request_exceeds_the_worst_case_of_its_document() -> None:
    """Each argument of each field of the schema, from a variable: the bound of every
    value sampled is within the worst case (an argument that sizes a read but is not
    declared so would exceed it)."""
    checked = 0
    for opening, kind, closing in _paths():
        for name, field in kind.fields.items():
            for argument_name, argument in field.args.items():
                others = _required(field, but=argument_name)
                arguments = f"{argument_name}: $v" + (", " + others[1:-1] if others else "")
                below = (
                    " { __typename }"
                    if isinstance(graphql.get_named_type(field.type), graphql.GraphQLObjectType)
                    else ""
                )
                text = (opening % argument.type) + f"{name}({arguments}){below} " + closing
                most = worst(text)
                if most is None:
                    model = model_of(field)
                    assert model is not None and argument_name in model.unbounded, text
                    continue
                for value in _samples(argument.type):
                    found = bound(text, {"v": value})
                    for figure, count in found.items():
                        assert count <= most[figure], (text, value, found, most)
                    checked += 1
    assert checked > 300


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_documents_add_and_list_print_the_worst_case(
    endpoint: str, table: str, tmp_path: Path
) -> None:
    # Its largest page is over these limits (its default page is not): said by both.
    env = on_table(endpoint, table, DYNAGATE_MAX_ITEMS="50")
    orders = "query Orders($n: Int) { openOrders(first: $n) { edges { node { id status } } } }"
    customer = "query Customer($id: ID!) { customer(id: $id) { name } }"
    heatmap = "query Map($v: Viewport!) { heatmap(viewport: $v) { precision } }"
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({sha(t): t for t in (orders, customer, heatmap)}))
    added = run("documents", "add", str(manifest), env=env)
    assert added.returncode == 0, added.stderr
    expected = {
        "Orders": _described(bound(orders, {"n": 100})) + OVER,
        "Customer": _described(bound(customer, {"id": "c"})),
        "Map": "no worst case: `Query.heatmap` takes its viewport from a variable",
    }
    listed = run("documents", "list", env=env)
    for operation, text in expected.items():
        assert f"{operation}: {text}" in added.stdout, added.stdout
        assert f"{operation}: {text}" in listed.stdout, listed.stdout
    assert "needs variables" not in added.stdout + listed.stdout


def _described(found: dict[str, int]) -> str:
    return " ".join(f"{name}={found[name]}" for name in ("requests", "itemsScanned", "fields"))


def test_a_type_named_by_a_variable_counts_as_the_largest_type() -> None:
    text = "query ($t: String!) { __type(name: $t) { name fields { name args { name } } } }"
    most = worst(text)
    assert most is not None
    largest = max(bound(text, {"t": name})["fields"] for name in SCHEMA.type_map)
    assert most["fields"] == largest


def test_when_no_value_is_the_worst_in_every_figure_each_figure_counts_its_worst() -> None:
    more_calls = Bound(2, 10, 5, shared={"page": (1, 50)})
    more_items = Bound(1, 200, 4)
    most = _most([more_calls, more_items], ("v",))
    assert most.as_dict() == {"requests": 3, "itemsScanned": 200, "fields": 5}
    assert not most.shared  # counted unshared: never taken for a read made elsewhere
