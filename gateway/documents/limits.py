"""The depth and alias limits of a document, checked in time linear in its size.

Strawberry's `QueryDepthLimiter` and `MaxAliasesLimiter` expand every fragment spread
again where it is used, so a document whose fragments double at each level takes
exponential time to check. This rule counts both as those limiters do, in one walk of the
document (`resolvers/selections.py`), and words its refusals as they do. The limits hold
for the document, whatever its variables: every selection counts, `@skip` or not.
"""

from __future__ import annotations

from typing import Any

from graphql import (
    ASTValidationRule,
    FieldNode,
    GraphQLError,
    OperationDefinitionNode,
    ValidationContext,
)

from errors.vocabulary import Code
from resolvers.selections import Walk, fragments_of

# Depth as `QueryDepthLimiter` counts it, aliases as `MaxAliasesLimiter` does.
Figures = tuple[int, int]
# The limits tell no places apart: a selection set counts the same wherever it is.
Anywhere = tuple[()]


class _Limits(Walk[Anywhere, Figures]):
    zero = (0, 0)

    def field(self, node: FieldNode, context: Anywhere) -> Figures:
        depth, aliases = self.selections(node.selection_set, ())
        aliases += node.alias is not None
        # A field with a selection is one level more than its deepest child; leaves and
        # introspection fields add no depth (their aliases count).
        if node.selection_set is None or node.name.value.startswith("__"):
            return 0, aliases
        return 1 + depth, aliases

    def add(self, total: Figures, more: Figures) -> Figures:
        return max(total[0], more[0]), total[1] + more[1]


def limits_rule(max_depth: int, max_aliases: int) -> type[ASTValidationRule]:
    """A rule refusing, as those limiters do, a document with more than `max_aliases`
    aliases (its operations together), and each of its operations deeper than `max_depth`."""

    class DocumentLimits(ASTValidationRule):
        def __init__(self, context: ValidationContext, *args: Any) -> None:
            super().__init__(context)
            document = context.document
            walk = _Limits(fragments_of(document), None)
            operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
            figures = [_figures(walk, operation) for operation in operations]
            aliases = sum(f[1] for f in figures if f is not None)
            if None not in figures and aliases > max_aliases:
                message = f"{aliases} aliases found. Allowed: {max_aliases}"
                context.report_error(_too_complex(message))
            for operation, found in zip(operations, figures, strict=True):
                if found is None or found[0] > max_depth:
                    name = operation.name.value if operation.name else "anonymous"
                    message = f"'{name}' exceeds maximum operation depth of {max_depth}"
                    context.report_error(_too_complex(message, operation))

    return DocumentLimits


def _figures(walk: _Limits, operation: OperationDefinitionNode) -> Figures | None:
    try:
        return walk.selections(operation.selection_set, ())
    except RecursionError:
        return None  # nested deeper than Python walks: far too deep


def _too_complex(message: str, *nodes: OperationDefinitionNode) -> GraphQLError:
    return GraphQLError(message, list(nodes) or None, extensions={"code": Code.QUERY_TOO_COMPLEX})
