"""A keep-alive HTTP/1.1 client for the benchmarks' own load in Python: a request costs it a
few microseconds of CPU where httpx spends most of a millisecond, so that the load sharing
the machine's cores with the server takes little from what it measures. JSON bodies to
servers that answer with a Content-Length (uvicorn does), nothing more."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Self
from urllib.parse import urlsplit

import orjson

_Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


@dataclass(frozen=True)
class RawResponse:
    status_code: int
    body: bytes

    def json(self) -> Any:
        return orjson.loads(self.body)


class RawClient:
    """Connections opened as requests need them and kept open for the next ones."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._all: list[asyncio.StreamWriter] = []

    async def post(self, url: str, json: Any) -> RawResponse:
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        idle = self._idle.setdefault((host, port), [])
        if idle:
            reader, writer = idle.pop()
        else:
            reader, writer = await asyncio.open_connection(host, port)
            self._all.append(writer)
        body = orjson.dumps(json)
        head = (
            f"POST {parts.path or '/'} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        writer.write(head.encode() + body)
        answer = await reader.readuntil(b"\r\n\r\n")
        status = int(answer.split(b" ", 2)[1])
        length = None
        for line in answer.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if length is None:
            raise RuntimeError(f"{url} answered without a Content-Length")
        response = RawResponse(status, await reader.readexactly(length))
        idle.append((reader, writer))
        return response

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for writer in self._all:
            writer.close()
        self._idle.clear()
