"""The README's `make run MODEL=examples/booking/model.py`, as a new user runs it: its own
DynamoDB Local, a table of the model's own, the model's demo data, and the gateway serving
the booking API under the shipped settings; then the booking app's own documents answer
with the data the seed wrote."""

from __future__ import annotations

import shlex
from pathlib import Path

import httpx
import pytest

from examples.booking.documents import OPERATIONS
from tests.gateway.test_readme import running_make_run, shell_commands

pytestmark = pytest.mark.dynamodb


def test_make_run_serves_the_booking_model_with_its_demo_data(tmp_path: Path) -> None:
    (command,) = [c for c in shell_commands() if "MODEL=" in c]
    output = tmp_path / "run.log"
    with running_make_run(tmp_path / "data", output, *shlex.split(command)[2:]) as url:
        asked = {"query": OPERATIONS["VenueWithLatestBookings"], "variables": {"id": "venue-000"}}
        venue = httpx.post(f"{url}/graphql", json=asked, timeout=30).json()
        assert "errors" not in venue, venue
        assert venue["data"]["venue"]["id"] == "venue-000"
        assert venue["data"]["venue"]["latestBookings"]["edges"], venue
        # The demo's fields are not this model's.
        other = httpx.post(f"{url}/graphql", json={"query": '{ order(id: "x") { id } }'})
        assert "Cannot query field 'order'" in other.json()["errors"][0]["message"]
    log = output.read_text()
    assert "dynagate-examples-booking-model" in log  # a table of its own
    assert "seeded" in log
