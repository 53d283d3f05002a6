"""`dynagate check` (docs/commands.md): every setting in force and where it came from, then
one line per problem with its fix, exit 1; a configuration that can serve, exit 0."""

from __future__ import annotations

from typing import Any

import pytest

from bench.otlp import receiving
from gateway.cli.dynamodb_local import free_port
from tests.gateway.test_cli import on_table, run
from tests.identity import SECRET
from tests.redis_server import RedisServer

pytestmark = pytest.mark.streamed


def test_a_configuration_that_can_serve_passes(
    endpoint: str, table: str, redis_server: RedisServer
) -> None:
    env = on_table(
        endpoint,
        table,
        DYNAGATE_REDIS_URL=redis_server.url,
        DYNAGATE_AUTH_SECRET=SECRET.decode(),
    )
    checked = run("check", env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    assert f"  DYNAGATE_TABLE = '{table}'  (environment)" in lines
    assert "  DYNAGATE_CACHE = off (`make run`: on)  (default)" in lines
    assert SECRET.decode() not in checked.stdout  # a secret is never shown
    assert (
        lines[-1]
        == "ok: DynamoDB answers, the table is ready with its indexes and stream, Redis answers"
    )


async def test_each_problem_is_one_line_with_its_fix(
    endpoint: str, client: Any, table: str
) -> None:
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    env = on_table(endpoint, table, DYNAGATE_REDIS_URL=nowhere)
    await client.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
    checked = run("check", env=env)
    assert checked.returncode == 1
    found = [line for line in checked.stdout.splitlines() if line.startswith("problem: ")]
    assert len(found) == 2, checked.stdout
    assert "has no stream" in found[0] and "`dynagate create-table --enable-stream`" in found[0]
    assert "Redis at DYNAGATE_REDIS_URL does not answer" in found[1]
    missing = run("check", env={**env, "DYNAGATE_TABLE": "no-such-table"})
    assert missing.returncode == 1
    assert "problem: " in missing.stdout and "run `dynagate create-table`" in missing.stdout
    unreadable = run("check", env={**env, "DYNAGATE_CACHE": "maybe"})
    assert unreadable.returncode == 2 and "DYNAGATE_CACHE" in unreadable.stderr


def test_traces_settings_are_shown_and_the_collector_tried(endpoint: str, table: str) -> None:
    env = on_table(
        endpoint,
        table,
        OTEL_SERVICE_NAME="orders-gateway",
        OTEL_EXPORTER_OTLP_HEADERS="x-api-key=very-secret",
    )
    with receiving() as receiver:
        taken = run("check", env={**env, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url})
        assert receiver.requests == 1  # the empty export it tried
    assert taken.returncode == 0, taken.stdout + taken.stderr
    lines = taken.stdout.splitlines()
    assert "  OTEL_SERVICE_NAME = 'orders-gateway'  (environment)" in lines
    assert "  OTEL_EXPORTER_OTLP_HEADERS = (hidden)  (environment)" in lines
    assert "very-secret" not in taken.stdout
    assert "  traces: otlp" in lines
    assert lines[-1].endswith(", the OTLP endpoint takes traces")
    nowhere = f"http://127.0.0.1:{free_port()}"
    missed = run("check", env={**env, "OTEL_EXPORTER_OTLP_ENDPOINT": nowhere})
    assert missed.returncode == 1
    [problem] = [line for line in missed.stdout.splitlines() if line.startswith("problem: ")]
    assert f"the OTLP endpoint {nowhere}/v1/traces does not answer" in problem
    off = run("check", env=env)
    assert "  traces: off (no OTEL_* setting asks for them)" in off.stdout.splitlines()
