"""A GraphQL client for tests: the real ASGI app, in process, over httpx."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

from gateway.http.app import create_app
from gateway.settings import Settings
from store.cache.reads import CachedReads


@dataclass
class Result:
    status: int
    body: dict[str, Any]

    @property
    def data(self) -> Any:
        return self.body.get("data")

    @property
    def errors(self) -> list[dict[str, Any]]:
        errors: list[dict[str, Any]] = self.body.get("errors") or []
        return errors

    @property
    def codes(self) -> list[str]:
        return [e.get("extensions", {}).get("code") for e in self.errors]

    @property
    def cost(self) -> dict[str, Any]:
        cost: dict[str, Any] = self.body["extensions"]["cost"]
        return cost

    @property
    def calls(self) -> int:
        """The reads and writes it took: DynamoDB's calls, and those the read cache
        answered (when it is on)."""
        return int(self.cost["requests"]) + int(self.cost.get("cachedRequests", 0))

    def ok(self) -> Any:
        assert not self.errors, self.errors
        return self.data


# docs/http.md#errors, as clients read it (spelled here apart from the product's own list).
CONTRACT_CODES = frozenset(
    {
        "BAD_USER_INPUT",
        "BAD_CURSOR",
        "NOT_FOUND",
        "CONFLICT",
        "QUERY_TOO_COMPLEX",
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "RATE_LIMITED",
        "PERSISTED_QUERY_NOT_FOUND",
        "UNAVAILABLE",
        "INTERNAL_SERVER_ERROR",
    }
)
# What the answers checked by `assert_well_formed` carry (no rate limit, no documents).
CODES = CONTRACT_CODES - {"RATE_LIMITED", "PERSISTED_QUERY_NOT_FOUND"}
# With the read cache on (docs/cache.md).
CACHE_KEYS = {"cachedRequests", "savedReadCapacityUnits"}
COST_KEYS = {
    "requests",
    "readCapacityUnits",
    "writeCapacityUnits",
    "itemsScanned",
    "itemsReturned",
    "operations",
}
ESTIMATE_KEYS = {"requests", "itemsScanned", "fields"}


def assert_well_formed(result: Result) -> None:
    """What every GraphQL response owes its client: a code on each error and the cost."""
    assert result.status == 200, result.body
    for error in result.errors:
        assert error["extensions"]["code"] in CODES, error
    assert set(result.cost) - {"estimated", "budget", *CACHE_KEYS} == COST_KEYS
    assert set(result.cost.get("estimated", ESTIMATE_KEYS)) == ESTIMATE_KEYS


def assert_operations_add_up(result: Result) -> None:
    """The operations a response names count its calls: together, its `requests`."""
    cost = (result.body.get("extensions") or {}).get("cost") or {}
    if "requests" in cost:
        assert sum(cost["operations"].values()) == cost["requests"], cost


def assert_within_bound(result: Result) -> None:
    """What a response cost never exceeds the bound computed before it ran."""
    cost = (result.body.get("extensions") or {}).get("cost") or {}
    estimated = cost.get("estimated")
    if estimated is not None:
        assert cost["requests"] <= estimated["requests"], cost
        assert cost["itemsScanned"] <= estimated["itemsScanned"], cost


def assert_costs_alike(secured: Result, open_mode: Result) -> None:
    """A write by a signed-in caller costs what the same write costs with identity off: the
    same calls, and the same capacity units (its author attributes fit in the same 1 KB)."""
    assert not secured.errors and not open_mode.errors, (secured.errors, open_mode.errors)
    costs = (secured.cost, open_mode.cost)
    for figure in ("requests", "readCapacityUnits", "writeCapacityUnits"):
        assert secured.cost[figure] == open_mode.cost[figure], (figure, costs)


async def made_both_ways(
    signed_in: Api, opened: Api, create: str, given: dict[str, Any]
) -> tuple[list[Result], str, str]:
    """The same create made by a signed-in caller and with identity off (`opened`): both
    results, for `assert_costs_alike`, and the id each made."""
    made = [await signed_in(create, input=given), await opened(create, input=given)]
    mine, theirs = (next(iter(result.ok().values()))["id"] for result in made)
    return made, mine, theirs


def settings_for(endpoint: str, table: str, **overrides: Any) -> Settings:
    """The gateway's settings in tests: `table` at `endpoint`, a fixed cursor secret, and
    every plan checked against the generic executor (docs/performance.md#plans)."""
    overrides.setdefault("plans", "checked")
    return Settings(table=table, endpoint=endpoint, cursor_secret=b"test-secret", **overrides)


@dataclass
class Api:
    http: httpx.AsyncClient
    settings: Settings
    headers: dict[str, str] = field(default_factory=dict)
    # The gateway's read cache, when it is on.
    cache: CachedReads | None = None

    def signed_in(self, token: str) -> Api:
        """This client, sending `token` as its bearer token."""
        return replace(self, headers={**self.headers, "Authorization": f"Bearer {token}"})

    @classmethod
    @asynccontextmanager
    async def serving(cls, settings: Settings) -> AsyncIterator[Api]:
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            cache = app.state.runtime.cache
            deadline = time.monotonic() + 20
            while cache is not None and not cache.followed():  # answering, from the start
                assert time.monotonic() < deadline, "the read cache never followed the stream"
                await asyncio.sleep(0.02)
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
                yield cls(http, settings, cache=cache)

    async def __call__(self, query: str, **variables: Any) -> Result:
        response = await self.http.post(
            "/graphql", json={"query": query, "variables": variables}, headers=self.headers
        )
        result = Result(response.status_code, response.json())
        # Every response of every test also checks the bound of its operation, and that
        # its operations add up to its calls.
        assert_within_bound(result)
        assert_operations_add_up(result)
        return result
