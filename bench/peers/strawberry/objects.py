"""The Strawberry server's types, shaped as dynagate's schema, and the resolvers of their
fields: the Queries a customer's orders, a product's comments and a repository's issues
were laid out for."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import NewType, TypeVar

import strawberry

from .table import Dynamo, Loaders, Row, decode_cursor, encode_cursor, page_size, s, unmarshal

Info = strawberry.Info[Loaders, None]
Edge = TypeVar("Edge")

# Stored as the API shows it (2020-11-09T12:00:00.123Z): the schema passes it through.
DateTime = NewType("DateTime", str)
DATETIME = strawberry.scalar(
    name="DateTime",
    description="ISO-8601, UTC, millisecond precision",
    serialize=lambda v: v,
    parse_value=lambda v: v,
)


@strawberry.enum
class OrderStatus(Enum):
    PLACED = "PLACED"
    SHIPPED = "SHIPPED"
    DELIVERED = "DELIVERED"
    CANCELLED = "CANCELLED"


@strawberry.enum
class IssueState(Enum):
    OPEN = "OPEN"
    CLOSED = "CLOSED"


@strawberry.type
class PageInfo:
    start_cursor: str | None
    end_cursor: str | None
    has_next_page: bool
    has_previous_page: bool


def connection(
    rows: list[Row],
    size: int,
    after: str | None,
    key_names: tuple[str, ...],
    edge: Callable[[str, Row], Edge],
) -> tuple[list[Edge], PageInfo]:
    """A page of `size` from the `size + 1` rows read; cursors are the rows' keys."""
    cursors = [encode_cursor({k: r[k] for k in key_names}) for r in rows[:size]]
    edges = [edge(c, r) for c, r in zip(cursors, rows, strict=False)]
    info = PageInfo(
        start_cursor=cursors[0] if cursors else None,
        end_cursor=cursors[-1] if cursors else None,
        has_next_page=len(rows) > size,
        has_previous_page=after is not None,
    )
    return edges, info


def _start(after: str | None) -> dict[str, object]:
    return {"ExclusiveStartKey": decode_cursor(after)} if after else {}


@strawberry.type
class OrderItem:
    position: int
    sku: str
    quantity: int
    unit_price_cents: int


def order_item(line: Row) -> OrderItem:
    return OrderItem(
        position=int(line["position"]),
        sku=line["sku"],
        quantity=int(line["quantity"]),
        unit_price_cents=int(line["unitPriceCents"]),
    )


@strawberry.type
class Order:
    id: strawberry.ID
    status: OrderStatus
    placed_at: DateTime
    updated_at: DateTime
    total_cents: int
    lines: strawberry.Private[list[Row] | None]

    @strawberry.field
    async def items(self, info: Info) -> list[OrderItem]:
        lines = self.lines
        if lines is None:
            lines = await info.context.order_lines.load(self.id)
        return [order_item(line) for line in lines]


@strawberry.type
class OrderEdge:
    cursor: str
    node: Order


def order_edge(cursor: str, r: Row) -> OrderEdge:
    node = Order(
        id=strawberry.ID(r["id"]),
        status=OrderStatus(r["status"]),
        placed_at=r["placedAt"],
        updated_at=r["updatedAt"],
        total_cents=int(r["totalCents"]),
        lines=r.get("items"),
    )
    return OrderEdge(cursor=cursor, node=node)


@strawberry.type
class OrderConnection:
    edges: list[OrderEdge]
    page_info: PageInfo


@strawberry.type
class Customer:
    id: strawberry.ID
    name: str
    email: str
    created_at: DateTime

    @strawberry.field
    async def orders(
        self, status: OrderStatus | None = None, first: int | None = None, after: str | None = None
    ) -> OrderConnection:
        size = page_size(first)
        if status is None:  # GSI1: a customer's orders by time
            index, prefix = "GSI1", "ORDER#"
        else:  # GSI2: by status, then time
            index, prefix = "GSI2", f"ORDER#{status.value}#"
        r = await Dynamo.query(
            IndexName=index,
            KeyConditionExpression=f"{index}PK = :pk AND begins_with({index}SK, :prefix)",
            ExpressionAttributeValues={":pk": s(f"CUSTOMER#{self.id}"), ":prefix": s(prefix)},
            ScanIndexForward=False,
            Limit=size + 1,
            **_start(after),
        )
        rows = [unmarshal(i) for i in r["Items"]]
        keys = ("PK", "SK", f"{index}PK", f"{index}SK")
        edges, info = connection(rows, size, after, keys, order_edge)
        return OrderConnection(edges=edges, page_info=info)


@strawberry.type
class Comment:
    id: strawberry.ID
    language: str
    rating: int
    body: str
    created_at: DateTime


@strawberry.type
class CommentEdge:
    cursor: str
    node: Comment


def comment_edge(cursor: str, r: Row) -> CommentEdge:
    node = Comment(
        id=strawberry.ID(r["id"]),
        language=r["language"],
        rating=int(r["rating"]),
        body=r["body"],
        created_at=r["createdAt"],
    )
    return CommentEdge(cursor=cursor, node=node)


@strawberry.type
class CommentConnection:
    edges: list[CommentEdge]
    page_info: PageInfo


def ratings_mask(ratings: list[int] | None) -> int:
    """Each comment is copied under every set of ratings holding its own: a set is a
    bitmask (rating r is bit r-1), no filter the set of all five."""
    if ratings is None:
        return 31
    if not ratings or any(not 1 <= r <= 5 for r in ratings):
        raise ValueError("`ratings` must be a non-empty set of 1 to 5")
    return sum(1 << (r - 1) for r in set(ratings))


@strawberry.type
class Product:
    id: strawberry.ID
    name: str

    @strawberry.field
    async def comments(
        self,
        language: str | None = None,
        ratings: list[int] | None = None,
        first: int | None = None,
        after: str | None = None,
    ) -> CommentConnection:
        size = page_size(first)
        lang = "~" if language is None else language.lower()
        partition = f"PRODUCT#{self.id}#{lang}#{ratings_mask(ratings)}"
        r = await Dynamo.query(
            IndexName="GSI1",
            KeyConditionExpression="GSI1PK = :pk AND begins_with(GSI1SK, :prefix)",
            ExpressionAttributeValues={":pk": s(partition), ":prefix": s("COMMENT#")},
            ScanIndexForward=False,
            Limit=size + 1,
            **_start(after),
        )
        rows = [unmarshal(i) for i in r["Items"]]
        keys = ("PK", "SK", "GSI1PK", "GSI1SK")
        edges, info = connection(rows, size, after, keys, comment_edge)
        return CommentConnection(edges=edges, page_info=info)


@strawberry.type
class Issue:
    number: int
    title: str
    state: IssueState
    created_at: DateTime


@strawberry.type
class IssueEdge:
    cursor: str
    node: Issue


def issue_edge(cursor: str, r: Row) -> IssueEdge:
    node = Issue(
        number=int(r["number"]),
        title=r["title"],
        state=IssueState(r["state"]),
        created_at=r["createdAt"],
    )
    return IssueEdge(cursor=cursor, node=node)


@strawberry.type
class IssueConnection:
    edges: list[IssueEdge]
    page_info: PageInfo


def repo_pk(owner: str, name: str) -> str:
    return f"REPO#{owner.lower()}#{name.lower()}"


async def repo_and_issues(pk: str, size: int, after: str | None) -> tuple[Row | None, list[Row]]:
    """Issues sort before their repository's item (`ISSUE#` < `REPO#`): reading backwards
    from that item returns it, then its issues, highest number first, in one Query."""
    # The repository's item, the page and one more; after a cursor, the page and one more.
    limit = {"Limit": size + 1, **_start(after)} if after else {"Limit": size + 2}
    r = await Dynamo.query(
        KeyConditionExpression="PK = :pk AND SK BETWEEN :low AND :high",
        ExpressionAttributeValues={":pk": s(pk), ":low": s("ISSUE#"), ":high": s(pk)},
        ScanIndexForward=False,
        **limit,
    )
    rows = [unmarshal(i) for i in r["Items"]]
    head = rows.pop(0) if rows and rows[0]["SK"] == pk else None
    return head, rows


@strawberry.type
class Repo:
    owner: str
    name: str
    description: str | None
    created_at: DateTime
    star_count: int
    # (page size, rows) of the issues read with the repository's item.
    prefetched: strawberry.Private[tuple[int, list[Row]] | None] = None

    @strawberry.field
    async def issues(self, first: int | None = None, after: str | None = None) -> IssueConnection:
        size = page_size(first)
        if self.prefetched is not None and self.prefetched[0] == size and after is None:
            rows = self.prefetched[1]
        else:
            _, rows = await repo_and_issues(repo_pk(self.owner, self.name), size, after)
        edges, info = connection(rows, size, after, ("PK", "SK"), issue_edge)
        return IssueConnection(edges=edges, page_info=info)


def repo(r: Row, prefetched: tuple[int, list[Row]] | None = None) -> Repo:
    return Repo(
        owner=r["owner"],
        name=r["name"],
        description=r.get("description"),
        created_at=r["createdAt"],
        star_count=int(r.get("starCount", 0)),
        prefetched=prefetched,
    )


def customer(r: Row) -> Customer:
    return Customer(
        id=strawberry.ID(r["id"]), name=r["name"], email=r["email"], created_at=r["createdAt"]
    )


def product(r: Row) -> Product:
    return Product(id=strawberry.ID(r["id"]), name=r["name"])
