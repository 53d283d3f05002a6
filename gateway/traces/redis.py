"""A span per Redis call made while a traced request is answered (a command, a script, a
pipeline); the process's own background calls (the change fan-out's reads) make none."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer
from redis.asyncio import Redis
from redis.asyncio.client import Pipeline


def traced_redis(tracer: Tracer) -> type[Redis]:
    """A Redis client class whose calls inside a recorded span are spans of their own."""

    class TracedPipeline(Pipeline):
        async def execute(self, raise_on_error: bool = True) -> list[Any]:
            if not trace.get_current_span().is_recording():
                return await super().execute(raise_on_error)
            size = {"db.operation.batch.size": len(self.command_stack)}
            with _span(tracer, "PIPELINE", size):
                return await super().execute(raise_on_error)

    class TracedRedis(Redis):
        async def execute_command(self, *args: Any, **options: Any) -> Any:
            if not trace.get_current_span().is_recording():
                return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
            with _span(tracer, str(args[0]).split(" ")[0].upper(), {}):
                return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]

        def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Pipeline:
            return TracedPipeline(
                self.connection_pool, self.response_callbacks, transaction, shard_hint
            )

    return TracedRedis


@contextmanager
def _span(tracer: Tracer, command: str, attributes: dict[str, Any]) -> Iterator[None]:
    """A client span named by the command, in error when the call fails."""
    span = tracer.start_span(
        f"Redis {command}",
        kind=SpanKind.CLIENT,
        attributes={"db.system.name": "redis", "db.operation.name": command, **attributes},
    )
    try:
        yield
    except BaseException as error:
        span.set_attribute("error.type", type(error).__name__)
        span.set_status(Status(StatusCode.ERROR, type(error).__name__))
        raise
    finally:
        span.end()
