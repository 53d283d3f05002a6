"""What the speed benchmark asks: the map operations leave their tuning to the gateway's
defaults, and the gateways it runs use the default limits."""

from __future__ import annotations

from graphql import FieldNode, OperationDefinitionNode, parse

from bench.harness import Table
from bench.operations import OPERATIONS
from gateway.settings import Settings


def _arguments(query: str, field: str) -> set[str]:
    [operation] = parse(query).definitions
    assert isinstance(operation, OperationDefinitionNode)
    [node] = operation.selection_set.selections
    assert isinstance(node, FieldNode) and node.name.value == field
    return {a.name.value for a in node.arguments or ()}


def test_the_map_operations_take_the_default_precision_and_limit() -> None:
    by_name = {o.name: o for o in OPERATIONS}
    assert _arguments(by_name["heatmap"].query, "heatmap") == {"viewport"}
    assert _arguments(by_name["markers"].query, "markers") == {"viewport"}


def test_the_benchmark_gateways_run_under_the_default_limits() -> None:
    table = Table("http://127.0.0.1:8001", "bench")
    assert not any(name.startswith("DYNAGATE_MAX_") for name in table.env)
    assert Settings.from_env(table.env).limits == Settings().limits
    assert table.settings.limits == Settings().limits
