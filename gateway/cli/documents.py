"""`dynagate documents add MANIFEST.json` and `dynagate documents list`: a client's
documents registered as trusted (docs/http.md#trusted-documents), and what the table holds.

`add` checks every document first (`gateway/cli/trusted.py`) and registers none when one is
refused, so a manifest is trusted whole or not at all; each registered document is printed
with its worst case over every value of its variables (`gateway/demand/worst_case.py`) as it is
written, and `list` prints the same.

Exit codes: 0 when every document was registered (or listed), 1 when one is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from graphql import (
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    parse,
    specified_rules,
    validate,
)

from data.documents import Document, list_documents, register_document
from gateway.cli.trusted import Checked, check_document, worst_of
from gateway.demand.control import Limits
from gateway.documents.parsing import MAX_DOCUMENT_BYTES, coded
from gateway.schema.build import validation_rules
from store.client import Store

Say = Callable[[str], None]


def check(
    schema: GraphQLSchema,
    documents: Mapping[str, str],
    limits: Limits,
    *,
    introspection: bool,
    max_bytes: int = MAX_DOCUMENT_BYTES,
) -> list[Checked]:
    """The manifest's documents checked as the gateway will check them when they run."""
    rules = coded(specified_rules) + tuple(validation_rules(introspection))
    return [
        check_document(schema, id_, text, limits, rules, max_bytes)
        for id_, text in documents.items()
    ]


def refusals(checked: list[Checked]) -> list[str]:
    """One line per problem of each refused document, then the total; none when all pass."""
    lines = [
        f"refused {document.id}: {problem}" for document in checked for problem in document.problems
    ]
    refused = sum(1 for document in checked if document.problems)
    if refused:
        lines.append(f"{refused} of {len(checked)} documents refused; none registered")
    return lines


async def add(store: Store, checked: list[Checked], say: Say) -> int:
    """Register every checked document as trusted, saying each as it is written."""
    for document in checked:
        await register_document(store, document.text, document.bound, trusted=True)
        for operation, worst in document.described.items():
            say(f"sha256:{document.sha256}  {operation}: {worst}")
    say(f"{len(checked)} documents registered as trusted")
    return 0


async def show(store: Store, schema: GraphQLSchema, say: Say, limits: Limits | None = None) -> int:
    """Every registered document: hash, trusted or not, when, its operations with their
    worst case (`limits`: those in force, which pick the arguments left out), and whether
    the schema served now still accepts it."""
    count = 0
    async for document in list_documents(store):
        count += 1
        state = "trusted" if document.trusted else "persisted"
        say(f"sha256:{document.sha256}  {state}  {document.registered_at or '-'}")
        for line in _document_lines(document, schema, limits or Limits()):
            say(f"  {line}")
    say(f"{count} documents")
    return 0


def _document_lines(document: Document, schema: GraphQLSchema, limits: Limits) -> list[str]:
    try:
        parsed = parse(document.text)
    except GraphQLError as exc:
        return [f"rejected by the schema: {exc.message}"]
    operations = [d for d in parsed.definitions if isinstance(d, OperationDefinitionNode)]
    names = [o.name.value if o.name else "(anonymous)" for o in operations]
    errors = validate(schema, parsed)
    if errors:
        lines = [f"{', '.join(names)}: no worst case: the schema rejects it"]
        return lines + [f"rejected by the schema: {error.message}" for error in errors]
    return [
        f"{name}: {worst_of(schema, parsed, operation, limits)[1]}"
        for name, operation in zip(names, operations, strict=True)
    ]
