"""The store owns every object of the AWS SDK: above it, no module reaches into a client.

import-linter keeps botocore's modules out of the other floors, but a client passed up
as a value needs no import to be misused: `client.meta.events`, `client.exceptions.…`,
`client.describe_table(…)`. This reads every module of those floors and refuses any such
use: the attributes `meta` and `exceptions`, and the name of any DynamoDB client method,
taken from botocore's own model of the service.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from pathlib import Path

import botocore.session
import pytest
from botocore import xform_name

from store.client import Store

ROOT = Path(__file__).resolve().parents[1]
ABOVE_THE_STORE = ("gateway", "resolvers", "data", "keys", "errors")
# What only a client has: its event system and its error classes.
CLIENT_ATTRIBUTES = {"meta", "exceptions"}
# A client's methods that are not operations of the service.
CLIENT_METHODS = {"get_paginator", "get_waiter", "can_paginate"}
# Not the SDK, though named like it: the store's own methods (`Store.query`, `Store.scan`),
# which make the operation they are named after for the floors above. They are told apart
# from a client's by the call: a client method takes keyword arguments only, spelled in
# DynamoDB's PascalCase (`TableName=…`) or passed as `**request`.
STORE_METHODS = {name for name, _ in inspect.getmembers(Store, inspect.isfunction)}


def client_methods() -> set[str]:
    model = botocore.session.get_session().get_service_model("dynamodb")
    return {xform_name(name) for name in model.operation_names} | CLIENT_METHODS


def sdk_style(call: ast.Call) -> bool:
    """A call made as a client method is: no positional argument, and `**request` or a
    keyword in PascalCase."""
    return not call.args and any(k.arg is None or k.arg[:1].isupper() for k in call.keywords)


def sdk_uses(tree: ast.AST, methods: set[str]) -> Iterator[tuple[int, str]]:
    calls = {id(n.func): n for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if name in CLIENT_ATTRIBUTES:
            yield node.lineno, ast.unparse(node)
        elif name in methods:
            call = calls.get(id(node))
            if name not in STORE_METHODS or (call is not None and sdk_style(call)):
                yield node.lineno, ast.unparse(call if call is not None else node)


def modules(root: Path) -> Iterator[Path]:
    for package in ABOVE_THE_STORE:
        yield from sorted((root / package).rglob("*.py"))


def found_in(root: Path) -> list[str]:
    methods = client_methods()
    return [
        f"{path.relative_to(root)}:{line}: {text}"
        for path in modules(root)
        for line, text in sdk_uses(ast.parse(path.read_text(), str(path)), methods)
    ]


def test_no_module_above_the_store_uses_an_sdk_client() -> None:
    found = found_in(ROOT)
    assert not found, "SDK objects used above the store:\n" + "\n".join(found)


def test_the_methods_come_from_botocores_model() -> None:
    methods = client_methods()
    assert {"describe_table", "transact_write_items", "query", "scan"} <= methods
    assert STORE_METHODS & methods == {"query", "scan"}


@pytest.mark.parametrize(
    "source",
    [
        "client.meta.events.register('after-call.dynamodb', hook)",
        "except client.exceptions.ResourceNotFoundException: pass",
        "await client.describe_table(TableName=table)",
        "await store.write(store.client.put_item, request)",
        "await client.query(**request)",
        "await self.client.scan(TableName=table, Segment=0)",
        "paginator = client.get_paginator('scan')",
    ],
)
def test_a_client_used_any_way_is_found(source: str) -> None:
    tree = ast.parse(source if "except" not in source else f"try:\n  pass\n{source}")
    assert list(sdk_uses(tree, client_methods()))


@pytest.mark.parametrize(
    "source",
    [
        "await store.query(condition, forward=True, limit=limit + 1)",
        "await store.scan(scan_request(store.table, segment, segments, start))",
        "await describe(client, table)",
        "request.client.host",
        "metadata.get(COST)",
    ],
)
def test_the_stores_own_methods_and_other_names_pass(source: str) -> None:
    assert not list(sdk_uses(ast.parse(source), client_methods()))
