"""WebSocket connections of `graphql-transport-ws` (docs/subscriptions.md): sign-in, limits,
pings and one log line per subscription.

Strawberry runs the protocol; this handler adds what a public service needs around it:
the token of `connection_init` (or of the upgrade request) checked, the socket closed with
4403 on a bad one and when it expires, at most `max_connections` sockets per caller (4429
past it) and `max_subscriptions` operations per socket (`RATE_LIMITED`), a ping every
15 s, and for each operation a context of its own.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import Counter
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from graphql import (
    GraphQLError,
    GraphQLSyntaxError,
    OperationDefinitionNode,
    OperationType,
    get_operation_ast,
    parse,
)
from starlette.websockets import WebSocketDisconnect
from strawberry.asgi import ASGIWebSocketAdapter
from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
    Operation,
    _OperationStreamClosed,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    ConnectionInitMessage,
    SubscribeMessage,
)
from strawberry.utils.aio import aclosing

from errors.vocabulary import Code, DynagateError, Unauthenticated, Unavailable
from gateway.demand.ratelimit import bucket
from gateway.operation_context import OperationContext
from gateway.request_scope import RequestScope, closed, opened
from gateway.schema.build import MAX_TOKENS

if TYPE_CHECKING:
    from data.callers import Caller
    from gateway.admission import Admission

logger = logging.getLogger("dynagate")
PING_SECONDS = 15.0
# The longest one message may take to leave; a client reading nothing past it is dropped.
SEND_SECONDS = 10.0


class TextWebSocketAdapter(ASGIWebSocketAdapter):
    """Messages as text frames, as `graphql-transport-ws` clients expect (the view's
    encoder makes bytes)."""

    async def send_json(self, message: Mapping[str, object]) -> None:
        encoded = self.view.encode_json(message)
        text = encoded.decode() if isinstance(encoded, bytes) else encoded
        try:
            async with asyncio.timeout(SEND_SECONDS):
                await self.ws.send_text(text)
        except WebSocketDisconnect as exc:
            raise WebSocketDisconnected from exc
        except TimeoutError as exc:
            # A client that reads nothing would hold this send, and the subscription that
            # sends, for ever: the send gives up, which ends that subscription, and the
            # socket is closed if the close can still leave.
            logger.warning("a WebSocket client read nothing for %g s: closing it", SEND_SECONDS)
            with suppress(Exception):
                async with asyncio.timeout(1.0):
                    await self.ws.close(code=1008, reason="the client reads nothing")
            raise WebSocketDisconnected from exc


class Sockets:
    """Open sockets per caller (their rate-limit bucket), to hold each to a maximum."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open: Counter[str] = Counter()

    def take(self, who: str) -> bool:
        if self.open[who] >= self.limit:
            return False
        self.open[who] += 1
        return True

    def give_back(self, who: str) -> None:
        self.open[who] -= 1
        if self.open[who] <= 0:
            del self.open[who]


class LiveView(Protocol):
    """What the handler needs of the GraphQL view (`gateway.http.view.GraphQLApp`)."""

    sockets: Sockets
    admission: Admission
    max_subscriptions: int

    def gauge(self, name: str, delta: int) -> None: ...
    async def follow(self) -> None: ...
    def encode_json(self, data: object) -> bytes: ...


class LiveHandler(BaseGraphQLTransportWSHandler[OperationContext, None]):
    view: LiveView  # type: ignore[assignment]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.who: str | None = None
        self.background: list[asyncio.Task[None]] = []

    @property
    def _socket(self) -> Any:
        return self.websocket.ws  # type: ignore[attr-defined]

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        payload = message.get("payload") or {}
        if self.connection_init_received or not isinstance(payload, dict):
            await super().handle_connection_init(message)  # Strawberry closes the socket
            return
        try:
            caller, expires = await self._session(payload)
        except Unauthenticated as exc:
            await self._close(4403, f"Forbidden: {exc}")
            return
        except Unavailable as exc:
            await self._close(1013, str(exc))
            return
        who = bucket(self._socket, caller)
        if not self.view.sockets.take(who):
            limit = self.view.sockets.limit
            await self._close(4429, f"Too many sockets: at most {limit} at once per caller")
            return
        self.who = who  # from here on, `shutdown` gives the slot back, whatever happens
        self.view.gauge("sockets", +1)
        try:
            await self.view.follow()
        except TimeoutError:
            await self._close(1013, "the table's stream cannot be read now: try again later")
            return
        if expires is not None and expires <= time.time():
            await self._close(4403, "Forbidden: the token expired; connect again with a new one")
            return
        charge = self.view.admission.charger(who)
        self.context = replace(self.context, caller=caller, charge=charge)
        await super().handle_connection_init(message)
        if not self.connection_acknowledged:
            return
        if expires is not None:
            self._start(self._expire(expires))
        self._start(self._ping())

    async def _session(self, payload: Mapping[str, Any]) -> tuple[Caller, float | None]:
        given = payload.get("Authorization", payload.get("authorization"))
        if given is not None and not isinstance(given, str):
            raise Unauthenticated("`Authorization` in connection_init is not a string")
        headers = [given] if given else self._socket.headers.getlist("authorization")
        return await self.view.admission.sign_in(headers)

    async def handle_subscribe(self, message: SubscribeMessage) -> None:
        limit = self.view.max_subscriptions
        taken = message.get("id") in self.operations  # Strawberry closes with 4409
        if self.connection_acknowledged and not taken and len(self.operations) >= limit:
            error = GraphQLError(
                f"at most {limit} subscriptions at once per connection: complete one first",
                extensions={"code": Code.RATE_LIMITED},
            )
            await self.send_message(
                {"id": message["id"], "type": "error", "payload": [error.formatted]}
            )
            return
        await super().handle_subscribe(message)

    async def run_operation(self, operation: Operation[OperationContext, None]) -> None:
        """Strawberry's own, with a context per operation, under a request id of its own,
        and for a subscription a log line at its start and at its end."""
        request = RequestScope(uuid.uuid4().hex)
        context = self.context.for_operation(request=request)
        admission = self.view.admission
        try:  # in trusted mode, only registered documents run (`gateway/documents/persisted.py`)
            await admission.admit_document(context, operation.query)
        except DynagateError as exc:
            if context.charge is not None and context.cost.requests:
                context.charge(context.cost)  # the document's read, to the caller's limit
            await self._refuse(operation, GraphQLError(str(exc), extensions=exc.extensions))
            return
        token = opened(request)
        subscribed = _subscription(operation.query, operation.operation_name)
        live = subscribed is not None
        name = operation.operation_name or (
            subscribed.name.value if subscribed and subscribed.name else None
        )
        fields: dict[str, Any] = {
            "requestId": request.request_id,
            "operationType": "subscription",
            "operationName": name,
        }
        if live:
            self.view.gauge("subscriptions", +1)
            logger.info(
                "subscription started request=%s operation=%s",
                request.request_id,
                name or "-",
                extra={"fields": {**fields, "event": "started"}},
            )
        # A query or mutation over the socket is admitted, timed and charged as over HTTP;
        # a subscription's events are charged one by one (`Context.next_event`).
        charged = None if live else self.who
        limited = None if charged is None else await admission.within_rate(charged)
        if limited is not None:
            await self._refuse(operation, limited.error())
            closed(token)
            return
        try:
            async with admission.deadline(subscription=live):
                result_source = await self.schema.stream(
                    operation.query,
                    variable_values=operation.variables,
                    context_value=context,
                    root_value=self.root_value,
                    operation_name=operation.operation_name,
                )
                async with aclosing(result_source):
                    await self._send_result_stream(operation, result_source)
            await operation.send_operation_message({"id": operation.id, "type": "complete"})
        except _OperationStreamClosed:
            return
        except GraphQLError as error:
            # Refused by the parser before anything ran (too large, too many tokens, not
            # GraphQL): Strawberry's stream lets it out; the client hears why.
            if "code" not in (error.extensions or {}):
                error.extensions = {**(error.extensions or {}), "code": Code.BAD_USER_INPUT}
            await self._refuse(operation, error)
        except Exception as error:  # as Strawberry's own: logged, completed, forgotten
            await self.handle_task_exception(error)
            with suppress(Exception):
                await operation.send_operation_message({"id": operation.id, "type": "complete"})
            self.operations.pop(operation.id, None)
        finally:
            if charged is not None:
                admission.charge(charged, context.cost)
            if live:
                self.view.gauge("subscriptions", -1)
                seconds = request.elapsed()
                logger.info(
                    "subscription ended request=%s operation=%s duration_ms=%.1f",
                    request.request_id,
                    name or "-",
                    seconds * 1000,
                    extra={
                        "fields": {
                            **fields,
                            "event": "ended",
                            "durationMs": round(seconds * 1000, 1),
                        }
                    },
                )
            closed(token)

    async def shutdown(self) -> None:
        for task in self.background:
            task.cancel()
        try:
            await super().shutdown()
        finally:
            if self.who is not None:
                self.view.sockets.give_back(self.who)
                self.view.gauge("sockets", -1)
                self.who = None

    async def _refuse(
        self, operation: Operation[OperationContext, None], error: GraphQLError
    ) -> None:
        with suppress(Exception):
            await operation.send_initial_errors([error])
        self.operations.pop(operation.id, None)

    def _start(self, work: Any) -> None:
        task = asyncio.create_task(work)
        task.add_done_callback(self._task_done)
        self.background.append(task)

    async def _expire(self, expires: float) -> None:
        await asyncio.sleep(max(expires - time.time(), 0.0))
        await self._close(4403, "Forbidden: the token expired; connect again with a new one")

    async def _ping(self) -> None:
        with suppress(Exception):
            while True:
                await asyncio.sleep(PING_SECONDS)
                await self.send_message({"type": "ping"})

    async def _close(self, code: int, reason: str) -> None:
        with suppress(Exception):
            await self.websocket.close(code=code, reason=reason[:120])


def _subscription(query: str, operation_name: str | None) -> OperationDefinitionNode | None:
    """The subscription `query` runs, if it runs one (a document Strawberry refuses, no).
    Read within the parser's token limit, as Strawberry's own parse reads it: a huge
    document costs no more here than there."""
    try:
        operation = get_operation_ast(parse(query, max_tokens=MAX_TOKENS), operation_name)
    except GraphQLSyntaxError:
        return None
    if operation is None or operation.operation is not OperationType.SUBSCRIPTION:
        return None
    return operation
