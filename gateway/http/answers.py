"""The answers the gateway makes itself, before or around GraphQL: coded JSON errors, and
the reading of a request body, and the refusal of one too large to read."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, NoReturn

from cross_web import HTTPException
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from errors.vocabulary import Code
from gateway.http.batches import batch_size_refusal
from gateway.request_scope import HttpMiddleware, scope_of


def errors_body(message: str, code: Code) -> dict[str, Any]:
    return {"errors": [{"message": message, "extensions": {"code": code}}]}


def error_response(message: str, status_code: int) -> Response:
    """A GraphQL-shaped JSON error for a request refused before GraphQL could run."""
    return JSONResponse(errors_body(message, Code.BAD_USER_INPUT), status_code=status_code)


@dataclass
class BodySizeLimit(HttpMiddleware):
    """Refuses request bodies over `limit` bytes with 413, before they are parsed."""

    app: ASGIApp
    limit: int

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await self._refuse(scope, receive, send)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, counting_receive, send)
        except _TooLarge:
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = scope_of(scope)
        if request is not None:  # the request log hears of it
            request.codes = [Code.BAD_USER_INPUT]
        response = error_response(f"the request body is over {self.limit:,} bytes", 413)
        await response(scope, receive, send)


class _TooLarge(Exception):
    pass


def json_body(data: str | bytes, max_batch: int = 0) -> dict[str, Any] | list[dict[str, Any]]:
    """A request body as a JSON object, or an array of up to `max_batch` of them (a batch);
    anything else is a 400 that says what is wrong."""
    decoded = _decoded(data)
    if not isinstance(decoded, list):
        return _object(decoded)
    refusal = batch_size_refusal(len(decoded), max_batch)
    if refusal is not None:
        raise HTTPException(400, f"the request body is an array: {refusal}")
    return [_object(each, "each request of a batch is") for each in decoded]


def json_object(data: str | bytes) -> dict[str, Any]:
    """A request body as a JSON object; anything else is a 400 that says what is wrong."""
    return _object(_decoded(data))


def _object(decoded: object, what: str = "the request body is") -> dict[str, Any]:
    if not isinstance(decoded, dict):
        kind = _JSON_KINDS.get(type(decoded), "a number")
        raise HTTPException(400, f"{what} {kind}, not a JSON object")
    return decoded


def _decoded(data: str | bytes) -> object:
    try:
        # UTF-8 only (json.loads would guess UTF-16 or UTF-32 from bytes).
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
        decoded = json.loads(text, parse_constant=_not_json)
    except UnicodeDecodeError as exc:
        reason = f"byte {exc.start} is not UTF-8 ({exc.reason})"
        raise HTTPException(400, f"the request body is not JSON: {reason}") from exc
    except ValueError as exc:
        raise HTTPException(400, f"the request body is not JSON: {exc}") from exc
    except RecursionError as exc:
        raise HTTPException(400, "the request body is nested too deeply to be read") from exc
    return decoded


_JSON_KINDS: dict[type, str] = {
    type(None): "null",
    bool: "a boolean",
    str: "a string",
    list: "an array",
    dict: "an object",
}


def _not_json(constant: str) -> NoReturn:
    raise ValueError(f"{constant} is not a JSON value")
