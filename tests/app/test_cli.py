"""The `dynagate` console script, run as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import jwt

from gateway.schema import schema_sdl

DYNAGATE = str(Path(sys.executable).with_name("dynagate"))


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
    return subprocess.run(
        [DYNAGATE, *args], env={**clean, **env}, capture_output=True, text=True, timeout=120
    )


def test_create_table_twice_then_seed_twice(endpoint: str) -> None:
    env = {"DYNAGATE_DYNAMODB_ENDPOINT": endpoint, "DYNAGATE_TABLE": f"cli-{uuid.uuid4().hex[:8]}"}
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
    assert (
        "0 customers and 0 orders, 0 products and 0 comments, 0 markers, 0 repositories,"
        " 0 organizations and 0 queues" in again.stdout
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


def test_serve_refuses_open_mode_against_aws_unless_switched_off() -> None:
    result = run("serve", env={"DYNAGATE_CURSOR_SECRET": "s"})
    assert result.returncode == 2
    assert "DYNAGATE_AUTH=off" in result.stderr


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
