"""The booking example's demo data: `dynagate seed --model examples/booking/model.py` on a
fresh table writes it through the model's mutations, a second run adds nothing, and what
it wrote is readable through the API; the hook called in-process writes the same."""

from __future__ import annotations

import argparse
import os
import subprocess
from typing import Any

import pytest

from gateway.cli.seeding import Seeding
from gateway.served_model import model_module
from tests.client import Api
from tests.examples.booking import BOOKING, DOCUMENT, DYNAGATE, ROOT, ids
from tests.table import scan_all

pytestmark = pytest.mark.overrides(model=BOOKING)
SMALL = ("--venues", "2", "--bookings-per-venue", "5", "--reviews-per-venue", "3")


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`dynagate seed --model examples/booking/model.py ARGS` from the repository's root, as
    a user runs it, with only the settings of `env`."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
    return subprocess.run(
        [DYNAGATE, "seed", "--model", "examples/booking/model.py", *args],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


def test_the_seed_options_are_the_models() -> None:
    shown = run("--help")
    assert shown.returncode == 0, shown.stderr
    for option in ("--venues", "--bookings-per-venue", "--reviews-per-venue"):
        assert option in shown.stdout
    assert "--customers" not in shown.stdout


async def test_seeding_twice_adds_nothing_and_the_data_is_served(
    api: Api, client: Any, endpoint: str
) -> None:
    table = api.settings.table
    where = {"DYNAGATE_DYNAMODB_ENDPOINT": endpoint, "DYNAGATE_TABLE": table}
    first = run(*SMALL, **where)
    assert first.returncode == 0, first.stderr
    assert first.stdout == f"seeded 2 venues with 10 bookings and 6 reviews into {table!r}\n"
    assert "seeding venues" in first.stderr  # the progress bar
    written = await scan_all(client, table)
    again = run(*SMALL, **where)
    assert again.returncode == 0, again.stderr
    assert again.stdout == (
        f"the booking data already exists in {table!r}, nothing was added (skipped 2 venues)\n"
    )
    assert len(await scan_all(client, table)) == len(written)
    bookings = [i for i in written if i.get("type") == "BOOKING"]
    reviews = [i for i in written if i.get("type") == "REVIEW"]
    assert (len(bookings), len(reviews)) == (10, 6)
    assert sum(i.get("type") == "REVIEW_COPY" for i in written) == 32 * len(reviews)
    # Through the API: each venue with its bookings, the queue, the map.
    for venue in ("venue-000", "venue-001"):
        found = (await api(DOCUMENT["VenueWithLatestBookings"], id=venue, first=10)).ok()
        listed = found["venue"]["latestBookings"]["edges"]
        mine = [i for i in bookings if i["venueId"] == venue]
        assert len(listed) == len(mine) == 5
        times = [e["node"]["bookedAt"] for e in listed]
        assert times == sorted(times, reverse=True)
        reviewed = (await api(DOCUMENT["VenueReviews"], id=venue, first=10)).ok()
        assert len(reviewed["venue"]["reviews"]["edges"]) == 3
    pending = (await api(DOCUMENT["PendingBookings"], first=20)).ok()["pendingBookings"]
    assert sorted(ids(pending)) == sorted(i["id"] for i in bookings if i["status"] == "PENDING")
    lisbon = {"north": 38.85, "south": 38.6, "east": -9.0, "west": -9.3}
    near = (await api(DOCUMENT["VenuesNear"], viewport=lisbon)).ok()["venues"]["venues"]
    assert [v["id"] for v in near] == ["venue-000"]


async def test_the_hook_in_process_is_deterministic(api: Api, client: Any) -> None:
    hook = model_module(BOOKING)
    seeding = Seeding(client, api.settings.table, BOOKING)
    parser = argparse.ArgumentParser()
    hook.add_seed_arguments(parser)
    args = parser.parse_args(["--venues", "1", "--bookings-per-venue", "4"])
    assert (args.venues, args.bookings_per_venue, args.reviews_per_venue) == (1, 4, 8)
    summary = await hook.seed(seeding, args)
    assert summary == f"seeded 1 venue with 4 bookings and 8 reviews into {api.settings.table!r}"
    venue = (await api(DOCUMENT["Venue"], id="venue-000")).ok()["venue"]
    # The first venue is the same whatever the run: its generator is seeded by its number.
    assert (venue["name"], venue["city"]) == ("Lantern Studio", "Lisbon")
    more = parser.parse_args(["--venues", "2", "--bookings-per-venue", "4"])
    summary = await hook.seed(seeding, more)
    assert summary.endswith("; skipped 1 venue already there")
    assert summary.startswith("seeded 1 venue with 4 bookings and 8 reviews")
