"""The demo table served by hand with Strawberry, aioboto3 and aiodataloader: what a Python
team builds from the same packages instead of dynagate. `python -m bench peers` loads it
beside the gateway with the same documents.

Strawberry types shaped as dynagate's schema (connections with edges/node/pageInfo),
resolvers that make the key-condition Queries the table was laid out for, per-request
DataLoaders (BatchGetItem) for items read by key (`objects`, `table`), and the map's
geohash planning ported by hand (`geo`). Only the fields the benchmark's documents use.

    PEER_DDB_ENDPOINT   DynamoDB endpoint (required)      PEER_TABLE   table (peers)

Serve, from the repository: uvicorn bench.peers.strawberry.app:app --port N (one worker)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator

import aioboto3
import strawberry
from aiobotocore.config import AioConfig
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.extensions import ParserCache, ValidationCache
from strawberry.schema.config import StrawberryConfig
from strawberry.types.nodes import SelectedField

from . import geo
from .objects import (
    DATETIME,
    Customer,
    DateTime,
    Info,
    Product,
    Repo,
    customer,
    product,
    repo,
    repo_and_issues,
    repo_pk,
)
from .table import Dynamo, Item, Loaders, Row, between, page_size, unmarshal

MAX_MARKERS, SEARCH_READS = 1000, 16


@strawberry.input
class Viewport:
    north: float
    south: float
    east: float
    west: float


@strawberry.type
class Cell:
    geohash: str
    count: int


@strawberry.type
class Heatmap:
    precision: int
    cells: list[Cell]


@strawberry.type
class Marker:
    id: strawberry.ID
    lat: float
    lon: float
    geohash: str
    label: str
    created_at: DateTime


def marker(r: Row) -> Marker:
    return Marker(
        id=strawberry.ID(r["id"]),
        lat=float(r["lat"]),
        lon=float(r["lon"]),
        geohash=r["geohash"],
        label=r["label"],
        created_at=r["createdAt"],
    )


@strawberry.type
class MarkerSearch:
    markers: list[Marker]
    truncated: bool


def selected(info: Info, name: str) -> SelectedField | None:
    """The child field `name` of the field being resolved (through fragments), or None."""
    stack = list(info.selected_fields[0].selections)
    while stack:
        selection = stack.pop(0)
        if isinstance(selection, SelectedField):
            if selection.name == name:
                return selection
        else:
            stack.extend(selection.selections)
    return None


def view_of(viewport: Viewport) -> geo.View:
    return geo.View(viewport.north, viewport.south, viewport.east, viewport.west)


@strawberry.type
class Query:
    @strawberry.field
    async def customer(self, info: Info, id: strawberry.ID) -> Customer | None:
        r = await info.context.heads.load(f"CUSTOMER#{id}")
        return None if r is None else customer(r)

    @strawberry.field
    async def product(self, info: Info, id: strawberry.ID) -> Product | None:
        r = await info.context.heads.load(f"PRODUCT#{id}")
        return None if r is None else product(r)

    @strawberry.field
    async def repo(self, info: Info, owner: str, name: str) -> Repo | None:
        pk = repo_pk(owner, name)
        issues = selected(info, "issues")
        if issues is not None and not issues.arguments.get("after"):
            # The page of issues asked for is read with the repository's item, in one Query.
            first = issues.arguments.get("first")  # a literal comes as its text
            size = page_size(None if first is None else int(first))
            head, rows = await repo_and_issues(pk, size, None)
            return None if head is None else repo(head, (size, rows))
        head = await info.context.heads.load(pk)
        return None if head is None else repo(head)

    @strawberry.field
    async def heatmap(self, viewport: Viewport, precision: int | None = None) -> Heatmap:
        view = view_of(viewport)
        length = geo.precision(view, precision)
        plan = geo.heatmap_plan(view, length)
        reads = (Dynamo.query_all(**between(*keys)) for keys, _ in plan)
        results = await asyncio.gather(*reads)
        cells = []
        for (_, boxes), items in zip(plan, results, strict=True):
            for item in items:
                count = int(item["count"]["N"])
                cell = geo.cell_of(item["PK"]["S"], item["SK"]["S"])
                if count > 0 and any(geo.intersects(geo.cell_box(cell), b) for b in boxes):
                    cells.append((cell, count))
        cells.sort()
        return Heatmap(precision=length, cells=[Cell(geohash=g, count=c) for g, c in cells])

    @strawberry.field
    async def markers(self, viewport: Viewport, limit: int | None = 100) -> MarkerSearch:
        most = 100 if limit is None else limit
        if not 1 <= most <= MAX_MARKERS:
            raise ValueError(f"`limit` must be 1 to {MAX_MARKERS}")
        view = view_of(viewport)
        geo.check_place_view(view)
        plan = geo.place_plan(view)
        first, beyond = plan[:SEARCH_READS], plan[SEARCH_READS:]
        pages = await asyncio.gather(*(Dynamo.query(**between(*q, Limit=most + 1)) for q in first))

        def inside(items: list[Item]) -> list[Row]:
            rows = map(unmarshal, items)
            return [m for m in rows if view.contains(float(m["lat"]), float(m["lon"]))]

        found: list[Row] = []
        calls, unread = len(first), False
        for q, page in zip(first, pages, strict=True):  # in key order; a range with more reads on
            found += inside(page["Items"])
            start = page.get("LastEvaluatedKey")
            while start and len(found) <= most:
                if calls == SEARCH_READS:
                    unread = True
                    break
                more = between(*q, Limit=most + 1 - len(found), ExclusiveStartKey=start)
                page = await Dynamo.query(**more)
                calls += 1
                found += inside(page["Items"])
                start = page.get("LastEvaluatedKey")
            if len(found) > most or unread:
                break
        else:
            unread = bool(beyond)
        markers = [marker(m) for m in found[:most]]
        return MarkerSearch(markers=markers, truncated=len(found) > most or unread)


schema = strawberry.Schema(
    query=Query,
    extensions=[lambda: ParserCache(maxsize=100), lambda: ValidationCache(maxsize=100)],
    config=StrawberryConfig(scalar_map={DateTime: DATETIME}),
)


class GraphQLApp(GraphQL[Loaders, None]):
    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Loaders:
        return Loaders()


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    config = AioConfig(max_pool_connections=64)
    async with aioboto3.Session().client(
        "dynamodb",
        endpoint_url=os.environ["PEER_DDB_ENDPOINT"],
        region_name=os.environ.get("AWS_REGION", "us-east-1"),
        config=config,
    ) as client:
        Dynamo.client = client
        yield


async def healthz(request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


app = Starlette(
    routes=[Route("/graphql", GraphQLApp(schema, graphql_ide=None)), Route("/healthz", healthz)],
    lifespan=lifespan,
)
