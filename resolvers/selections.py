"""The selections of a GraphQL document, expanded once: the one walk behind the bound and
the document limits (`gateway/`) and the look-ahead of resolvers (`resolvers/lookahead.py`).

A fragment spread twice in one place selects the same fields twice, so a document whose
fragments double at every level holds exponentially many fields in linear text. Each walk
here computes a figure once per (selection set, context) and reuses it wherever that set
is selected again, so walking any document takes time linear in its text (times the
contexts a consumer tells apart). A fragment cycle (refused by validation) adds nothing.

`@skip` and `@include` decide as execution does when the walk knows the variables; a walk
of the document alone (validation knows no variables) counts every selection.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Iterator, Mapping
from typing import Generic, TypeVar

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLIncludeDirective,
    GraphQLSkipDirective,
    InlineFragmentNode,
    NamedTypeNode,
    SelectionNode,
    SelectionSetNode,
)
from graphql.execution.values import VariableValues, get_directive_values

C = TypeVar("C", bound=Hashable)  # what a fold knows where a selection set is (not None)
R = TypeVar("R")  # what it makes of one

Fragments = Mapping[str, FragmentDefinitionNode]
# A fragment, inline or spread: its type condition (None: the enclosing type) and selections.
Fragment = tuple[NamedTypeNode | None, SelectionSetNode]


def fragments_of(document: DocumentNode) -> dict[str, FragmentDefinitionNode]:
    return {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}


def included(node: SelectionNode, variables: VariableValues | None) -> bool:
    """Whether `@skip` / `@include` keep `node` (with no variables known: always)."""
    if variables is None or not node.directives:
        return True
    try:
        skip = get_directive_values(GraphQLSkipDirective, node, variables)
        include = get_directive_values(GraphQLIncludeDirective, node, variables)
    except GraphQLError:
        return True  # execution refuses the document before reading anything
    return not (skip and skip["if"]) and not (include and not include["if"])


def parts(
    selection_set: SelectionSetNode, fragments: Fragments, variables: VariableValues | None
) -> Iterator[FieldNode | Fragment]:
    """The selections of one set that are kept: fields, and fragments (inline or spread)
    to expand; a spread of an unknown fragment (refused by validation) is dropped."""
    for selection in selection_set.selections:
        if not included(selection, variables):
            continue
        if isinstance(selection, FieldNode):
            yield selection
        elif isinstance(selection, InlineFragmentNode):
            yield selection.type_condition, selection.selection_set
        elif isinstance(selection, FragmentSpreadNode):
            fragment = fragments.get(selection.name.value)
            if fragment is not None:
                yield fragment.type_condition, fragment.selection_set


def fields_in(
    selection_sets: Iterable[SelectionSetNode | None],
    fragments: Fragments,
    variables: VariableValues | None,
) -> list[FieldNode]:
    """The fields selected directly in `selection_sets`, fragments flattened, each selection
    set once: a fragment spread again selects nothing new."""
    found: list[FieldNode] = []
    seen: set[int] = set()

    def expand(selection_set: SelectionSetNode | None) -> None:
        if selection_set is None or id(selection_set) in seen:
            return
        seen.add(id(selection_set))
        for part in parts(selection_set, fragments, variables):
            if isinstance(part, FieldNode):
                found.append(part)
            else:
                expand(part[1])

    for selection_set in selection_sets:
        expand(selection_set)
    return found


class Walk(ABC, Generic[C, R]):
    """A fold over selections: `field` figures one field (walking what is below it with
    `selections`), `add` combines the figures of one set, starting from `zero`."""

    zero: R

    def __init__(self, fragments: Fragments, variables: VariableValues | None) -> None:
        self.fragments = fragments
        self.variables = variables
        self.known: dict[tuple[int, C], R] = {}

    def selections(self, selection_set: SelectionSetNode | None, context: C) -> R:
        if selection_set is None:
            return self.zero
        key = (id(selection_set), context)
        if key in self.known:
            return self.known[key]
        self.known[key] = self.zero  # while it is walked: a cycle adds nothing more
        total = self.zero
        for part in parts(selection_set, self.fragments, self.variables):
            if isinstance(part, FieldNode):
                total = self.add(total, self.field(part, context))
            else:
                condition, inner = part
                narrowed = self.fragment(condition, context)
                if narrowed is not None:
                    total = self.add(total, self.selections(inner, narrowed))
        self.known[key] = total
        return total

    @abstractmethod
    def field(self, node: FieldNode, context: C) -> R: ...

    @abstractmethod
    def add(self, total: R, more: R) -> R: ...

    def fragment(self, condition: NamedTypeNode | None, context: C) -> C | None:
        """The context inside a fragment of type `condition` (None: walk none of it)."""
        return context
