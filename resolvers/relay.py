"""Relay connection types, generic over the node type (`Connection[Order]` is `OrderConnection`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

import strawberry
from strawberry.annotation import StrawberryAnnotation
from strawberry.extensions import FieldExtension
from strawberry.types.arguments import StrawberryArgument
from strawberry.types.field import StrawberryField

from resolvers.access import Rule
from resolvers.field_costs import PAGE, FieldCost, cost, field_options, field_with_cost
from store.pagination import Check, Page, PageArgs

FLAG_READ = FieldCost(reads_flag=True)

Node = TypeVar("Node")
Record = TypeVar("Record")
T = TypeVar("T")

# Optional arguments default to UNSET rather than None so the schema shows no `= null`
# defaults; `given` turns an omitted argument into None.
NOT_GIVEN: Any = strawberry.UNSET


def given(value: T | None) -> T | None:
    return None if value is strawberry.UNSET else value


class PageArguments(FieldExtension):
    """The Relay arguments `first`, `after`, `last`, `before`, declared once for every
    connection field (as Strawberry's own `ConnectionExtension` does).

    They follow the field's own arguments in the schema; the resolver receives them
    validated, as its parameter `page: PageArgs`, which the schema does not show.
    """

    NAMES = ("first", "after", "last", "before")

    def apply(self, field: StrawberryField) -> None:
        own = [argument for argument in field.arguments if argument.python_name != "page"]
        field.arguments = [*own, *(_relay_argument(name) for name in self.NAMES)]

    async def resolve_async(
        self,
        next_: Callable[..., Awaitable[Any]],
        source: Any,
        info: strawberry.Info,
        **kwargs: Any,
    ) -> Any:
        arguments = {name: given(kwargs.pop(name, NOT_GIVEN)) for name in self.NAMES}
        return await next_(source, info, page=PageArgs.from_arguments(arguments), **kwargs)


def _relay_argument(name: str) -> StrawberryArgument:
    kind = int if name in ("first", "last") else str
    return StrawberryArgument(
        python_name=name,
        graphql_name=None,
        type_annotation=StrawberryAnnotation(kind | None),
        default=NOT_GIVEN,
    )


def connection_field(
    model: FieldCost, rule: Rule | None = None
) -> Callable[[Callable[..., Any]], Any]:
    """`@strawberry.field` for a connection that costs `model`, with the Relay arguments
    (`PageArguments`); a root field names its `rule` of access."""

    def field(resolver: Callable[..., Any]) -> Any:
        return strawberry.field(resolver, **field_options(model, rule, [PageArguments()]))

    return field


@strawberry.type
class PageInfo:
    start_cursor: str | None
    end_cursor: str | None
    next_check: strawberry.Private[Check]
    previous_check: strawberry.Private[Check]

    # Either flag may read past the page: what its connection's model says.
    @field_with_cost(FLAG_READ)
    async def has_next_page(self) -> bool:
        return await self.next_check()

    @field_with_cost(FLAG_READ)
    async def has_previous_page(self) -> bool:
        return await self.previous_check()


@strawberry.type
class Edge(Generic[Node]):
    cursor: str
    node: Node


@strawberry.type
class Connection(Generic[Node]):
    edges: list[Edge[Node]] = strawberry.field(metadata=cost(FieldCost(fanout=PAGE)))
    page_info: PageInfo

    @classmethod
    def from_page(cls, page: Page[Record], node: Callable[[Record], Node]) -> Connection[Node]:
        edges = [Edge(cursor=e.cursor, node=node(e.item)) for e in page.edges]
        return cls(
            edges=edges,
            page_info=PageInfo(
                start_cursor=page.start_cursor,
                end_cursor=page.end_cursor,
                next_check=page.has_next_page,
                previous_check=page.has_previous_page,
            ),
        )
