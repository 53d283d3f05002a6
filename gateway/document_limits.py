"""The depth and alias limits of a document, checked in time linear in its size.

Strawberry's `QueryDepthLimiter` and `MaxAliasesLimiter` expand every fragment spread
again where it is used, so a document whose fragments double at each level takes
exponential time to check. These rules count the same way, with the figure of each
fragment computed once, and word their refusals as those limiters do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from graphql import (
    ASTValidationRule,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationContext,
)

# A fragment figure of 0 while it is computed: a cycle (which validation refuses) adds
# nothing instead of recursing forever.
_PENDING = 0


class _Figures:
    """A figure of each selection set, with every fragment's computed once."""

    def __init__(
        self,
        fragments: Mapping[str, FragmentDefinitionNode],
        combine: Callable[[_Figures, SelectionSetNode], int],
    ) -> None:
        self.fragments = fragments
        self.combine = combine
        self.known: dict[str, int] = {}

    def of(self, selection_set: SelectionSetNode | None) -> int:
        return 0 if selection_set is None else self.combine(self, selection_set)

    def spread(self, name: str) -> int:
        if name not in self.known:
            self.known[name] = _PENDING
            fragment = self.fragments.get(name)
            self.known[name] = 0 if fragment is None else self.of(fragment.selection_set)
        return self.known[name]


def _depth(figures: _Figures, selection_set: SelectionSetNode) -> int:
    """As `QueryDepthLimiter` counts: a field with a selection is one level more than its
    deepest child; leaves and introspection fields add nothing."""
    deepest = 0
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            name = selection.name.value
            if selection.selection_set is not None and not name.startswith("__"):
                deepest = max(deepest, 1 + figures.of(selection.selection_set))
        elif isinstance(selection, InlineFragmentNode):
            deepest = max(deepest, figures.of(selection.selection_set))
        elif isinstance(selection, FragmentSpreadNode):
            deepest = max(deepest, figures.spread(selection.name.value))
    return deepest


def _aliases(figures: _Figures, selection_set: SelectionSetNode) -> int:
    """As `MaxAliasesLimiter` counts: every aliased field, fragments expanded where used."""
    total = 0
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            total += (selection.alias is not None) + figures.of(selection.selection_set)
        elif isinstance(selection, InlineFragmentNode):
            total += figures.of(selection.selection_set)
        elif isinstance(selection, FragmentSpreadNode):
            total += figures.spread(selection.name.value)
    return total


def _fragments(context: ValidationContext) -> dict[str, FragmentDefinitionNode]:
    return {
        d.name.value: d
        for d in context.document.definitions
        if isinstance(d, FragmentDefinitionNode)
    }


def _operations(context: ValidationContext) -> list[OperationDefinitionNode]:
    return [d for d in context.document.definitions if isinstance(d, OperationDefinitionNode)]


def depth_rule(max_depth: int) -> type[ASTValidationRule]:
    class DepthLimit(ASTValidationRule):
        def __init__(self, context: ValidationContext, *args: Any) -> None:
            super().__init__(context)
            figures = _Figures(_fragments(context), _depth)
            for operation in _operations(context):
                try:
                    too_deep = figures.of(operation.selection_set) > max_depth
                except RecursionError:  # nested deeper than Python walks: far too deep
                    too_deep = True
                if too_deep:
                    name = operation.name.value if operation.name else "anonymous"
                    context.report_error(
                        GraphQLError(
                            f"'{name}' exceeds maximum operation depth of {max_depth}",
                            [operation],
                        )
                    )

    return DepthLimit


def alias_rule(max_aliases: int) -> type[ASTValidationRule]:
    class AliasLimit(ASTValidationRule):
        def __init__(self, context: ValidationContext, *args: Any) -> None:
            super().__init__(context)
            figures = _Figures(_fragments(context), _aliases)
            try:
                total = sum(figures.of(o.selection_set) for o in _operations(context))
            except RecursionError:
                return  # nested deeper than Python walks: the depth rule refuses it
            if total > max_aliases:
                context.report_error(GraphQLError(f"{total} aliases found. Allowed: {max_aliases}"))

    return AliasLimit
