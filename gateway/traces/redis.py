"""A span per Redis call made while a traced request is answered (a command, a script, a
pipeline); the process's own background calls (the change fan-out's reads) make none."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from time import time_ns
from typing import Any

from opentelemetry.trace import SpanKind, Status, StatusCode
from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from gateway.traces.spans import Traces, child_of, recorded


def traced_redis(traces: Traces) -> type[Redis]:
    """A Redis client class whose calls inside a recorded span are spans of their own."""

    class TracedPipeline(Pipeline):
        async def execute(self, raise_on_error: bool = True) -> list[Any]:
            with _span(traces, "PIPELINE", len(self.command_stack)):
                return await super().execute(raise_on_error)

    class TracedRedis(Redis):
        async def execute_command(self, *args: Any, **options: Any) -> Any:
            with _span(traces, str(args[0]).split(" ")[0].upper()):
                return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]

        def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Pipeline:
            return TracedPipeline(
                self.connection_pool, self.response_callbacks, transaction, shard_hint
            )

    return TracedRedis


@contextmanager
def _span(traces: Traces, command: str, batch: int | None = None) -> Iterator[None]:
    """A client span named by the command, in error when the call fails."""
    parent = recorded()
    if parent is None:
        yield
        return
    attributes: dict[str, Any] = {"db.system.name": "redis", "db.operation.name": command}
    if batch is not None:
        attributes["db.operation.batch.size"] = batch
    status, start = Status(StatusCode.UNSET), time_ns()
    try:
        yield
    except BaseException as error:
        attributes["error.type"] = type(error).__name__
        status = Status(StatusCode.ERROR, type(error).__name__)
        raise
    finally:
        context = child_of(parent)
        traces.ended(
            f"Redis {command}",
            context,
            parent,
            start,
            kind=SpanKind.CLIENT,
            attributes=attributes,
            status=status,
        )
