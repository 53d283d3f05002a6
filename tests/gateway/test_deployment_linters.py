"""What `iam-policy` and `table-template` print, through AWS's own linters: `parliament`
(IAM: every action real, every resource of the action's kind) and `cfn-lint`
(CloudFormation's resource specification), for every model the project ships."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from gateway.cli.parser import command_parser

with warnings.catch_warnings():
    # parliament finds its data files through setuptools' deprecated pkg_resources.
    warnings.simplefilter("ignore")
    from parliament import analyze_policy_string

ROOT = Path(__file__).parents[2]
SHIPPED_MODELS = ("demo.model", "examples/booking/model.py", "tests.model.library")


def printed(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    args = command_parser().parse_args(list(argv))
    assert args.run(args) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("model", SHIPPED_MODELS)
@pytest.mark.parametrize("purpose", ["serve", "migrate"])
@pytest.mark.parametrize("account", ["*", "123456789012"])
def test_parliament_finds_nothing_in_the_policies(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    model: str,
    purpose: str,
    account: str,
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("DYNAGATE_MODEL", model)
    monkeypatch.setenv("DYNAGATE_TABLE", "shop")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    policy = printed(capsys, "iam-policy", "--for", purpose, "--account", account)
    findings = analyze_policy_string(json.dumps(policy)).findings
    assert [(f.issue, f.detail) for f in findings] == []


def test_cfn_lint_finds_nothing_in_the_templates(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("DYNAGATE_TABLE", "shop")
    files = []
    for number, model in enumerate(SHIPPED_MODELS):
        monkeypatch.setenv("DYNAGATE_MODEL", model)
        template = printed(capsys, "table-template", "--format", "cloudformation")
        files.append(tmp_path / f"table-{number}.json")
        files[-1].write_text(json.dumps(template, indent=2))
    linted = subprocess.run(
        [Path(sys.executable).parent / "cfn-lint", *map(str, files), "--regions", "eu-west-1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (linted.returncode, linted.stdout, linted.stderr) == (0, "", "")
