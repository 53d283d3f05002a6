"""`deploy/grafana-dashboard.json` charts what `/metrics` really serves: every metric its
queries name is one the gateway exports, and every family of the gateway's own is on it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.client import Api

DASHBOARD = Path(__file__).parents[2] / "deploy" / "grafana-dashboard.json"
# The samples of a family besides its own name (a counter's is `…_total` already).
SAMPLES = {"histogram": ("_bucket", "_sum", "_count"), "summary": ("_sum", "_count")}


def charted() -> set[str]:
    """The metric names the dashboard's queries name."""
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    assert exprs
    return {name for expr in exprs for name in re.findall(r"\b(?:dynagate|process)_\w+", expr)}


async def test_the_dashboard_charts_every_family_the_gateway_serves(api: Api) -> None:
    text = (await api.http.get("/metrics")).text
    families = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.MULTILINE))
    served = {f + suffix for f, kind in families.items() for suffix in ("", *SAMPLES.get(kind, ()))}
    assert charted() <= served, charted() - served
    # (A counter's `…_created` is when it began, not a figure to chart.)
    own = {f for f in families if f.startswith("dynagate_") and not f.endswith("_created")}
    on_it = {family for family in own if any(name.startswith(family) for name in charted())}
    assert on_it == own, own - on_it


def test_every_panel_has_its_place_and_a_query() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    places = set()
    for panel in dashboard["panels"]:
        grid = panel["gridPos"]
        assert grid["x"] + grid["w"] <= 24
        place = (grid["x"], grid["y"])
        assert place not in places, panel["title"]
        places.add(place)
        if panel["type"] != "row":
            assert panel["targets"] and all(t["expr"] for t in panel["targets"])
