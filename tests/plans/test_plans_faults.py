"""A plan on a failing network (docs/performance.md#plans): what the client hears, and the
cost it is told, are the executor's, whichever call fails and however."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.client import settings_for
from tests.faults import FaultProxy, without_backoff
from tests.plans.test_plans_api import PLANNED, _seed, _serving

QUERY = PLANNED["orders page"]


@pytest.fixture(scope="module")
async def seeded(endpoint: str, shared_table: str) -> str:
    async with _serving(settings_for(endpoint, shared_table)) as (http, _):
        await _seed(http)
    return shared_table


async def _answers(table: str, proxy: FaultProxy, rule: Callable[[], Any]) -> list[Any]:
    """The answer with plans on and off, the same fault injected before each."""
    answers = []
    for mode in ("on", "off"):
        proxy.clear()
        rule()
        settings = settings_for(proxy.url, table, plans=mode)
        async with _serving(settings) as (http, _):
            answer = await http.post("/graphql", json={"query": QUERY})
            answers.append((answer.status_code, answer.json(), dict(proxy.calls)))
    return answers


@pytest.mark.parametrize(
    ("operation", "mode"),
    [
        ("Query", "error"),  # the page fails: the executor's error at its path
        ("BatchGetItem", "error"),  # the item fails
        ("Query", "throttle"),  # retried by botocore until it gives up
        ("Query", "corrupt"),  # a damaged answer, read again
        ("*", "lose"),  # every answer lost once: resent, then heard
    ],
)
async def test_a_failing_call_is_answered_as_the_executor_answers_it(
    endpoint: str,
    seeded: str,
    monkeypatch: pytest.MonkeyPatch,
    operation: str,
    mode: str,
) -> None:
    without_backoff(monkeypatch)
    async with FaultProxy(endpoint) as proxy:
        once = 1 if mode in ("lose", "corrupt") else None

        def rule() -> None:
            proxy.inject(operation, mode, per_request=once)  # type: ignore[arg-type]

        (on_status, on, _), (off_status, off, _) = await _answers(seeded, proxy, rule)
    assert on_status == off_status
    assert on == off
    if mode in ("lose", "corrupt"):
        assert "errors" not in on and on["data"]["customer"]["name"] == "Ada"
    else:
        assert on["errors"][0]["extensions"]["code"] in ("UNAVAILABLE", "INTERNAL_SERVER_ERROR")


async def test_a_plan_stopped_half_way_leaves_no_read_behind(
    endpoint: str, seeded: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two roots read at once, one of them failing: the other is stopped, and the cost told
    is only what the executor read."""
    without_backoff(monkeypatch)
    query = (
        'query { a: customer(id: "c1") { name orders(first: 3) { edges { node { id } } } }'
        ' b: repo(owner: "o", name: "r") { issues(first: 2) { edges { node { number } } } } }'
    )
    async with FaultProxy(endpoint) as proxy:
        answers = []
        for mode in ("on", "off"):
            proxy.clear()
            # Refused for good (botocore resends a 500): one root fails, the other does not.
            proxy.inject("Query", "error", count=1, status=400, code="ValidationException")
            settings = settings_for(proxy.url, seeded, plans=mode)
            async with _serving(settings) as (http, _):
                answers.append((await http.post("/graphql", json={"query": query})).json())
    assert answers[0]["extensions"]["cost"] == answers[1]["extensions"]["cost"]
    assert answers[0]["data"] == answers[1]["data"]
    assert answers[0]["errors"] == answers[1]["errors"]
    assert len(answers[0]["errors"]) == 1 and None in answers[0]["data"].values()
