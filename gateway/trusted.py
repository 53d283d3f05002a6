"""Checking a client's documents before they are trusted (`dynagate documents add`): each
must be named by its own SHA-256, parse and validate as the gateway does (its token, depth
and alias limits included), and fit the demand limits in force. Pure: texts in, values out.

The bound of an operation depends on its variables; one that needs a variable without a
default is bounded per request, as every request is, and is listed as such here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from graphql import ASTValidationRule, GraphQLError, GraphQLSchema, OperationDefinitionNode
from graphql.execution.values import VariableValues, get_variable_values

from gateway.bound import bound_operation
from gateway.demand import Limits
from gateway.document_checks import parse, validate
from gateway.schema import MAX_TOKENS
from keys.documents import digest

_SHA256 = "sha256:"
_FIGURES = ("requests", "itemsScanned", "fields")


@dataclass(frozen=True)
class Checked:
    """One document of a manifest: its hash, its operations' bounds (None: needs
    variables), and why it cannot be trusted (nothing when it can)."""

    id: str
    sha256: str
    text: str
    bounds: dict[str, dict[str, int] | None] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def bound(self) -> dict[str, int] | None:
        """The bound kept with the document: that of its one operation, when known."""
        values = list(self.bounds.values())
        return values[0] if len(values) == 1 else None


Rules = tuple[type[ASTValidationRule], ...]


def check_manifest(
    schema: GraphQLSchema, documents: Mapping[str, str], limits: Limits, rules: Rules
) -> list[Checked]:
    """Each document checked, in the manifest's order."""
    return [check_document(schema, id_, text, limits, rules) for id_, text in documents.items()]


def check_document(
    schema: GraphQLSchema, id_: str, text: str, limits: Limits, rules: Rules
) -> Checked:
    sha256 = digest(text)
    checked = Checked(id_, sha256, text)
    named = id_.lower().removeprefix(_SHA256)
    if named != sha256:
        checked.problems.append(
            f"its id is not the SHA-256 of its text (sha256:{sha256}); clients send that hash"
        )
    try:
        document = parse(text, MAX_TOKENS)
    except GraphQLError as exc:
        checked.problems.append(exc.message)
        return checked
    errors = validate(schema, document, rules)
    if errors:
        checked.problems.extend(error.message for error in errors)
        return checked
    for operation in document.definitions:
        if not isinstance(operation, OperationDefinitionNode):
            continue
        name = operation.name.value if operation.name else None
        coerced = get_variable_values(schema, operation.variable_definitions or (), {})
        if not isinstance(coerced, VariableValues):
            checked.bounds[name or "(anonymous)"] = None  # needs variables: bounded per request
            continue
        bound = bound_operation(schema, document, name, {}, lambda b: not limits.exceeded(b))
        estimated = bound.as_dict()
        checked.bounds[name or "(anonymous)"] = estimated
        over = limits.exceeded(bound)
        if over:
            figures = ", ".join(f"{estimated[k]:,} {k} (limit {v:,})" for k, v in over.items())
            checked.problems.append(f"{name or 'the operation'} could need {figures}")
    return checked


def describe(bound: Mapping[str, int] | None) -> str:
    if bound is None:
        return "bounded per request (needs variables)"
    # In the order and by the names of `extensions.cost.estimated`.
    return " ".join(f"{name}={bound[name]}" for name in _FIGURES if name in bound)
