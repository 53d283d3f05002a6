"""A request about to pass its bound is a bug of ours (a cost model too low): it is refused
before the call, answered INTERNAL_SERVER_ERROR with nothing of the cause, logged as an
error and counted in /metrics — never shown to clients as a busy database."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from gateway.demand import control as demand
from gateway.demand.bound import Bound
from tests.client import Api


async def test_a_call_past_the_bound_is_an_internal_error_counted_in_metrics(
    api: Api, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def too_low(*args: Any, **kwargs: Any) -> Bound:
        return Bound(requests=0, items=0, fields=3)

    monkeypatch.setattr(demand, "bound_operation", too_low)
    with caplog.at_level(logging.ERROR):
        result = await api('{ customer(id: "c-7f3a") { name } }')
    assert result.codes == ["INTERNAL_SERVER_ERROR"], result.body
    assert "bound" not in result.errors[0]["message"]
    assert result.cost["requests"] == 0  # refused before the call
    assert any("pass its bound of 0 DynamoDB calls" in r.getMessage() for r in caplog.records)
    metrics = (await api.http.get("/metrics")).text
    counted = re.search(r"^dynagate_bound_exceeded_total (\S+)$", metrics, re.MULTILINE)
    assert counted is not None and float(counted.group(1)) == 1.0, metrics
