"""`dynagate model infer` on tables other code wrote: plain boto3 (the adopted table of
`tests/model/test_adopted_table.py`), ElectroDB and OneTable (run with Node, as their users
run them), and one of awkward attribute names. Each draft is a new file, clean to ruff,
that `model check` builds as `serve` does and that `model inspect` finds the same table
clean by: every sampled item claimed, read, and its keys rendered back. And the worst
inputs: an empty table, a missing one, a sample out of bounds, a file already there."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from gateway.cli.main import main
from tests.model.declaring import assert_drafted
from tests.model.test_adopted_table import (
    app_client,
    app_table,
    made_by_the_app,
    table_made_by_the_app,
)
from tests.other_tools import NEEDS_NODE, tool_table

RUFF = [sys.executable, "-m", "ruff"]
STYLE = ["--isolated", "--line-length", "100"]
# The `draft` fixture: a table and a file name, and the draft written there.
Draft = Callable[[str, str], str]


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, endpoint: str) -> Iterator[None]:
    monkeypatch.setenv("DYNAGATE_DYNAMODB_ENDPOINT", endpoint)
    monkeypatch.setenv("DYNAGATE_ENV", "development")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "local")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "local")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    # `--model` sets it for the process: the test's setting is restored after it.
    monkeypatch.setenv("DYNAGATE_MODEL", "demo.model")
    yield


adopted = table_made_by_the_app("infer", made_by_the_app)


@pytest.fixture
async def electrodb(endpoint: str) -> AsyncIterator[str]:
    async with tool_table("electrodb.mjs", endpoint) as name:
        yield name


@pytest.fixture
async def onetable(endpoint: str) -> AsyncIterator[str]:
    async with tool_table("onetable.mjs", endpoint) as name:
        yield name


@pytest.fixture
async def empty(endpoint: str) -> AsyncIterator[str]:
    """A table keyed as the adopted one, holding nothing."""
    name = f"empty-{uuid.uuid4().hex[:12]}"
    client = app_client(endpoint)
    await asyncio.to_thread(
        client.create_table,
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk")],
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
    )
    yield name
    await asyncio.to_thread(client.delete_table, TableName=name)


def drafted_and_held(
    table: str, path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """The draft of `table` written to `path`, after `model check` built it and `model
    inspect` found the table clean by it."""
    assert main(["model", "infer", "--table", table, "--output", str(path)]) == 0
    said = capsys.readouterr().out
    assert f"of table {table!r} from a sample of" in said and str(path) in said, said
    for check in (["check", *STYLE, "--select", "E,F,W,I,B,UP,SIM,RUF"], ["format", *STYLE]):
        linted = subprocess.run(
            [*RUFF, *check, *(["--diff"] if check[0] == "format" else []), str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert linted.returncode == 0, linted.stdout + linted.stderr
    monkeypatch.setenv("DYNAGATE_TABLE", table)
    assert main(["model", "check", "--model", str(path)]) == 0, capsys.readouterr()
    assert capsys.readouterr().out.endswith(", ok\n")
    assert main(["model", "inspect", "--model", str(path)]) == 0, capsys.readouterr().out
    found = capsys.readouterr().out.splitlines()
    assert found[-1] == "ok: the table is the model's", found
    return path.read_text()


@pytest.fixture
def draft(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Draft:
    """`drafted_and_held` of a table, its draft written as `file` in the test's own folder."""
    return lambda table, file: drafted_and_held(table, tmp_path / file, monkeypatch, capsys)


@pytest.mark.usefixtures("cli_env")
def test_a_table_an_app_wrote_with_boto3(adopted: str, draft: Draft) -> None:
    text = draft(adopted, "adopted.py")
    assert text.startswith(f"# A first model of the table {adopted!r}, drafted by")
    assert_drafted(
        text,
        "sample of 4 items",
        'TABLE = m.Index(None, "pk", "sk")',
        'GSI1 = m.Index("gsi1", "gsi1pk", "gsi1sk")',
        'key=m.same(m.template("ORG#${id}")),',
        'key=m.Keys(m.template("ORG#${orgId}"), m.template("EVENT#${day}#${id}")),',
        'GSI1: m.Keys(m.template("DAY#${day}"), m.template("EVENT#${orgId}#${id}")),',
        'parent=m.Parent("Org", {"orgId": "id"}),',
        'm.ListOf(EVENT, TABLE, "events"),',
        '"title": m.Text(max_length=10),',
        '"flags": m.Json(),',  # {"beta": True}
    )
    assert "discriminator=" not in text  # told apart by the shapes of their keys


@NEEDS_NODE
@pytest.mark.usefixtures("cli_env")
def test_a_table_electrodb_wrote(electrodb: str, draft: Draft) -> None:
    text = draft(electrodb, "electrodb.py")
    event = 'm.template("$ticketing#eventid_${eventId}", casing="lower")'
    assert_drafted(
        text,
        'm.Discriminator("__edb_e__", "event", {"__edb_v__": "1"})',
        'm.Discriminator("__edb_e__", "venue", {"__edb_v__": "1"})',
        f'key=m.Keys({event}, m.template("$event_1")),',
        'm.template("$event_1#day_${day}#eventid_${eventId}", casing="lower"),',
        '"eventTitle": m.Text(max_length=10),',
        '"seats": m.Number(low=0, high=200),',
        'parent=m.Parent("Venue", {"venueId": "venueId"}),',
        'm.ListOf(EVENT, GSI1, "events"),',
    )


@NEEDS_NODE
@pytest.mark.usefixtures("cli_env")
def test_a_table_onetable_wrote(onetable: str, draft: Draft) -> None:
    text = draft(onetable, "onetable.py")
    assert_drafted(
        text,
        'discriminator=m.Discriminator("_type", "Account"),',
        'key=m.Keys(m.template("account#${id}"), m.template("account#")),',
        'key=m.Keys(m.template("account#${accountId}"), m.template("user#${email}")),',
        'GS1: m.Keys(m.template("user#${email}"), m.template("user#")),',
        '"created": m.Timestamp(stamped="create"),',
        '"updated": m.Timestamp(stamped="write"),',
        'pattern="[a-z0-9._%+-]+@[a-z0-9.-]+", described="an e-mail address"',
        'm.ListOf(USER, TABLE, "users"),',
    )


@pytest.mark.usefixtures("cli_env")
def test_awkward_attribute_names(empty: str, endpoint: str, draft: Draft) -> None:
    things = app_table(endpoint, empty)
    for n in range(3):
        things.put_item(
            Item={
                "pk": f"THING#t{n}",
                "sk": "THING",
                "__tool__": f"v{n}",
                "_hidden": "kept",
                "first-name": "Ada",
                "version": n,
                "ünïcode": "ü",
            }
        )
    text = draft(empty, "things.py")
    assert_drafted(
        text,
        '"tool": m.Text(max_length=10, stored="__tool__"),',
        '"hidden": m.Text(max_length=10, stored="_hidden"),',
        "# 'first-name' is a name no attribute takes: not declared",
        "# 'version' is the engine's own name: not declared",
        'key=m.Keys(m.template("THING#${thingId}"), m.template("THING")),',
        "# made up, held by no item attribute: thingId",
    )


@pytest.mark.usefixtures("cli_env")
def test_what_infer_refuses(
    empty: str, adopted: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["model", "infer", "--table", empty]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert f"table {empty!r} holds no items to draft entities from (a sample of 0)" in said.err
    assert main(["model", "infer", "--table", "no-such-table"]) == 1
    assert "table 'no-such-table' does not exist" in capsys.readouterr().err
    for sample in ("0", "10001"):
        assert main(["model", "infer", "--table", adopted, "--sample", sample]) == 1
        assert f"--sample {sample}: read 1 to 10,000 items" in capsys.readouterr().err
    there = tmp_path / "model.py"
    there.write_text("# mine\n")
    assert main(["model", "infer", "--table", adopted, "--output", str(there)]) == 1
    assert "model.py exists" in capsys.readouterr().err
    assert there.read_text() == "# mine\n"
    # Printed without --output; the budget holds: a sample of 2 of its 4 items.
    assert main(["model", "infer", "--table", adopted, "--sample", "2"]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("# A first model of the table") and "sample of 2 items" in said.out
    assert f"of table {adopted!r} from a sample of 2 items" in said.err
