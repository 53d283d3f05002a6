"""Relay connection types, generic over the node type (`Connection[Order]` is `OrderConnection`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

import strawberry

from store.pagination import Check, Page, PageArgs
from store.requests import Item

Node = TypeVar("Node")
T = TypeVar("T")

# Optional arguments default to UNSET rather than None so the schema shows no `= null`
# defaults; `given` turns an omitted argument into None.
NOT_GIVEN: Any = strawberry.UNSET


def given(value: T | None) -> T | None:
    return None if value is strawberry.UNSET else value


def page_args(
    first: int | None, after: str | None, last: int | None, before: str | None
) -> PageArgs:
    """Validated Relay arguments of a connection field."""
    return PageArgs.parse(given(first), given(after), given(last), given(before))


@strawberry.type
class PageInfo:
    start_cursor: str | None
    end_cursor: str | None
    next_check: strawberry.Private[Check]
    previous_check: strawberry.Private[Check]

    @strawberry.field
    async def has_next_page(self) -> bool:
        return await self.next_check()

    @strawberry.field
    async def has_previous_page(self) -> bool:
        return await self.previous_check()


@strawberry.type
class Edge(Generic[Node]):
    cursor: str
    node: Node


@strawberry.type
class Connection(Generic[Node]):
    edges: list[Edge[Node]]
    page_info: PageInfo

    @classmethod
    def from_page(cls, page: Page, node: Callable[[Item], Node]) -> Connection[Node]:
        edges = [Edge(cursor=e.cursor, node=node(e.item)) for e in page.edges]
        return cls(
            edges=edges,
            page_info=PageInfo(
                start_cursor=edges[0].cursor if edges else None,
                end_cursor=edges[-1].cursor if edges else None,
                next_check=page.has_next_page,
                previous_check=page.has_previous_page,
            ),
        )
