"""Which documents a plan answers (docs/performance.md#plans): what it does not know is
left to the executor whole. Pure: the schema is built, nothing is served."""

from __future__ import annotations

import logging

import pytest

from gateway.documents.parsing import parse, validate
from gateway.plans import cache
from gateway.plans.cache import Plans
from gateway.plans.compiler import Plan
from gateway.schema.build import MAX_TOKENS, build_schema
from gateway.served_model import served
from resolvers.strawberry_internals import core_schema

VIEW = "{south: 51.45, north: 51.55, west: -0.2, east: -0.05}"
ORDERS = 'customer(id: "c1") { name orders(first: 2) { edges { node { id } } } }'

NO_PLAN = {
    "a mutation": 'mutation { createCustomer(input: {id: "c", name: "n", email: "e@x.io"})'
    " { id } }",
    "a subscription": f"subscription {{ markerChanges(viewport: {VIEW}) {{ kind }} }}",
    "a directive": '{ customer(id: "c1") { name @include(if: true) } }',
    "a variable directive": 'query($y: Boolean!) { customer(id: "c1") { name @skip(if: $y) } }',
    "one key twice": '{ customer(id: "c1") { name name } }',
    "introspection": "{ __schema { queryType { name } } }",
    "a field read through its parent": 'query { customer(id: "c1") { orders { edges { node {'
    " customer { name } } } } } }",
    "invalid": '{ customer(id: "c1") { nothing } }',
    "not GraphQL": "{ customer(",
    "several operations, none named": "query A { __typename } query B { __typename }",
}
PLANNED = {
    "a lookup and its page": "{ " + ORDERS + " }",
    "aliases": '{ a: customer(id: "c1") { n: name } b: customer(id: "c2") { name } }',
    "a fragment": '{ customer(id: "c1") { ...F } } fragment F on Customer { name email }',
    "variables": "query($id: ID!) { customer(id: $id) { name } }",
    "markers": f"{{ markers(viewport: {VIEW}) {{ markers {{ id lat }} truncated }} }}",
    "heatmap": f"{{ heatmap(viewport: {VIEW}) {{ precision cells {{ geohash count }} }} }}",
    "the named one of several": "query A { __typename } query B { " + ORDERS + " }",
}


@pytest.fixture(scope="module")
def plans() -> Plans:
    roots = served()
    assert roots.types is not None
    return Plans(build_schema(roots=roots), roots.types.model)


@pytest.mark.parametrize("name", NO_PLAN)
def test_what_a_plan_does_not_know_is_the_executors(plans: Plans, name: str) -> None:
    query = NO_PLAN[name]
    if name not in ("invalid", "not GraphQL", "several operations, none named"):
        document = parse(query, MAX_TOKENS)
        assert validate(core_schema(plans.schema), document, plans.rules) == [], "valid"
    assert plans.get(query, None) is None


@pytest.mark.parametrize("name", PLANNED)
def test_documents_of_planned_fields_have_plans(plans: Plans, name: str) -> None:
    operation = "B" if name == "the named one of several" else None
    plan = plans.get(PLANNED[name], operation)
    assert isinstance(plan, Plan)
    assert plans.get(PLANNED[name], operation) is plan, "compiled once"


def test_plans_are_kept_for_the_documents_asked_lately() -> None:
    roots = served()
    assert roots.types is not None
    plans = Plans(build_schema(roots=roots), roots.types.model, size=2)
    first = plans.get("{ " + ORDERS + " }", None)
    plans.get('{ customer(id: "c2") { name } }', None)
    assert plans.get("{ " + ORDERS + " }", None) is first  # asked again: kept
    plans.get('{ customer(id: "c3") { name } }', None)
    assert plans.get('{ customer(id: "c2") { name } }', None) is not None
    assert len(plans._plans) == 2


def test_a_document_the_compiler_trips_on_is_left_to_the_executor(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    roots = served()
    assert roots.types is not None
    plans = Plans(build_schema(roots=roots), roots.types.model)

    def broken(*_: object) -> Plan:
        raise RuntimeError("a mistake of the compiler")

    monkeypatch.setattr(cache, "compile_plan", broken)
    with caplog.at_level(logging.ERROR):
        assert plans.get("{ " + ORDERS + " }", None) is None
    assert "could not be compiled" in caplog.text
