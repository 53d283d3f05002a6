"""What a plan (`gateway/plans/`) needs of a field to answer it without the generic
executor: the very reads and rules its resolver runs, giving records instead of Strawberry
objects. Each is kept in the field's metadata under `PLANNED`; a field without one is
answered only by the executor, and so is every document that selects it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from data.collections import PageRead, Prefetched
from data.entities import Record
from model import Entity
from resolvers.context import Context
from resolvers.lookahead import ReadBuilder
from store.pagination import Page, PageArgs

PLANNED: Final = "dynagate.planned"
Arguments = Mapping[str, Any]


@dataclass(frozen=True)
class ItemRead:
    """A lookup: the item its arguments name, with the pages of `builders` read with it."""

    entity: Entity
    # The reads of the children whose first page may come with the item, by field name.
    builders: Callable[[Context, Arguments], Mapping[str, ReadBuilder]]
    # The item's record (its readers decided) and its prefetched pages, or None: not found.
    read: Callable[
        [Context, Arguments, Mapping[str, PageRead[Any]]],
        Awaitable[tuple[Record, Prefetched] | None],
    ]


@dataclass(frozen=True)
class ListRead:
    """A connection under an item: the page its arguments ask for, the list's readers
    decided before the read and each record's after it (`check`)."""

    entity: Entity
    # (context, arguments, page, the parent's record, its prefetched pages, response key)
    read: Callable[[Context, Arguments, PageArgs, Record, Prefetched, str], Awaitable[Page[Record]]]
    check: Callable[[Context, Record, Record], None]


@dataclass(frozen=True)
class SearchRead:
    """A viewport's search: the records found, and whether the limit cut it short."""

    entity: Entity
    # The field of the search's answer holding what was found.
    found: str
    read: Callable[[Context, Arguments], Awaitable[tuple[Sequence[Record], bool]]]


@dataclass(frozen=True)
class CountsRead:
    """A heatmap: its precision and cells, the precision the bound chose at `str` (the
    response key) when none is given."""

    read: Callable[[Context, Arguments, str], Awaitable[tuple[int, Sequence[tuple[str, int]]]]]


Planned = ItemRead | ListRead | SearchRead | CountsRead


def planned(field: Any, plan: Planned) -> Any:
    """`field` (a StrawberryField), with how a plan answers it."""
    field.metadata = {**(field.metadata or {}), PLANNED: plan}
    return field
