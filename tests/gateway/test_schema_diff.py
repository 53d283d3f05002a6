"""Schema changes classed as clients feel them, and the documents a schema rejects."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.cli import schema_diff as diffs
from gateway.schema.build import schema_sdl

DYNAGATE = str(Path(sys.executable).with_name("dynagate"))

OLD = """\
enum Status {
  OPEN
  CLOSED
}

type Order {
  id: ID!
  status: Status!
  note: String
}

type Query {
  order(id: ID!): Order
  orders(first: Int = 10): [Order!]!
}
"""


def _changes(old: str, new: str) -> list[tuple[str, str | None]]:
    return [
        (change.kind, change.type) for change in diffs.schema_changes(old, diffs.parse_schema(new))
    ]


def test_identical_schemas_have_no_changes() -> None:
    assert diffs.schema_changes(OLD, diffs.parse_schema(OLD)) == []
    assert diffs.schema_changes(schema_sdl(), diffs.parse_schema(schema_sdl())) == []


def test_a_removed_field_is_breaking() -> None:
    changes = diffs.schema_changes(OLD, OLD.replace("  note: String\n", ""))
    assert changes == [diffs.Change("breaking", "FIELD_REMOVED", "Field Order.note was removed.")]


def test_a_changed_argument_default_is_dangerous() -> None:
    assert _changes(OLD, OLD.replace("first: Int = 10", "first: Int = 20")) == [
        ("dangerous", "ARG_DEFAULT_VALUE_CHANGE")
    ]


def test_an_added_enum_value_is_dangerous() -> None:
    assert _changes(OLD, OLD.replace("  CLOSED\n", "  CLOSED\n  CANCELLED\n")) == [
        ("dangerous", "VALUE_ADDED_TO_ENUM")
    ]


def test_an_added_optional_argument_is_dangerous_for_graphql_core() -> None:
    new = OLD.replace("orders(first: Int = 10)", "orders(first: Int = 10, status: Status)")
    assert _changes(OLD, new) == [("dangerous", "OPTIONAL_ARG_ADDED")]


def test_an_added_field_or_type_is_safe() -> None:
    new = OLD.replace("  note: String\n", '  note: String\n  "When."\n  placedAt: String\n')
    new += "\ntype Customer {\n  id: ID!\n}\n"
    assert {change.description for change in diffs.schema_changes(OLD, new)} == {
        "Field Order.placedAt was added.",
        "Customer was added.",
    }
    assert {change.kind for change in diffs.schema_changes(OLD, new)} == {"safe"}


def test_descriptions_and_deprecations_are_safe() -> None:
    new = OLD.replace("type Order {", '"An order."\ntype Order {').replace(
        "  note: String\n", '  note: String @deprecated(reason: "Use notes.")\n'
    )
    assert [(c.kind, c.type, c.description) for c in diffs.schema_changes(OLD, new)] == [
        ("safe", "DESCRIPTION_CHANGED", 'Description of Order has changed to "An order.".'),
        ("safe", None, 'Order.note was deprecated: "Use notes.".'),
    ]
    assert diffs.schema_changes(new, OLD)[-1].description == "Order.note is no longer deprecated."


def test_breaking_changes_come_first_and_render_grouped() -> None:
    new = OLD.replace("  CLOSED\n", "  CLOSED\n  CANCELLED\n").replace("  note: String\n", "")
    new += "\ntype Customer {\n  id: ID!\n}\n"
    changes = diffs.schema_changes(OLD, new)
    assert [change.kind for change in changes] == ["breaking", "dangerous", "safe"]
    assert diffs.render(changes) == [
        "breaking:",
        "  FIELD_REMOVED: Field Order.note was removed.",
        "dangerous:",
        "  VALUE_ADDED_TO_ENUM: Enum value Status.CANCELLED was added.",
        "safe:",
        "  TYPE_ADDED: Customer was added.",
        "1 breaking, 1 dangerous, 1 safe changes",
    ]


def test_a_document_using_a_removed_field_is_rejected() -> None:
    documents = {
        "keeps": "query { order(id: 1) { id status } }",
        "uses-note": "query Notes { orders { id note } }",
        "broken": "query { orders {",
    }
    rejected = diffs.rejected_documents(OLD.replace("  note: String\n", ""), documents)
    assert rejected == {
        "uses-note": ["Cannot query field 'note' on type 'Order'."],
        "broken": ["Syntax Error: Expected Name, found <EOF>."],
    }
    assert diffs.rejected_documents(OLD, documents) == {"broken": rejected["broken"]}


def test_unparseable_schemas_and_manifests_say_where_in_one_line() -> None:
    with pytest.raises(diffs.Unreadable, match=r"^old.graphql:2:1: Syntax Error: Expected Name"):
        diffs.parse_schema("type Query {\n", "old.graphql")
    with pytest.raises(diffs.Unreadable, match=r"^old.graphql: Unknown type 'Nope'\.$"):
        diffs.parse_schema("type Query { a: Nope }", "old.graphql")
    with pytest.raises(diffs.Unreadable, match=r"^m.json: not JSON"):
        diffs.load_manifest("{", "m.json")
    with pytest.raises(diffs.Unreadable, match=r"^m.json: not a JSON object of id → document$"):
        diffs.load_manifest('["query { a }"]', "m.json")


def test_manifests_of_relay_codegen_and_apollo() -> None:
    assert diffs.load_manifest('{"a1": "query { a }"}') == {"a1": "query { a }"}
    apollo = {
        "format": "apollo-persisted-query-manifest",
        "version": 1,
        "operations": [{"id": "h1", "name": "A", "type": "query", "body": "query A { a }"}],
    }
    assert diffs.load_manifest(json.dumps(apollo)) == {"h1": "query A { a }"}


# ---- the command, run as a user would


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [DYNAGATE, "schema-diff", *args], capture_output=True, text=True, timeout=120
    )


def test_command_exits_0_when_nothing_breaks(tmp_path: Path) -> None:
    old = tmp_path / "old.graphql"
    old.write_text(schema_sdl())
    result = run(str(old))
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "0 breaking, 0 dangerous, 0 safe changes\n"


def test_command_exits_1_on_a_breaking_change_or_a_rejected_document(tmp_path: Path) -> None:
    # The old schema had a field the current one lacks: to a client of the old, removed.
    old = tmp_path / "old.graphql"
    old.write_text(schema_sdl().replace("type Query {\n", "type Query {\n  legacy: Int\n", 1))
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"ok": "{ __typename }", "old": "{ legacy }"}))
    result = run(str(old), "--documents", str(manifest))
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        "breaking:",
        "  FIELD_REMOVED: Field Query.legacy was removed.",
        "rejected documents:",
        "  old: Cannot query field 'legacy' on type 'Query'.",
        "1 breaking, 0 dangerous, 0 safe changes; 1 rejected documents",
    ]
    # Nothing breaks, but a document the schema never knew is rejected.
    old.write_text(schema_sdl())
    assert run(str(old), "--documents", str(manifest)).returncode == 1


def test_command_exits_2_with_one_line_on_a_missing_or_unparseable_file(tmp_path: Path) -> None:
    missing = run(str(tmp_path / "nope.graphql"))
    assert missing.returncode == 2
    assert missing.stderr == f"dynagate: {tmp_path / 'nope.graphql'}: No such file or directory\n"
    bad = tmp_path / "bad.graphql"
    bad.write_text("type Query {")
    result = run(str(bad))
    assert result.returncode == 2
    assert result.stderr == f"dynagate: {bad}:1:13: Syntax Error: Expected Name, found <EOF>.\n"
    manifest = tmp_path / "manifest.json"
    manifest.write_text("{not json")
    bad.write_text(schema_sdl())
    result = run(str(bad), "--documents", str(manifest))
    assert result.returncode == 2
    assert result.stderr.startswith(f"dynagate: {manifest}: not JSON (")
    assert result.stderr.count("\n") == 1
