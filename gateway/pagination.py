"""Relay pages over one key condition, with exact `hasNextPage` / `hasPreviousPage`.

A page reads `size + 1` items: the extra one tells whether more follow. Whether anything
lies on the other side of a page that started from a cursor (the cursor's own item
included) is one more `Limit: 1` Query, made only when a client asks for that flag.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gateway.cursors import Binding, CursorCodec
from gateway.errors import BadCursor, BadUserInput
from gateway.requests import Item, Key
from gateway.store import Store
from keys.conditions import KeyCondition
from keys.table import page_key_attributes

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100


@dataclass(frozen=True)
class PageArgs:
    """Validated Relay arguments: `size` items after (or, `backward`, before) `cursor`."""

    size: int
    backward: bool
    cursor: str | None

    @classmethod
    def parse(
        cls, first: int | None, after: str | None, last: int | None, before: str | None
    ) -> PageArgs:
        if first is not None and last is not None:
            raise BadUserInput("give `first` or `last`, not both")
        if (first is not None and before is not None) or (last is not None and after is not None):
            raise BadUserInput("`after` goes with `first`, `before` with `last`")
        if after is not None and before is not None:
            raise BadUserInput("give `after` or `before`, not both")
        backward = last is not None or before is not None
        size = (last if backward else first) or DEFAULT_PAGE_SIZE
        requested = last if backward else first
        if requested is not None and not 1 <= requested <= MAX_PAGE_SIZE:
            name = "last" if backward else "first"
            raise BadUserInput(f"`{name}` must be 1 to {MAX_PAGE_SIZE}, not {requested}")
        return cls(size=size, backward=backward, cursor=before if backward else after)


@dataclass(frozen=True)
class Edge:
    cursor: str
    item: Item


Check = Callable[[], Awaitable[bool]]


@dataclass(frozen=True)
class Page:
    edges: list[Edge]
    has_next_page: Check
    has_previous_page: Check


@dataclass(frozen=True)
class Filter:
    """A FilterExpression, for the few collections a seed justifies one on."""

    expression: str
    values: Mapping[str, Any]


def _known(value: bool) -> Check:
    async def check() -> bool:
        return value

    return check


@dataclass
class Paginator:
    store: Store
    cursors: CursorCodec

    async def page(
        self,
        condition: KeyCondition,
        binding: Binding,
        args: PageArgs,
        *,
        forward: bool = True,
        filter: Filter | None = None,
    ) -> Page:
        """The page of `condition` read in direction `forward` that `args` asks for."""
        attributes = page_key_attributes(condition.index)
        start = None
        if args.cursor is not None:
            values = self.cursors.decode(binding, args.cursor)
            if len(values) != len(attributes):
                raise BadCursor("the cursor is malformed; use a cursor returned by this field")
            start = dict(zip(attributes, values, strict=True))
        reading_forward = forward != args.backward
        result = await self._read(condition, reading_forward, args.size + 1, start, filter)
        items = result[: args.size]
        more = len(result) > args.size
        if args.backward:
            items.reverse()
        edges = [
            Edge(self.cursors.encode(binding, [str(i[a]) for a in attributes]), i) for i in items
        ]
        # Anything on the other side of the page, the cursor's own item included: read
        # backwards from the page's first item, or over the whole range if the page is empty
        # (then everything in it lies behind the cursor).
        behind = (
            _known(False)
            if start is None
            else self._exists(
                condition,
                not reading_forward,
                {a: str(result[0][a]) for a in attributes} if result else None,
                filter,
            )
        )
        if args.backward:
            return Page(edges, has_next_page=behind, has_previous_page=_known(more))
        return Page(edges, has_next_page=_known(more), has_previous_page=behind)

    def _exists(
        self, condition: KeyCondition, forward: bool, start: Key | None, filter: Filter | None
    ) -> Check:
        async def check() -> bool:
            return bool(await self._read(condition, forward, 1, start, filter))

        return check

    async def _read(
        self,
        condition: KeyCondition,
        forward: bool,
        limit: int,
        start: Key | None,
        filter: Filter | None,
    ) -> list[Item]:
        result = await self.store.query(
            condition,
            forward=forward,
            limit=limit,
            start_key=start,
            filter_expression=None if filter is None else filter.expression,
            filter_values=None if filter is None else filter.values,
        )
        return result.items
