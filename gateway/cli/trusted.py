"""Checking a client's documents before they are trusted (`dynagate documents add`): each
must be named by its own SHA-256, parse and validate as the gateway does (its token, depth
and alias limits included), and fit the demand limits in force. Pure: texts in, values out.

The bound of an operation depends on its variables: each is listed with its worst case over
every value they may take (`gateway/demand/worst_case.py`), and refused when the bound of a request
that gives none of them is over the limits, as the gateway would refuse it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from graphql import (
    ASTValidationRule,
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
)
from graphql.execution.values import VariableValues, get_variable_values

from gateway.demand.bound import Bound, bound_operation
from gateway.demand.control import Limits
from gateway.demand.worst_case import worst_case
from gateway.documents.parsing import MAX_DOCUMENT_BYTES, parse, validate
from gateway.schema.build import MAX_TOKENS
from keys.documents import digest

_SHA256 = "sha256:"
_FIGURES = ("requests", "itemsScanned", "fields")


@dataclass(frozen=True)
class Checked:
    """One document of a manifest: its hash, its operations' worst cases (None: not known
    in advance) and how each is printed, and why it cannot be trusted (nothing when it can)."""

    id: str
    sha256: str
    text: str
    bounds: dict[str, dict[str, int] | None] = field(default_factory=dict)
    described: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def bound(self) -> dict[str, int] | None:
        """The bound kept with the document: that of its one operation, when known."""
        values = list(self.bounds.values())
        return values[0] if len(values) == 1 else None


Rules = tuple[type[ASTValidationRule], ...]


def check_document(
    schema: GraphQLSchema,
    id_: str,
    text: str,
    limits: Limits,
    rules: Rules,
    max_bytes: int = MAX_DOCUMENT_BYTES,
) -> Checked:
    sha256 = digest(text)
    checked = Checked(id_, sha256, text)
    named = id_.lower().removeprefix(_SHA256)
    if named != sha256:
        checked.problems.append(
            f"its id is not the SHA-256 of its text (sha256:{sha256}); clients send that hash"
        )
    try:
        document = parse(text, MAX_TOKENS, max_bytes)
    except GraphQLError as exc:
        checked.problems.append(exc.message)
        return checked
    errors = validate(schema, document, rules)
    if errors:
        checked.problems.extend(error.message for error in errors)
        return checked

    def fits(bound: Bound) -> bool:
        return not limits.exceeded(bound)

    for operation in document.definitions:
        if not isinstance(operation, OperationDefinitionNode):
            continue
        name = operation.name.value if operation.name else None
        label = name or "(anonymous)"
        checked.bounds[label], checked.described[label] = worst_of(
            schema, document, operation, limits
        )
        coerced = get_variable_values(schema, operation.variable_definitions or (), {})
        if not isinstance(coerced, VariableValues):
            continue  # each request gives its variables: bounded as it runs
        bound = bound_operation(schema, document, name, {}, fits)
        estimated = bound.as_dict()
        over = limits.exceeded(bound)
        if over:
            figures = ", ".join(f"{estimated[k]:,} {k} (limit {v:,})" for k, v in over.items())
            checked.problems.append(f"{name or 'the operation'} could need {figures}")
    return checked


def worst_of(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    limits: Limits,
) -> tuple[dict[str, int] | None, str]:
    """The worst case of `operation` over every value of its variables (None: not known
    in advance), and how `dynagate documents add` and `list` print it."""
    worst = worst_case(schema, document, operation, lambda bound: not limits.exceeded(bound))
    if worst.bound is None:
        return None, f"no worst case: {'; '.join(worst.reasons)}"
    figures = worst.bound.as_dict()
    over = bool(operation.variable_definitions) and bool(limits.exceeded(worst.bound))
    return figures, describe(figures) + (OVER if over else "")


# Said of a worst case over the limits: requests whose variables reach it are refused.
OVER = " (over the limits for some values: refused when sent)"


def describe(bound: Mapping[str, int]) -> str:
    """In the order and by the names of `extensions.cost.estimated`."""
    return " ".join(f"{name}={bound[name]}" for name in _FIGURES if name in bound)
