"""The depth and alias rule counts as Strawberry's `QueryDepthLimiter` and
`MaxAliasesLimiter` do, and words its refusals as they do, in one linear walk (no DynamoDB)."""

from __future__ import annotations

import time

import pytest
from graphql import parse, validate
from strawberry.extensions import max_aliases, query_depth_limiter

from gateway.documents.limits import limits_rule
from gateway.schema.build import build_schema

SCHEMA = build_schema()._schema
DEPTH, ALIASES = 3, 2
OURS = limits_rule(DEPTH, ALIASES)
THEIRS = [
    max_aliases.create_validator(ALIASES),
    query_depth_limiter.create_validator(DEPTH, should_ignore=None),
]
ORDERS = "orders { edges { node { id } } }"

DOCUMENTS = [
    '{ customer(id: "x") { id } }',
    f'{{ customer(id: "x") {{ {ORDERS} }} }}',  # depth 4
    '{ customer(id: "x") { orders { edges { cursor } } } }',  # depth 3
    '{ a: customer(id: "x") { b: id c: name } }',  # 3 aliases
    "{ a: __typename b: __typename @skip(if: true) c: __typename @include(if: false) }",
    f'{{ ...F }} fragment F on Query {{ customer(id: "x") {{ {ORDERS} }} }}',
    f'{{ customer(id: "x") {{ ... on Customer {{ {ORDERS} }} }} }}',
    "{ ...F ...F } fragment F on Query { a: __typename b: __typename }",
    "{ __schema { types { fields { type { ofType { name } } } } } }",  # introspection: no depth
    "{ __schema { a: types { b: name c: kind } } }",
    f'query A {{ customer(id: "x") {{ {ORDERS} }} }} query B {{ x: __typename }}',
    'query A { x: __typename y: __typename } query B { z: customer(id: "x") { id } }',
]


def messages(document: str, rules: list[type]) -> list[str]:
    return [error.message for error in validate(SCHEMA, parse(document), rules)]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_refusals_are_those_of_strawberrys_limiters(document: str) -> None:
    assert messages(document, [OURS]) == messages(document, THEIRS)


def test_refusals_carry_their_code() -> None:
    [error] = validate(SCHEMA, parse("{ a: __typename b: __typename c: __typename }"), [OURS])
    assert error.extensions == {"code": "QUERY_TOO_COMPLEX"}


def test_a_doubling_document_is_counted_in_linear_time() -> None:
    fragments = ["fragment L0 on Query { a: __typename }"]
    fragments += [f"fragment L{n} on Query {{ ...L{n - 1} ...L{n - 1} }}" for n in range(1, 61)]
    document = "\n".join(["{ ...L60 }", *fragments])
    started = time.perf_counter()
    assert messages(document, [OURS]) == [f"{2**60} aliases found. Allowed: {ALIASES}"]
    assert time.perf_counter() - started < 1
