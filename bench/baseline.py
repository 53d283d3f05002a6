"""A minimal hand-written Starlette endpoint for the benchmark's orders page.

It is the floor the gateway is compared with, so it makes the very same DynamoDB calls,
built by the gateway's own request builders on the same client configuration:

- BatchGetItem of the customer (what the gateway's ItemLoader sends for one key), then
- Query on GSI1 for the customer's orders, newest first, Limit 21 (20 + 1 for hasNextPage),

deserialises with `store.requests.from_attributes`, signs one cursor per edge with
`store.cursors.CursorCodec` under the binding the gateway uses (so with the same secret
its cursors are the gateway's, byte for byte), and returns the same `data`.

It does not: parse, validate or execute GraphQL (it serves only `PAGE_QUERY`, whose body
it checks by string equality), limit depth, aliases, tokens or body size, mask errors,
report cost, batch loads through a DataLoader, or round-trip `placedAt` through datetime.

Serve it with `uvicorn bench.baseline:create_app --factory`; it reads the gateway's settings
(`DYNAGATE_DYNAMODB_ENDPOINT`, `DYNAGATE_TABLE`, `DYNAGATE_CURSOR_SECRET`, …).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bench.workload import CUSTOMER_ID, PAGE_QUERY
from gateway.settings import Settings
from keys.orders import customer_key, customer_orders
from keys.table import GSI1, page_key_attributes
from store.cursors import Binding, CursorCodec
from store.requests import Item, batch_get_requests, from_attributes, query_request

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

PAGE_SIZE = 20
_CURSOR_ATTRIBUTES = page_key_attributes(GSI1)


async def orders_page(
    client: DynamoDBClient, table: str, cursors: CursorCodec, customer_id: str
) -> dict[str, Any]:
    """`data` of PAGE_QUERY for `customer_id`, as the gateway would answer it."""
    request = batch_get_requests(table, [customer_key(customer_id)])[0]
    found = (await client.batch_get_item(**request))["Responses"].get(table, [])
    if not found:
        return {"customer": None}
    customer = from_attributes(found[0])
    query = query_request(table, customer_orders(customer_id), forward=False, limit=PAGE_SIZE + 1)
    items = [from_attributes(i) for i in (await client.query(**query)).get("Items", [])]
    binding = Binding(
        "Customer.orders", customer_id, {"status": None, "placed": None, "ascending": False}
    )
    edges = [
        {
            "cursor": cursors.encode(binding, [str(i[a]) for a in _CURSOR_ATTRIBUTES]),
            "node": _node(i),
        }
        for i in items[:PAGE_SIZE]
    ]
    page_info = {
        "hasNextPage": len(items) > PAGE_SIZE,
        "endCursor": edges[-1]["cursor"] if edges else None,
    }
    return {
        "customer": {"name": customer["name"], "orders": {"edges": edges, "pageInfo": page_info}}
    }


def _node(item: Item) -> dict[str, Any]:
    return {
        "id": item["id"],
        "status": item["status"],
        "placedAt": item["placedAt"],
        "totalCents": item["totalCents"],
        "items": [
            {"sku": i["sku"], "quantity": i["quantity"], "unitPriceCents": i["unitPriceCents"]}
            for i in item["items"]
        ],
    }


def create_app(settings: Settings | None = None) -> Starlette:
    settings = Settings.from_env() if settings is None else settings
    cursors = CursorCodec(settings.cursor_secret)
    clients: list[DynamoDBClient] = []

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with settings.open_client() as client:
            clients.append(client)
            yield
            clients.clear()

    async def graphql(request: Request) -> Response:
        body = await request.json()
        if not isinstance(body, dict) or body.get("query") != PAGE_QUERY:
            error = {"message": "the baseline serves only the benchmark's orders page"}
            return JSONResponse({"errors": [error]}, status_code=400)
        data = await orders_page(clients[0], settings.table, cursors, CUSTOMER_ID)
        return JSONResponse({"data": data})

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    return Starlette(
        routes=[Route("/graphql", graphql, methods=["POST"]), Route("/healthz", healthz)],
        lifespan=lifespan,
    )
