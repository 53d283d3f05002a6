"""A fault-injecting HTTP proxy in front of DynamoDB Local.

A gateway or client pointed at `FaultProxy.url` reaches DynamoDB through it. Every call is
forwarded unchanged unless a rule picks it by its operation (the `X-Amz-Target` header,
such as `PutItem`; `*` for any):

    lose      forward it, then close the connection without the answer: DynamoDB applied
              the call but the caller never hears so, and botocore sends it again
    error     answer HTTP 500 InternalServerError (or `status` and `code`), not forwarded
    throttle  answer 400 ThrottlingException (or `code`), not forwarded
    hang      accept it and never answer (until the proxy stops), not forwarded
    conflict  answer 400 TransactionCanceledException, every action of the transaction
              cancelled by `TransactionConflict` (another transaction held its item), not
              forwarded
    hold      forward it, then keep DynamoDB's answer (`answered` is set) until the test
              sets `release`: a call whose answer is in flight while the table changes
    corrupt   forward it, then answer DynamoDB's answer with another x-amz-crc32: a body
              damaged on the way, which the client must not take

A rule fires on a share of the calls it picks (`probability`, drawn from a generator seeded
per proxy), at most `count` times in all and at most `per_request` times for one request:
botocore resends a request byte for byte, so a resend is known by its body.

`without_backoff` leaves out botocore's pauses between attempts: the tests are about what
a call hears, not when.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import zlib
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Literal, Self

import httpx
import pytest
from botocore.retries.standard import ExponentialBackoff

Mode = Literal["lose", "error", "throttle", "hang", "conflict", "hold", "corrupt"]
_ERROR_TYPE = "com.amazonaws.dynamodb.v20120810#"
# Headers of one connection, not of the message: the proxy sets its own.
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length"}


@dataclass
class Rule:
    operation: str
    mode: Mode
    probability: float = 1.0
    count: int | None = None
    per_request: int | None = None
    status: int | None = None
    code: str | None = None
    # More fields of an `error` answer, such as the `Item` a failed condition returns.
    fields: dict[str, object] | None = None
    # Faults injected so far.
    hits: int = 0
    # A `hold`: set once DynamoDB answered, and by the test to let the answer go.
    answered: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    release: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _by_request: Counter[bytes] = field(default_factory=Counter, repr=False)

    def fires(self, operation: str, body: bytes, draw: Callable[[], float]) -> bool:
        if self.operation not in ("*", operation):
            return False
        if self.count is not None and self.hits >= self.count:
            return False
        request = hashlib.sha256(body).digest()
        if self.per_request is not None and self._by_request[request] >= self.per_request:
            return False
        if self.probability < 1 and draw() >= self.probability:
            return False
        self.hits += 1
        self._by_request[request] += 1
        return True

    def error(self, request: bytes) -> bytes:
        """The whole HTTP answer of an `error`, `throttle` or `conflict` rule."""
        status = self.status or (500 if self.mode == "error" else 400)
        code = self.code or {
            "error": "InternalServerError",
            "conflict": "TransactionCanceledException",
        }.get(self.mode, "ThrottlingException")
        answer: dict[str, object] = {"__type": _ERROR_TYPE + code, "message": "injected"}
        if self.mode == "conflict":
            actions = json.loads(request).get("TransactItems", [])
            answer["CancellationReasons"] = [{"Code": "TransactionConflict"} for _ in actions]
        body = json.dumps({**answer, **(self.fields or {})})
        head = (
            f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
            "Content-Type: application/x-amz-json-1.0\r\n"
            f"Content-Length: {len(body)}\r\n"
            "x-amzn-RequestId: injected-fault\r\n\r\n"
        )
        return head.encode("latin-1") + body.encode()


@dataclass
class _Request:
    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str:
        return next((v for k, v in self.headers if k.lower() == name), "")


class FaultProxy:
    """`async with FaultProxy(endpoint) as proxy:` serves on 127.0.0.1 at a free port."""

    def __init__(self, upstream: str, *, seed: int = 0) -> None:
        self.upstream = upstream.rstrip("/")
        self.rules: list[Rule] = []
        # Calls received by operation, resends included.
        self.calls: Counter[str] = Counter()
        self._draw = random.Random(seed).random
        self._stopped = asyncio.Event()
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}
        self._server: asyncio.Server | None = None
        self._http: httpx.AsyncClient | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "the proxy is not running"
        host, port = self._server.sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    def inject(
        self,
        operation: str,
        mode: Mode,
        *,
        probability: float = 1.0,
        count: int | None = None,
        per_request: int | None = None,
        status: int | None = None,
        code: str | None = None,
        fields: dict[str, object] | None = None,
    ) -> Rule:
        """A rule that applies from now on, after those injected before it."""
        rule = Rule(operation, mode, probability, count, per_request, status, code, fields)
        self.rules.append(rule)
        return rule

    def clear(self) -> None:
        self.rules.clear()

    async def __aenter__(self) -> Self:
        self._http = httpx.AsyncClient(base_url=self.upstream, timeout=30.0)
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None and self._http is not None
        self._server.close()
        # Hanging answers give up; idle connections see their end.
        self._stopped.set()
        for writer in self._connections.values():
            writer.close()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await self._server.wait_closed()
        await self._http.aclose()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        try:
            while (request := await _read_request(reader)) is not None:
                if not await self._answer(request, writer):
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away
        finally:
            del self._connections[task]
            writer.close()
            with suppress(ConnectionError):
                await writer.wait_closed()

    async def _answer(self, request: _Request, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False when the connection is to be closed."""
        operation = request.header("x-amz-target").rpartition(".")[2]
        self.calls[operation] += 1
        rule = next((r for r in self.rules if r.fires(operation, request.body, self._draw)), None)
        if rule is not None and rule.mode == "hang":
            await self._stopped.wait()
            return False
        if rule is not None and rule.mode in ("error", "throttle", "conflict"):
            writer.write(rule.error(request.body))
            await writer.drain()
            return True
        answer = await self._forward(request)
        if rule is not None and rule.mode == "corrupt":
            head, _, body = answer.partition(b"\r\n\r\n")
            lines = [
                line for line in head.split(b"\r\n") if not line.lower().startswith(b"x-amz-crc32:")
            ]
            lines.append(b"x-amz-crc32: %d" % ((zlib.crc32(body) + 1) & 0xFFFFFFFF))
            answer = b"\r\n".join(lines) + b"\r\n\r\n" + body
        elif rule is not None and rule.mode == "hold":
            rule.answered.set()
            await rule.release.wait()
        elif rule is not None:  # "lose": applied by DynamoDB, never heard of by the caller
            return False
        writer.write(answer)
        await writer.drain()
        return True

    async def _forward(self, request: _Request) -> bytes:
        """DynamoDB's answer, byte for byte as it sent it."""
        assert self._http is not None
        headers = [(k, v) for k, v in request.headers if k.lower() not in _HOP_BY_HOP]
        upstream = self._http.build_request(
            request.method, request.target, headers=headers, content=request.body
        )
        response = await self._http.send(upstream, stream=True)
        try:
            body = b"".join([chunk async for chunk in response.aiter_raw()])
        finally:
            await response.aclose()
        lines = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}"]
        lines += [
            f"{k.decode('latin-1')}: {v.decode('latin-1')}"
            for k, v in response.headers.raw
            if k.decode("latin-1").lower() not in _HOP_BY_HOP
        ]
        lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


async def _read_request(reader: asyncio.StreamReader) -> _Request | None:
    """The next request on a connection, or None when the client closed it."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    request_line, *header_lines = head.decode("latin-1").split("\r\n")
    method, target, _ = request_line.split(" ", 2)
    headers = [
        (name.strip(), value.strip())
        for name, _, value in (line.partition(":") for line in header_lines if line)
    ]
    length = int(next((v for k, v in headers if k.lower() == "content-length"), "0"))
    return _Request(method, target, headers, await reader.readexactly(length))


def without_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Botocore retries at once, however many attempts its configuration allows."""
    monkeypatch.setattr(ExponentialBackoff, "delay_amount", lambda self, context: 0.0)
