"""What a client selected below a field, so its resolver can read child pages with it.

`repo { issues(first: 10) { … } }` is one Query only if the `repo` resolver knows, before
it reads the repository, which page `issues` will ask for. This reads the selection:
fragments flattened, `@skip`/`@include` honoured, arguments taken from literals and
variables. Anything it cannot turn into a read is left to the child field itself, which
then validates its arguments and reports errors at its own path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import Any, TypeVar

import strawberry
from strawberry.types.nodes import FragmentSpread, InlineFragment, SelectedField, Selection

from data.collections import PageRead
from data.validation import InvalidInput
from store.errors import DynagateError
from store.pagination import PageArgs

Arguments = Mapping[str, Any]
# Builds the read a child field would make from that field's arguments.
ReadBuilder = Callable[[Arguments], PageRead[Any]]
E = TypeVar("E", bound=Enum)


def child_reads(
    info: strawberry.Info[Any, Any], builders: Mapping[str, ReadBuilder]
) -> dict[str, PageRead[Any]]:
    """The reads of the selected children named in `builders`, by response key."""
    reads: dict[str, PageRead[Any]] = {}
    for field in _children(info.selected_fields):
        builder = builders.get(field.name)
        if builder is None:
            continue
        try:
            reads[field.alias or field.name] = builder(field.arguments)
        except (DynagateError, InvalidInput, TypeError, ValueError):
            continue  # the child reports it, at its own path
    return reads


def page_args(arguments: Arguments) -> PageArgs:
    """Relay arguments as the child would parse them (literal integers arrive as text)."""
    return PageArgs.parse(
        _integer(arguments.get("first")),
        arguments.get("after"),
        _integer(arguments.get("last")),
        arguments.get("before"),
    )


def enum_value(kind: type[E], value: Any) -> E | None:
    """An enum argument's member, from a literal (its name) or a variable (coerced)."""
    if value is None:
        return None
    return kind(getattr(value, "value", value))


def _integer(value: Any) -> int | None:
    return None if value is None else int(value)


def _children(fields: Iterable[Selection]) -> list[SelectedField]:
    children: list[SelectedField] = []

    def walk(selections: Iterable[Selection]) -> None:
        for selection in selections:
            if not _included(selection.directives):
                continue
            if isinstance(selection, SelectedField):
                children.append(selection)
            elif isinstance(selection, FragmentSpread | InlineFragment):
                walk(selection.selections)

    for field in fields:
        if isinstance(field, SelectedField):
            walk(field.selections)
    return children


def _included(directives: Mapping[str, Mapping[str, Any]]) -> bool:
    if "skip" in directives and directives["skip"].get("if") is True:
        return False
    return not ("include" in directives and directives["include"].get("if") is False)
