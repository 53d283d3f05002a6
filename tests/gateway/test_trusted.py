"""The checks a document passes before it is trusted (`gateway/cli/trusted.py`): pure."""

from __future__ import annotations

import hashlib

from graphql import parse, specified_rules

from gateway.cli.documents import refusals
from gateway.cli.trusted import OVER, Checked, check_document, describe
from gateway.demand.bound import bound_operation
from gateway.demand.control import Limits
from gateway.documents.parsing import coded
from gateway.schema.build import build_schema, validation_rules

SCHEMA = build_schema()._schema
RULES = coded(specified_rules) + tuple(validation_rules(introspection=False))
TWO = """query A { order(id: "o") { id } }
query B($first: Int!) { openOrders(first: $first) { edges { node { id } } } }"""


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def check(text: str, id_: str | None = None, limits: Limits | None = None) -> Checked:
    return check_document(SCHEMA, id_ or sha(text), text, limits or Limits(), RULES)


def test_each_operation_is_bounded_at_its_worst() -> None:
    checked = check(TWO, f"SHA256:{sha(TWO).upper()}")
    assert checked.problems == []
    largest = bound_operation(SCHEMA, parse(TWO), "B", {"first": 100}).as_dict()
    assert checked.bounds == {"A": {"requests": 1, "itemsScanned": 1, "fields": 2}, "B": largest}
    assert checked.bound is None  # two operations: the bound is each request's
    assert checked.described["A"] == describe({"requests": 1, "itemsScanned": 1, "fields": 2})
    assert checked.described["A"] == "requests=1 itemsScanned=1 fields=2"
    # Over the limits for its largest page: said, not refused (such requests are).
    tight = check(TWO, limits=Limits(requests=50, items=50, fields=20_000))
    assert tight.problems == [] and tight.described["B"] == describe(largest) + OVER


def test_what_the_gateway_would_refuse_is_refused() -> None:
    deep = "{ " + "order(id: 1) { " * 3 + "}" * 4
    assert check(deep).problems  # does not parse
    introspecting = check("{ __schema { queryType { name } } }").problems
    assert introspecting[0].startswith("GraphQL introspection has been disabled")
    many = "{ " + " ".join(f'a{i}: order(id: "{i}") {{ id }}' for i in range(31)) + " }"
    assert any("aliases" in problem for problem in check(many).problems)
    tokens = "{ " + "__typename " * 5_001 + "}"
    assert "more than 5000 tokens" in check(tokens).problems[0]
    over = check(TWO, limits=Limits(requests=50, items=150_000, fields=1))
    assert over.problems == ["A could need 2 fields (limit 1)"]


def test_refusals_name_each_document_and_the_total() -> None:
    good, bad = check(TWO), check("{ nope }", "mine")
    assert refusals([good]) == []
    lines = refusals([good, bad])
    assert lines[0].startswith("refused mine: its id is not the SHA-256 of its text (sha256:")
    assert lines[1] == "refused mine: Cannot query field 'nope' on type 'Query'."
    assert lines[-1] == "1 of 2 documents refused; none registered"
