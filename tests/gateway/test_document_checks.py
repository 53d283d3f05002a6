"""Parsing and validation code the refusals of a document's size where they are made, and
count and word them exactly as graphql-core does."""

from __future__ import annotations

import graphql
import pytest
from graphql import GraphQLError, build_schema, specified_rules

from errors.vocabulary import Code
from gateway.documents.parsing import MAX_VALIDATION_ERRORS, coded, oversized, parse, validate

SCHEMA = build_schema("type Query { a: String  b: String }")
RULES = tuple(specified_rules)


def refusal(query: str, max_tokens: int) -> GraphQLError | None:
    try:
        parse(query, max_tokens)
    except GraphQLError as error:
        return error
    return None


def graphql_core_refusal(query: str, max_tokens: int) -> GraphQLError | None:
    try:
        graphql.parse(query, max_tokens=max_tokens)
    except GraphQLError as error:
        return error
    return None


@pytest.mark.parametrize(
    "query",
    [
        "{ a b }",
        "{ a b c }",
        "{ a, b,, c }",
        "{ a # one\n b }",
        "{ a" + " # c\n" * 10 + " }",
        "#" * 50 + "\n{ a }",
        "{ a b c d e f }",
        "{ a ?",
        "{ a b c d e ?",
        '{ a(x: "unterminated) }',
    ],
)
def test_the_token_limit_counts_as_graphql_cores(query: str) -> None:
    ours, theirs = refusal(query, 5), graphql_core_refusal(query, 5)
    assert (ours is None) == (theirs is None)
    if ours is not None and theirs is not None:
        assert (ours.message, ours.locations) == (theirs.message, theirs.locations)
        too_many = "tokens" in theirs.message
        assert (ours.extensions or {}).get("code") == (Code.QUERY_TOO_COMPLEX if too_many else None)


def test_a_document_nested_past_the_parsers_recursion_is_too_complex() -> None:
    query = "{ a(x: " + "[" * 300 + "1" + "]" * 300 + ") }"
    ours, theirs = refusal(query, 5_000), graphql_core_refusal(query, 5_000)
    assert ours is not None and theirs is not None
    assert (ours.message, ours.locations) == (theirs.message, theirs.locations)
    assert ours.extensions == {"code": Code.QUERY_TOO_COMPLEX}


def test_documents_are_parsed_once() -> None:
    assert parse("{ a }", 5_000) is parse("{ a }", 5_000)


def codes(errors: list[GraphQLError]) -> list[object]:
    return [(e.extensions or {}).get("code") for e in errors]


def test_validation_aborted_at_the_error_limit_is_the_documents_fault() -> None:
    query = "{ " + " ".join(f"f{n}" for n in range(MAX_VALIDATION_ERRORS + 5)) + " }"
    errors = validate(SCHEMA, graphql.parse(query), RULES)
    assert len(errors) == MAX_VALIDATION_ERRORS + 1
    assert "Too many validation errors" in errors[-1].message
    assert codes(errors) == [None] * len(errors)  # BAD_USER_INPUT, given by the extension


def test_validation_aborted_for_its_cost_is_too_complex() -> None:
    errors = validate(SCHEMA, graphql.parse("{" + " a" * 4_000 + " }"), RULES)
    assert [e.message for e in errors] == ["Validation aborted."]
    assert codes(errors) == [Code.QUERY_TOO_COMPLEX]


def test_introspection_nested_too_deeply_is_too_complex() -> None:
    nested = "fields { type { " * 3 + "name" + " } }" * 3
    document = graphql.parse('{ __type(name: "Query") { ' + nested + " } }")
    errors = validate(SCHEMA, document, coded(RULES))
    assert [e.message for e in errors] == ["Maximum introspection depth exceeded"]
    assert codes(errors) == [Code.QUERY_TOO_COMPLEX]


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("{ a }", 5),
        ("{ a } # é", 10),
        ("{ a } #" + "\ud800", 10),
        ("#" + "\U0001d538" * 3 + "\n{ a }", 19),
    ],
)
def test_a_document_is_measured_in_utf_8_bytes(text: str, size: int) -> None:
    """Characters of 2 and 4 bytes, and a lone surrogate (JSON carries one) as its 3."""
    assert not oversized(text, size) and oversized(text, size - 1)
    if "\ud800" not in text:
        assert parse(text, 100, size).definitions
    over = refusal_of_size(text, size - 1)
    assert over is not None and over.extensions == {"code": Code.QUERY_TOO_COMPLEX}
    assert (
        over.message == f"Syntax Error: Document is larger than {size - 1} bytes. Parsing aborted."
    )


def refusal_of_size(query: str, max_bytes: int) -> GraphQLError | None:
    try:
        parse(query, 100, max_bytes)
    except GraphQLError as error:
        return error
    return None
