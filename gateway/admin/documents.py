"""`dynagate documents add MANIFEST.json` and `dynagate documents list`: a client's
documents registered as trusted (API.md section 10), and what the table holds.

`add` checks every document first (`gateway/trusted.py`) and registers none when one is
refused, so a manifest is trusted whole or not at all; each registered document is printed
with its bound as it is written.

Exit codes: 0 when every document was registered (or listed), 1 when one is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from graphql import GraphQLError, GraphQLSchema, parse, specified_rules, validate

from data.documents import Document, list_documents, register_document
from gateway.demand import Limits
from gateway.document_checks import coded
from gateway.schema import validation_rules
from gateway.trusted import Checked, check_manifest, describe
from store.client import Store

Say = Callable[[str], None]


def check(
    schema: GraphQLSchema,
    documents: Mapping[str, str],
    limits: Limits,
    *,
    introspection: bool,
) -> list[Checked]:
    """The manifest's documents checked as the gateway will check them when they run."""
    rules = coded(specified_rules) + tuple(validation_rules(introspection))
    return check_manifest(schema, documents, limits, rules)


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
        for line in _lines(f"sha256:{document.sha256}", document.bounds):
            say(line)
    say(f"{len(checked)} documents registered as trusted")
    return 0


async def show(store: Store, schema: GraphQLSchema, say: Say) -> int:
    """Every registered document: hash, trusted or not, when, its operations, and whether
    the schema served now still accepts it."""
    count = 0
    async for document in list_documents(store):
        count += 1
        state = "trusted" if document.trusted else "persisted"
        say(f"sha256:{document.sha256}  {state}  {document.registered_at or '-'}")
        for line in _document_lines(document, schema):
            say(f"  {line}")
    say(f"{count} documents")
    return 0


def _document_lines(document: Document, schema: GraphQLSchema) -> list[str]:
    try:
        parsed = parse(document.text)
    except GraphQLError as exc:
        return [f"rejected by the schema: {exc.message}"]
    names = [
        getattr(getattr(node, "name", None), "value", None) or "(anonymous)"
        for node in parsed.definitions
        if node.kind == "operation_definition"
    ]
    bound = describe(document.bound) if document.bound else "bound computed per request"
    lines = [f"{', '.join(names)}: {bound}"]
    lines.extend(f"rejected by the schema: {error.message}" for error in validate(schema, parsed))
    return lines


def _lines(name: str, bounds: Mapping[str, Mapping[str, int] | None]) -> list[str]:
    return [f"{name}  {operation}: {describe(bound)}" for operation, bound in bounds.items()]
