"""The `dynagate` console script, run as a user would."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from gateway.schema.build import schema_sdl
from gateway.setting_table import SETTINGS
from tests.redis_server import RedisServer

DYNAGATE = str(Path(sys.executable).with_name("dynagate"))


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
    return subprocess.run(
        [DYNAGATE, *args], env={**clean, **env}, capture_output=True, text=True, timeout=120
    )


def on_table(endpoint: str, table: str, **more: str) -> dict[str, str]:
    """The environment of a command run on `table` at `endpoint`, and `more` settings."""
    return {"DYNAGATE_DYNAMODB_ENDPOINT": endpoint, "DYNAGATE_TABLE": table, **more}


def test_create_table_twice_then_seed_twice(endpoint: str) -> None:
    env = on_table(endpoint, f"cli-{uuid.uuid4().hex[:8]}")
    first = run("create-table", env=env)
    assert first.returncode == 0, first.stderr
    assert "created table" in first.stdout
    second = run("create-table", env=env)
    assert second.returncode == 0, second.stderr
    assert "already exists" in second.stdout

    small = (
        *("--customers", "3", "--max-orders", "4", "--products", "2", "--max-comments", "3"),
        *("--markers-per-place", "2", "--repos", "2", "--organizations", "1", "--queues", "1"),
    )
    seeded = run("seed", *small, env=env)
    assert seeded.returncode == 0, seeded.stderr
    assert "seeded 3 customers" in seeded.stdout
    assert "2 products" in seeded.stdout
    assert "6 markers, 2 repositories, 1 organizations and 1 queues" in seeded.stdout
    assert "seeding customers" in seeded.stderr  # the progress bars
    assert "seeding products" in seeded.stderr
    assert "seeding repos, organizations, queues" in seeded.stderr
    again = run("seed", *small, env=env)
    assert again.returncode == 0, again.stderr
    assert again.stdout == (
        f"the demo data already exists in {env['DYNAGATE_TABLE']!r}, nothing was added"
        " (skipped 3 customers, 2 products, 3 places with markers, 2 repositories,"
        " 1 organizations and 1 queues)\n"
    )


def test_aws_endpoint_needs_a_cursor_secret() -> None:
    result = run("serve", env={})
    assert result.returncode == 2
    assert "DYNAGATE_CURSOR_SECRET" in result.stderr


def test_export_schema_prints_the_sdl() -> None:
    result = run("export-schema", env={})
    assert result.returncode == 0
    assert result.stdout == schema_sdl()


def test_admin_commands_need_no_cursor_secret_even_for_aws() -> None:
    # create-table signs no cursors: with an AWS endpoint it fails on credentials or the
    # network, never on the missing secret.
    result = run("create-table", env={"AWS_REGION": "us-east-1"})
    assert "DYNAGATE_CURSOR_SECRET" not in result.stderr


def test_serve_refuses_open_mode_in_production_unless_switched_off() -> None:
    result = run("serve", env={"DYNAGATE_CURSOR_SECRET": "s" * 32})
    assert result.returncode == 2
    assert "DYNAGATE_AUTH=off" in result.stderr


@pytest.mark.parametrize(
    ("env", "line"),
    [
        (
            {"DYNAGATE_DYNAMODB_ENDPOINT": "notaurl"},
            "dynagate: DYNAGATE_DYNAMODB_ENDPOINT='notaurl': use an http:// or https:// URL",
        ),
        (
            {"DYNAGATE_DYNAMODB_ENDPOINT": "http://127.0.0.1:8001", "DYNAGATE_TABLE": ""},
            "dynagate: DYNAGATE_TABLE is set but empty: use 3 to 255 letters, digits, '_', '-' "
            "or '.', or unset it (default: dynagate)",
        ),
        (
            {"DYNAGATE_DYNAMODB_ENDPOINT": "http://dynamodb:8000", "DYNAGATE_AUTH": "off"},
            "dynagate: DYNAGATE_CURSOR_SECRET is required in production",
        ),
    ],
)
def test_a_bad_setting_stops_serve_with_one_line(env: dict[str, str], line: str) -> None:
    result = run("serve", env=env)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith(line), result.stderr


def test_token_prints_a_token_the_gateway_verifies() -> None:
    secret = "a-secret-of-at-least-32-bytes-xyz"
    result = run(
        "token", "--sub", "Ada", "--admin", "--ttl", "120", env={"DYNAGATE_AUTH_SECRET": secret}
    )
    assert result.returncode == 0, result.stderr
    claims = jwt.decode(result.stdout.strip(), secret.encode(), algorithms=["HS256"])
    assert claims["sub"] == "Ada"
    assert claims["groups"] == ["admin"]
    assert claims["exp"] - claims["iat"] == 120
    refused = run("token", "--sub", "Ada", env={})
    assert refused.returncode == 2
    assert "DYNAGATE_AUTH_SECRET" in refused.stderr


# ---- guidance for a newcomer

# Wide enough that argparse does not wrap a help line in the middle of what is asserted.
WIDE = {"COLUMNS": "200"}


def test_version_prints_the_installed_version() -> None:
    result = run("--version", env={})
    assert result.returncode == 0
    assert re.fullmatch(r"dynagate \d+\.\d+\.\d+\S*\n", result.stdout)


def test_help_lists_the_commands_and_every_environment_variable() -> None:
    result = run("--help", env=WIDE)
    assert result.returncode == 0
    commands = ("serve", "create-table", "seed", "dynamodb-local", "verify", "token")
    for command in (*commands, "export-schema", "schema-diff", "documents"):
        assert command in result.stdout
    # Every setting the gateway reads, from the one table `Settings.from_env` parses with,
    # each said with its default.
    text = " ".join(result.stdout.split())
    for setting in SETTINGS:
        assert f"{setting.name} " in text, setting.name
        assert f"(default: {' '.join(setting.default_text.split())})" in text, setting.name


def test_bare_dynagate_prints_the_help() -> None:
    result = run(env={})
    assert result.returncode == 2
    assert "usage: dynagate" in result.stderr
    assert "DYNAGATE_DYNAMODB_ENDPOINT" in result.stderr
    assert "error:" not in result.stderr


def test_help_of_each_option_shows_its_default() -> None:
    seed = run("seed", "--help", env=WIDE).stdout
    options = re.findall(r"^\s+(--[a-z-]+) [A-Z_]+\s+(.*)$", seed, re.MULTILINE)
    # Every command that touches the table takes `--model`, whose default is the setting's.
    assert "--model" in {option for option, _ in options}
    options = [(option, text) for option, text in options if option != "--model"]
    assert {option for option, _ in options} == {
        *("--customers", "--max-orders", "--products", "--max-comments"),
        *("--markers-per-place", "--repos", "--organizations", "--queues"),
    }
    for option, help_text in options:
        assert re.fullmatch(r"\w.* \(default: \d+\)", help_text), option
    assert "(default: 40)" in seed
    serve = run("serve", "--help", env=WIDE).stdout
    assert "(default: 127.0.0.1)" in serve
    assert "(default: 8000)" in serve
    assert "(default: 8001)" in run("dynamodb-local", "--help", env=WIDE).stdout
    assert "(default: 4)" in run("verify", "--help", env=WIDE).stdout
    assert "(default: 86400)" in run("token", "--help", env=WIDE).stdout


def test_no_endpoint_and_no_credentials_names_both_fixes(tmp_path: Path) -> None:
    # An empty home (no ~/.aws) and no instance metadata: nothing to find credentials in.
    env = {"HOME": str(tmp_path), "AWS_EC2_METADATA_DISABLED": "true"}
    for command in ("create-table", "seed", "verify"):
        result = run(command, env=env)
        assert result.returncode == 1, command
        assert "Unable to locate credentials" not in result.stderr, command
        assert "DYNAGATE_DYNAMODB_ENDPOINT is not set" in result.stderr, command
        assert "DYNAGATE_DYNAMODB_ENDPOINT=http://127.0.0.1:8001" in result.stderr
        assert "dynagate dynamodb-local" in result.stderr
        assert "configure credentials" in result.stderr


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize("command", ["create-table", "seed", "verify"])
def test_dynamodb_local_down_fails_fast_naming_the_endpoint(command: str) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    started = time.monotonic()
    result = run(command, env={"DYNAGATE_DYNAMODB_ENDPOINT": endpoint})
    assert time.monotonic() - started < 10
    assert result.returncode == 1
    assert endpoint in result.stderr
    assert "dynagate dynamodb-local" in result.stderr
    assert "try again shortly" not in result.stderr
    assert "Traceback" not in result.stderr
    assert "seeding customers" not in result.stderr  # it stopped before starting


@pytest.mark.parametrize("command", ["seed", "verify"])
def test_a_missing_table_names_create_table(endpoint: str, command: str) -> None:
    table = f"missing-{uuid.uuid4().hex[:8]}"
    result = run(command, env=on_table(endpoint, table))
    assert result.returncode == 1
    assert f"table {table!r} does not exist: run `dynagate create-table`" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_runs_on_uvloop_and_httptools() -> None:
    """`serve` leaves uvicorn's loop and parser on `auto`: the installed uvloop and httptools
    (docs/performance.md), not the pure-Python asyncio loop and h11."""
    import uvicorn
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    config = uvicorn.Config(app=None, loop="auto", http="auto")
    config.load()
    assert config.http_protocol_class is HttpToolsProtocol
    factory = config.get_loop_factory()
    assert factory is not None
    loop = factory()
    try:
        assert type(loop).__module__.startswith("uvloop")
    finally:
        loop.close()


def test_more_than_two_workers_need_redis() -> None:
    result = run(
        "serve", "--workers", "3", env={"DYNAGATE_DYNAMODB_ENDPOINT": "http://127.0.0.1:1"}
    )
    assert result.returncode == 2
    assert "--workers 3 needs DYNAGATE_REDIS_URL" in result.stderr
    assert "two readers per shard" in result.stderr or "allows 2 readers" in result.stderr
    zero = run("serve", "--workers", "0", env={"DYNAGATE_DYNAMODB_ENDPOINT": "http://127.0.0.1:1"})
    assert zero.returncode == 2 and "--workers 0: use 1 to 64" in zero.stderr
    # Two workers' read caches would not hear of each other's writes.
    cached = run(
        "serve",
        "--workers",
        "2",
        env={"DYNAGATE_DYNAMODB_ENDPOINT": "http://127.0.0.1:1", "DYNAGATE_CACHE": "on"},
    )
    assert cached.returncode == 2
    assert "--workers 2 with DYNAGATE_CACHE=on needs DYNAGATE_REDIS_URL" in cached.stderr


def test_workers_share_one_port_cursors_and_metrics(endpoint: str) -> None:
    """Two processes: /metrics of either counts the requests both answered, and a cursor
    one signs the other reads (the secret is shared, not generated per process)."""
    env = {"DYNAGATE_DYNAMODB_ENDPOINT": endpoint}
    with two_workers(env) as url:

        def ask(query: str) -> dict[str, Any]:
            # A connection each: the kernel hands them to either process.
            body: dict[str, Any] = httpx.post(
                f"{url}/graphql", json={"query": query}, timeout=10
            ).json()
            assert "errors" not in body, body
            return body["data"]

        ask('mutation { createCustomer(input: {id: "c", name: "C", email: "c@x.io"}) { id } }')
        for _ in range(2):
            line = '{sku: "A", quantity: 1, unitPriceCents: 5}'
            ask(f'mutation {{ placeOrder(input: {{customerId: "c", items: [{line}]}}) {{ id }} }}')
        first = ask("{ openOrders(first: 1) { pageInfo { endCursor } } }")
        cursor = first["openOrders"]["pageInfo"]["endCursor"]
        after = f'{{ openOrders(first: 1, after: "{cursor}") {{ edges {{ node {{ id }} }} }} }}'
        for _ in range(36):
            assert len(ask(after)["openOrders"]["edges"]) == 1
        sent = 40
        for _ in range(4):  # whichever process answers, it tells the sum
            metrics = httpx.get(f"{url}/metrics", timeout=10).text
            counted = sum(
                float(line.split()[-1])
                for line in metrics.splitlines()
                if line.startswith("dynagate_graphql_requests_total{")
            )
            assert counted == sent, metrics


@contextmanager
def two_workers(env: dict[str, str]) -> Iterator[str]:
    """`dynagate serve --workers 2` on a table of its own (made here), until it answers."""
    env = {**env, "DYNAGATE_TABLE": f"cli-{uuid.uuid4().hex[:8]}"}
    assert run("create-table", env=env).returncode == 0
    port = _closed_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
    server = subprocess.Popen(
        [DYNAGATE, "serve", "--workers", "2", "--port", str(port)],
        env={**clean, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _answers(f"{url}/healthz"):
            assert server.poll() is None, "dynagate serve exited"
            assert time.monotonic() < deadline, "dynagate serve did not answer within 60 s"
            time.sleep(0.2)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def test_workers_share_a_callers_rate_limit_through_redis(
    endpoint: str, redis_server: RedisServer
) -> None:
    """Two processes on one port: a caller over its limit (half a unit a minute, one
    write spends a whole one) is refused by whichever process answers next."""
    env = {
        "DYNAGATE_DYNAMODB_ENDPOINT": endpoint,
        "DYNAGATE_REDIS_URL": redis_server.url,
        "DYNAGATE_RATE_LIMIT": "0.5",
    }
    with two_workers(env) as url:
        create = 'mutation { createCustomer(input: {id: "c", name: "C", email: "c@x.io"}) { id } }'
        assert httpx.post(f"{url}/graphql", json={"query": create}, timeout=10).status_code == 200
        time.sleep(1.5)  # the write's units reach Redis within a second
        read = {"query": '{ customer(id: "c") { id } }'}
        statuses = [
            httpx.post(f"{url}/graphql", json=read, timeout=10).status_code for _ in range(20)
        ]
        assert statuses == [429] * 20, statuses
