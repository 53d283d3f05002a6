"""The gateway served on a real port, and a `graphql-transport-ws` client over a real
WebSocket (the `websockets` library), for the subscription tests: with the calls over HTTP
whose changes those tests hear."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
import websockets
from starlette.applications import Starlette
from starlette.types import ASGIApp
from websockets.asyncio.client import ClientConnection
from websockets.typing import Subprotocol

from gateway.cli.dynamodb_local import free_port
from gateway.http.app import create_app
from gateway.http.view import GraphQLApp
from gateway.runtime import Runtime
from gateway.settings import Settings

PROTOCOL = Subprotocol("graphql-transport-ws")


@dataclass
class Served:
    url: str
    app: Starlette

    @property
    def runtime(self) -> Runtime:
        runtime: Runtime = self.app.state.runtime
        return runtime

    @property
    def graphql(self) -> GraphQLApp:
        """The GraphQL view (its limiter, its sockets)."""
        for route in self.app.routes:
            endpoint = getattr(route, "endpoint", None)
            if isinstance(endpoint, GraphQLApp):
                return endpoint
        raise LookupError("no GraphQL route")

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/graphql"


@asynccontextmanager
async def serving(app: ASGIApp, port: int | None = None) -> AsyncIterator[str]:
    """`app` under uvicorn on the loopback `port` (a free one if None), as `dynagate serve`
    runs the gateway; its URL."""
    port = free_port() if port is None else port
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=5
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            await task
        await asyncio.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@asynccontextmanager
async def served(settings: Settings) -> AsyncIterator[Served]:
    """The gateway on a free port under uvicorn, as `dynagate serve` runs it."""
    app = create_app(settings)
    async with serving(app) as url:
        yield Served(url, app)


@asynccontextmanager
async def replicas_served(settings: Settings, count: int = 2) -> AsyncIterator[list[Served]]:
    """`count` replicas of the gateway with the same `settings`, each on a port of its own,
    as a deployment behind a load balancer runs them."""
    async with AsyncExitStack() as stack:
        yield [await stack.enter_async_context(served(settings)) for _ in range(count)]


@dataclass
class LiveClient:
    """One socket speaking `graphql-transport-ws`."""

    socket: ClientConnection
    ids: int = 0
    pings: int = 0
    held: list[dict[str, Any]] = field(default_factory=list)

    async def send(self, message: dict[str, Any]) -> None:
        await self.socket.send(json.dumps(message))

    async def init(self, token: str | None = None) -> dict[str, Any]:
        payload = {} if token is None else {"Authorization": f"Bearer {token}"}
        await self.send({"type": "connection_init", "payload": payload})
        return await self.receive()

    async def subscribe(self, query: str, **variables: Any) -> str:
        self.ids += 1
        ident = str(self.ids)
        payload = {"query": query, "variables": variables}
        await self.send({"id": ident, "type": "subscribe", "payload": payload})
        return ident

    async def answer(self, query: str, **variables: Any) -> dict[str, Any]:
        """The first message of a new operation: a query's or mutation's one answer, or the
        refusal of a subscription."""
        return await self.next_for(await self.subscribe(query, **variables))

    async def complete(self, ident: str) -> None:
        await self.send({"id": ident, "type": "complete"})

    async def receive(self, within: float = 10.0) -> dict[str, Any]:
        """The next message other than a ping (answered, as clients do), within `within`
        seconds in all: the server's pings do not extend the wait."""
        async with asyncio.timeout(within):
            return await self._receive()

    async def _receive(self) -> dict[str, Any]:
        while True:
            raw = await self.socket.recv()
            assert isinstance(raw, str), f"a binary frame: {raw!r}"
            message: dict[str, Any] = json.loads(raw)
            if message.get("type") == "ping":
                self.pings += 1
                await self.send({"type": "pong"})
                continue
            return message

    async def next_for(self, ident: str, within: float = 10.0) -> dict[str, Any]:
        """The next message of operation `ident` (others are kept for later), within
        `within` seconds in all."""
        for position, message in enumerate(self.held):
            if message.get("id") == ident:
                return self.held.pop(position)
        async with asyncio.timeout(within):
            while True:
                message = await self._receive()
                if message.get("id") == ident:
                    return message
                self.held.append(message)


@asynccontextmanager
async def connected(
    served: Served | str,
    token: str | None = None,
    *,
    init: bool = True,
    headers: dict[str, str] | None = None,
) -> AsyncIterator[LiveClient]:
    """A socket to `served` (or to a `ws://` URL), acknowledged unless `init` is False."""
    url = served if isinstance(served, str) else served.ws_url
    async with websockets.connect(
        url, subprotocols=[PROTOCOL], additional_headers=headers
    ) as socket:
        client = LiveClient(socket)
        if init:
            ack = await client.init(token)
            assert ack["type"] == "connection_ack", ack
        yield client


@asynccontextmanager
async def listening(
    gateway: Served, *subscriptions: str, **variables: Any
) -> AsyncIterator[tuple[LiveClient, list[str]]]:
    """A client subscribed to each of `subscriptions` (given `variables`), and the ids of
    its subscriptions, once they have had the time to reach the stream's reader."""
    async with connected(gateway) as client:
        idents = [await client.subscribe(query, **variables) for query in subscriptions]
        await asyncio.sleep(0.3)
        yield client, idents


async def events(client: LiveClient, ident: str, count: int) -> list[dict[str, Any]]:
    """The next `count` events of subscription `ident`: each the value of its one field."""
    found = []
    for _ in range(count):
        message = await client.next_for(ident, within=10)
        assert message["type"] == "next", message
        found.append(next(iter(message["payload"]["data"].values())))
    return found


async def mutate(served: Served, query: str, **variables: Any) -> dict[str, Any]:
    """A request to `served` over HTTP, as a client that is not subscribed sends it: its
    data (no errors allowed)."""
    async with httpx.AsyncClient() as http:
        response = await http.post(
            served.url + "/graphql", json={"query": query, "variables": variables}
        )
    body: dict[str, Any] = response.json()
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data
