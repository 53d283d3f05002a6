"""The DynamoDB Local version the set-up names: AWS's own, beside the npm package's."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from gateway.cli.dynamodb_local import describe, ensure_installed

BUNDLED = "DynamoDB Local 1.25.1 (npm amplify-dynamodb-simulator 2.9.30)"
PACKAGE_ONLY = "DynamoDB Local (npm amplify-dynamodb-simulator 2.9.30)"


def test_the_version_is_read_from_the_jar() -> None:
    assert describe(ensure_installed()) == BUNDLED


def test_a_jar_without_its_version_names_the_package_only(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "DynamoDBLocal.jar", "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    assert describe(tmp_path) == PACKAGE_ONLY
    assert describe(tmp_path / "nowhere") == PACKAGE_ONLY


def test_a_fresh_install_names_both_versions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ensure_installed(tmp_path)
    printed = capsys.readouterr().err
    assert "DynamoDB Local 2.9.30" not in printed
    assert BUNDLED in printed


def test_make_dynamodb_local_prints_the_version_line() -> None:
    root = Path(__file__).resolve().parents[2]
    if not (root / ".venv" / ".installed").exists():
        pytest.skip("the set-up of `make install` is not in this checkout")
    result = subprocess.run(
        ["make", "--no-print-directory", "-s", "dynamodb-local"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == BUNDLED
