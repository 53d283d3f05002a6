"""`schema.graphql` is the exported schema, byte for byte."""

from __future__ import annotations

import difflib
from pathlib import Path

from graphql import build_schema, print_schema

from gateway.cli import schema_diff as diffs
from gateway.schema.build import schema_sdl

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "schema.graphql"
# The documents a client ships (the README's trusted documents workflow).
MANIFEST = ROOT / "examples" / "trusted-documents.json"
DIFF_LINES = 60


def test_schema_file_matches_the_code() -> None:
    written, exported = SCHEMA_FILE.read_text(), schema_sdl()
    assert written == exported, mismatch(written, exported)


def mismatch(written: str, exported: str) -> str:
    """What the code's schema changes for clients of `schema.graphql`, breaking first; the
    text diff when no change is named (order, layout) or the file does not parse."""
    try:
        changes = diffs.schema_changes(diffs.parse_schema(written, "schema.graphql"), exported)
    except diffs.Unreadable as exc:
        lines = [f"it does not parse ({exc}):", *_diff(written, exported)]
    else:
        if changes:
            rejected = diffs.rejected_documents(exported, diffs.load_manifest(MANIFEST.read_text()))
            lines = ["to its clients the code's schema has:", *diffs.render(changes, rejected)]
        else:
            lines = ["no change a client sees, but the text differs:", *_diff(written, exported)]
    return "\n".join(
        [
            f"schema.graphql differs from the code; {lines[0]}",
            *lines[1:],
            "regenerate it with `make schema` (`dynagate export-schema --output "
            "schema.graphql`) and review the diff",
        ]
    )


def _diff(written: str, exported: str) -> list[str]:
    lines = difflib.unified_diff(
        written.splitlines(), exported.splitlines(), "schema.graphql", "code", lineterm=""
    )
    return list(lines)[:DIFF_LINES]


def bare(sdl: str) -> str:
    """`sdl` without its descriptions: the names and types a client writes documents with."""
    schema = build_schema(sdl)
    for kind in schema.type_map.values():
        kind.description = None
        for field in getattr(kind, "fields", {}).values():
            field.description = None
            for argument in getattr(field, "args", {}).values():
                argument.description = None
    return print_schema(schema)


def test_contract_names_are_exported() -> None:
    sdl = bare(schema_sdl())
    for fragment in [
        "scalar DateTime",
        "enum SortDirection",
        "type PageInfo",
        "input DateTimeRange",
        "enum OrderStatus",
        "type OrderConnection",
        "type OrderEdge",
        "createCustomer(input: CreateCustomerInput!): Customer!",
        "placeOrder(input: PlaceOrderInput!): Order!",
        "setOrderStatus(id: ID!, status: OrderStatus!): Order!",
        "openOrders(",
    ]:
        assert fragment in sdl, fragment


def test_a_differing_file_names_its_changes_breaking_first() -> None:
    exported = schema_sdl()
    written = exported.replace("type Query {\n", "type Query {\n  legacy: Int\n", 1)
    written = written.replace("enum ChangeKind {\n  ADDED\n", "enum ChangeKind {\n", 1)
    lines = mismatch(written, exported).splitlines()
    assert lines[:5] == [
        "schema.graphql differs from the code; to its clients the code's schema has:",
        "breaking:",
        "  FIELD_REMOVED: Field Query.legacy was removed.",
        "dangerous:",
        "  VALUE_ADDED_TO_ENUM: Enum value ChangeKind.ADDED was added.",
    ]
    assert "make schema" in lines[-1]
    assert "dynagate export-schema --output schema.graphql" in lines[-1]


def test_the_documents_clients_ship_validate() -> None:
    documents = diffs.load_manifest(MANIFEST.read_text(), str(MANIFEST))
    assert documents
    rejected = diffs.rejected_documents(schema_sdl(), documents)
    assert not rejected, "\n".join(diffs.render([], rejected))


def test_a_change_that_rejects_a_shipped_document_names_it() -> None:
    written = bare(schema_sdl())
    exported = written.replace("  name: String!\n  comments(", "  comments(", 1)
    lines = mismatch(written, exported).splitlines()
    assert "  FIELD_REMOVED: Field Product.name was removed." in lines
    assert "rejected documents:" in lines
    assert any(
        line.startswith("  8a500f15") and "Cannot query field 'name' on type 'Product'" in line
        for line in lines
    ), lines
    assert "1 breaking, 0 dangerous, 0 safe changes; 1 rejected documents" in lines


def test_a_difference_no_client_sees_shows_the_diff() -> None:
    exported = schema_sdl()
    written = exported.replace("  ADDED\n  CHANGED\n", "  CHANGED\n  ADDED\n", 1)
    message = mismatch(written, exported)
    assert "no change a client sees, but the text differs:" in message
    assert "\n+  ADDED\n" in message
