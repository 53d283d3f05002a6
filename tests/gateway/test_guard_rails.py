"""The guard rails on a GraphQL document (depth, aliases, tokens) and on the body's size.

Documents that never reach DynamoDB share one table for the module (the `app` fixture).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from graphql.language import Lexer, Source, TokenKind

from tests.client import Api, Result, assert_well_formed

MIB = 1024 * 1024


def assert_passes_validation(result: Result) -> None:
    assert_well_formed(result)
    assert result.errors == []
    assert result.data is not None


def assert_too_complex(result: Result) -> None:
    assert_well_formed(result)
    assert result.codes == ["QUERY_TOO_COMPLEX"]
    assert result.data is None
    assert result.cost["requests"] == 0  # refused before anything was read


# ---- guard rails

# Customer.orders.edges.node.customer… nests without end; the leaf is `__typename`. Pages
# of one keep the bound of the deepest allowed document under the demand-control limits.
_CYCLE = ("orders(first: 1)", "edges", "node", "customer")


def nested(depth: int) -> str:
    """A selection whose leaf sits `depth` levels below the root field (level 0).

    Levels are counted as graphql-depth-limit and strawberry's QueryDepthLimiter count
    them: `{ customer(id: "x") { __typename } }` has depth 1.
    """
    fields = ['customer(id: "nobody")', *(_CYCLE[i % 4] for i in range(depth - 1))]
    return " { ".join(fields) + " { __typename" + " }" * depth


@pytest.mark.parametrize("depth", [1, 14, 15])
async def test_depth_up_to_15_is_allowed(app: Api, depth: int) -> None:
    result = await app("{ " + nested(depth) + " }")
    assert_passes_validation(result)
    assert result.data == {"customer": None}


@pytest.mark.parametrize("depth", [16, 17, 40])
async def test_deeper_than_15_is_too_complex(app: Api, depth: int) -> None:
    result = await app("{ " + nested(depth) + " }")
    assert_too_complex(result)
    assert "depth" in result.errors[0]["message"]


async def test_depth_counts_through_fragments(app: Api) -> None:
    result = await app(
        "query { ...Deep } fragment Deep on Query { " + nested(16) + " }",
    )
    assert_too_complex(result)


def aliased(count: int) -> str:
    return " ".join(f"a{n}: __typename" for n in range(count))


async def test_30_aliases_are_allowed(app: Api) -> None:
    result = await app("{ " + aliased(30) + " }")
    assert_passes_validation(result)
    assert len(result.data) == 30


@pytest.mark.parametrize("count", [31, 100])
async def test_more_than_30_aliases_are_too_complex(app: Api, count: int) -> None:
    result = await app("{ " + aliased(count) + " }")
    assert_too_complex(result)
    assert "aliases" in result.errors[0]["message"]


async def test_aliases_count_in_nested_fields_and_fragments(app: Api) -> None:
    # 1 + 14 in a nested selection + 15 in a fragment = 30.
    nested_aliases = 'c: customer(id: "x") { ' + " ".join(f"i{n}: id" for n in range(14)) + " }"
    fragment = "fragment F on Query { " + aliased(15) + " }"
    assert_passes_validation(await app("{ " + nested_aliases + " ...F } " + fragment))
    one_more = await app("{ " + nested_aliases + " ...F z: __typename } " + fragment)
    assert_too_complex(one_more)
    assert one_more.errors[0]["message"].startswith("31 aliases")
    spread_twice = await app("{ " + nested_aliases + " ...F ... on Query { ...F } } " + fragment)
    assert_too_complex(spread_twice)


def count_tokens(document: str) -> int:
    """Tokens as graphql-core's parser counts them against `max_tokens` (no comments, no EOF)."""
    lexer = Lexer(Source(document))
    count = 0
    while lexer.advance().kind is not TokenKind.EOF:
        count += 1
    return count


def with_tokens(wanted: int) -> str:
    """A valid document of exactly `wanted` tokens, cheap to validate.

    Each field carries two directives (15 tokens), so few fields share a response name:
    graphql-core's overlap check has a budget that thousands of same-named fields exhaust.
    """
    names = ("id", "name", "email", "createdAt", "__typename")
    fields = [f"{names[n % 5]} @include(if: true) @skip(if: false)" for n in range(wanted // 15)]
    document = '{ customer(id: "nobody") { ' + " ".join(fields[:-1]) + " } }"
    document = document[:-4] + " id" * (wanted - count_tokens(document)) + " } }"
    assert count_tokens(document) == wanted
    return document


async def test_5000_tokens_are_allowed(app: Api) -> None:
    result = await app(with_tokens(5000))
    assert_passes_validation(result)
    assert result.data == {"customer": None}


@pytest.mark.parametrize("tokens", [5001, 20_000])
async def test_more_than_5000_tokens_are_too_complex(app: Api, tokens: int) -> None:
    result = await app(with_tokens(tokens))
    assert_too_complex(result)
    assert "5000 tokens" in result.errors[0]["message"]


async def test_commas_and_white_space_are_not_tokens(app: Api) -> None:
    padding = ",\n\t " * 6_000  # 48,000 bytes: within the document size limit
    result = await app(padding + with_tokens(5000) + padding)
    assert_passes_validation(result)


async def test_a_document_too_costly_to_validate_is_too_complex(app: Api) -> None:
    # Under 5,000 tokens, but thousands of same-named fields to compare pairwise.
    result = await app("{" + " __typename" * 4_000 + " }")
    assert_too_complex(result)


async def test_a_document_nested_past_the_parsers_limit_is_too_complex(app: Api) -> None:
    # A few hundred tokens, but deeper than graphql-core's parser can recurse.
    result = await app("{ customer(id: " + "[" * 300 + '"a"' + "]" * 300 + ") { id } }")
    assert_too_complex(result)
    assert "nested too deeply" in result.errors[0]["message"]


async def test_selections_nested_past_the_parsers_limit_are_too_complex(app: Api) -> None:
    result = await app("{ " + "customer { " * 300 + "id" + " }" * 300 + " }")
    assert_too_complex(result)


# ---- several operations in one document

TWO_OPERATIONS = """
mutation Create { createCustomer(input: {id: "twice", name: "T", email: "t@x.io"}) { id } }
query Find { customer(id: "twice") { id } }"""


async def test_several_operations_without_a_name_are_bad_user_input(app: Api) -> None:
    result = await app(TWO_OPERATIONS)
    assert_well_formed(result)
    assert result.codes == ["BAD_USER_INPUT"]
    assert "operationName" in result.errors[0]["message"]
    assert result.data is None
    assert result.cost["requests"] == 0  # the first operation did not run
    found = await app.http.post("/graphql", json={"query": TWO_OPERATIONS, "operationName": "Find"})
    assert found.json()["data"] == {"customer": None}


async def test_the_operation_named_is_the_one_run(app: Api) -> None:
    document = "query A { a: __typename } query B { b: __typename }"
    response = await app.http.post("/graphql", json={"query": document, "operationName": "B"})
    assert response.json()["data"] == {"b": "Query"}
    response = await app.http.post("/graphql", json={"query": document, "operationName": "A"})
    assert response.json()["data"] == {"a": "Query"}


async def test_several_operations_with_an_unknown_name_are_refused(app: Api) -> None:
    document = "query A { __typename } query B { __typename }"
    response = await app.http.post("/graphql", json={"query": document, "operationName": "C"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_one_named_operation_needs_no_name(app: Api) -> None:
    assert_passes_validation(await app("query Only { __typename }"))


# ---- introspection obeys the same limits

_TYPES = "__schema { types { name fields { name type { name ofType { name } } } } }"


async def test_introspection_is_answered(app: Api) -> None:
    result = await app("{ " + _TYPES + " }")
    assert_passes_validation(result)
    assert result.cost["estimated"]["fields"] > 100


async def test_introspection_with_more_than_30_aliases_is_too_complex(app: Api) -> None:
    result = await app(
        "{ " + " ".join(f't{n}: __type(name: "Query") {{ name }}' for n in range(31)) + " }"
    )
    assert_too_complex(result)


async def test_introspection_of_more_than_5000_tokens_is_too_complex(app: Api) -> None:
    result = await app("{ __schema { types { " + "name " * 5_000 + "} } }")
    assert_too_complex(result)


async def test_introspection_nested_too_deeply_is_too_complex(app: Api) -> None:
    # graphql-core's own bound on introspection: fields of types of fields of types…
    nested = "fields { type { " * 3 + "name" + " } }" * 3
    result = await app('{ __type(name: "Query") { ' + nested + " } }")
    assert_too_complex(result)


async def test_introspection_answering_too_many_fields_is_too_complex(app: Api) -> None:
    result = await app("{ " + " ".join(f"s{n}: {_TYPES}" for n in range(30)) + " }")
    assert_too_complex(result)
    assert "fields" in result.errors[0]["extensions"]["limit"]


# ---- body size


def padded_body(size: int) -> bytes:
    """A valid GraphQL-over-HTTP JSON body of exactly `size` bytes (JSON white space)."""
    body = json.dumps({"query": "{ __typename }"}).encode()
    return body[:-1] + b" " * (size - len(body)) + b"}"


async def test_a_body_of_exactly_1_mib_is_read(app: Api) -> None:
    body = padded_body(MIB)
    assert len(body) == MIB
    response = await app.http.post(
        "/graphql", content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200
    assert response.json()["data"] == {"__typename": "Query"}


async def test_a_body_over_1_mib_is_413(app: Api) -> None:
    response = await app.http.post(
        "/graphql", content=padded_body(MIB + 1), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


async def test_a_declared_length_over_1_mib_is_refused_before_reading(app: Api) -> None:
    sent = 0

    async def chunks() -> AsyncIterator[bytes]:
        nonlocal sent
        for _ in range(64):
            sent += 1
            yield b" " * 65_536

    response = await app.http.post(
        "/graphql",
        content=chunks(),
        headers={"Content-Type": "application/json", "Content-Length": str(64 * 65_536)},
    )
    assert response.status_code == 413
    assert sent <= 1


async def test_a_streamed_body_without_length_is_cut_at_1_mib(app: Api) -> None:
    sent = 0

    async def chunks() -> AsyncIterator[bytes]:
        nonlocal sent
        yield b'{"query": "{ __typename }"'
        for _ in range(1_000):  # 64 MB, were it all read
            sent += 1
            yield b" " * 65_536
        yield b"}"

    response = await app.http.post(
        "/graphql", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert sent <= MIB // 65_536 + 2


async def test_a_small_streamed_body_is_read(app: Api) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"query": '
        yield b'"{ __typename }"}'

    response = await app.http.post(
        "/graphql", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200
    assert response.json()["data"] == {"__typename": "Query"}


async def test_a_quoted_limit_message_in_a_variable_is_not_too_complex(app: Api) -> None:
    result = await app(
        "query ($id: ID!) { customer(id: $id) { id } }",
        id="Document contains more than 5000 tokens. Parsing aborted.",
    )
    assert result.codes == ["BAD_USER_INPUT"]
