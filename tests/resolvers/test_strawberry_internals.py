"""Tripwires: what the gateway takes from under Strawberry's public API is still there, so
that a Strawberry release moving it fails here, naming it, rather than somewhere deep."""

from __future__ import annotations

import hashlib
import inspect
import textwrap
from importlib.metadata import version

import strawberry
from graphql import GraphQLSchema
from strawberry.subscriptions.protocols.graphql_transport_ws import handlers

from resolvers.strawberry_internals import core_info, core_schema

# The digest of Strawberry's `BaseGraphQLTransportWSHandler.run_operation`, which
# `gateway/live/handler.py`'s `run_operation` copies and extends (a context per operation,
# the admission, a log line per subscription). Another digest: compare the two, carry over
# what changed, then put in the new digest.
RUN_OPERATION_SHA256 = "e86f2efc37443654dfb08af6a0a44123cec18d01277718475803d75fc0fb9b78"


@strawberry.type
class Query:
    @strawberry.field
    def seen(self, info: strawberry.Info) -> str:
        raw = core_info(info)
        # What the look-ahead (`resolvers/lookahead.py`) reads of it.
        assert isinstance(raw.fragments, dict) and isinstance(raw.variable_values, dict)
        return raw.field_nodes[0].name.value


def test_the_core_schema_and_info_are_reached() -> None:
    schema = strawberry.Schema(query=Query)
    assert isinstance(core_schema(schema), GraphQLSchema)
    assert core_schema(schema).query_type is not None
    result = schema.execute_sync("{ seen }")
    assert result.errors is None and result.data == {"seen": "seen"}


def test_the_socket_handler_copied_is_the_one_in_strawberry() -> None:
    base = handlers.BaseGraphQLTransportWSHandler
    source = textwrap.dedent(inspect.getsource(base.run_operation))
    digest = hashlib.sha256(source.encode()).hexdigest()
    assert digest == RUN_OPERATION_SHA256, (
        f"strawberry-graphql {version('strawberry-graphql')} changed run_operation, which "
        "gateway/live/handler.py copies: carry the change over, then put in " + digest
    )
    # What the copy calls or catches of Strawberry's private parts.
    assert inspect.isclass(handlers._OperationStreamClosed)
    sent = inspect.signature(base._send_result_stream)
    assert tuple(sent.parameters) == ("self", "operation", "result_source")
