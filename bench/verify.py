"""Both servers must answer the page with the same `data` before any timing counts."""

from __future__ import annotations

from typing import Any

from bench import load
from bench.workload import PAGE_QUERY, graphql


class Mismatch(RuntimeError):
    """The two servers do not answer the page alike."""


def first_difference(a: Any, b: Any, path: str = "data") -> str | None:
    """Where `a` and `b` first differ, or None when they are equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return f"{path}: keys {sorted(a)} != {sorted(b)}"
        found = (first_difference(a[k], b[k], f"{path}.{k}") for k in a)
        return next((d for d in found if d is not None), None)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} entries != {len(b)}"
        pairs = enumerate(zip(a, b, strict=True))
        found = (first_difference(x, y, f"{path}[{i}]") for i, (x, y) in pairs)
        return next((d for d in found if d is not None), None)
    return None if a == b and type(a) is type(b) else f"{path}: {a!r} != {b!r}"


async def verify(gateway: str, baseline: str, orders: int) -> dict[str, Any]:
    """Check both answer the page alike; return the gateway's `extensions.cost`."""
    async with load.client(1) as http:
        ours = await graphql(http, f"{gateway}/graphql", PAGE_QUERY)
        theirs = await graphql(http, f"{baseline}/graphql", PAGE_QUERY)
    difference = first_difference(ours.get("data"), theirs.get("data"))
    if difference is not None:
        raise Mismatch(f"gateway and baseline differ at {difference}")
    customer = ours["data"]["customer"]
    connection = customer and customer["orders"]
    expected = (min(orders, 20), orders > 20)
    if not connection or (len(connection["edges"]), connection["pageInfo"]["hasNextPage"]) != (
        expected
    ):
        raise Mismatch(f"the page does not show the {orders} seeded orders: {customer}")
    cost: dict[str, Any] = ours["extensions"]["cost"]
    return cost
