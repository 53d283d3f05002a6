"""The DynamoDB calls a GraphQL operation makes, recorded as the gateway sends them, and
the cost the gateway reports for it.

The gateway runs in this process (`bench.harness.in_process`) with `Store._call`, through
which every call of a request goes, wrapped to note the client method and its request.
Both floors (`bench/floor.py`, `bench/floor_lean.py`) replay exactly these calls.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from bench.harness import in_process
from bench.operations import Operation
from gateway.settings import Settings
from store.client import Store

# (client method name, request), in the order the gateway made them.
Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Captured:
    calls: list[Call]
    cost: dict[str, Any]  # the response's `extensions.cost`


@contextmanager
def _recording(calls: list[Call]) -> Iterator[None]:
    original = Store._call

    async def recorded(self: Store, method: Any, request: Any, *, budgeted: bool = True) -> Any:
        calls.append((method.__name__, copy.deepcopy(request)))
        return await original(self, method, request, budgeted=budgeted)

    Store._call = recorded  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        Store._call = original  # type: ignore[method-assign]


async def capture(settings: Settings, operations: Sequence[Operation]) -> dict[str, Captured]:
    """Each operation's calls and cost; RuntimeError when it answers with errors or reads
    fewer items than a full page (`Operation.items`)."""
    captured: dict[str, Captured] = {}
    async with in_process(settings) as http:
        for operation in operations:
            calls: list[Call] = []
            with _recording(calls):
                response = await http.post(
                    "/graphql", content=operation.body, headers={"content-type": "application/json"}
                )
            body = response.json()
            if response.status_code != 200 or body.get("errors"):
                raise RuntimeError(f"{operation.name} answered {response.status_code}: {body}")
            cost = body["extensions"]["cost"]
            if cost["itemsReturned"] < operation.items:
                raise RuntimeError(
                    f"{operation.name} read {cost['itemsReturned']} items, fewer than"
                    f" {operation.items}: the seeded data does not fill its page"
                )
            captured[operation.name] = Captured(calls, cost)
    return captured
