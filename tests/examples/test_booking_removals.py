"""The booking example's venues removed (`removeVenue`, `children="remove"`): with their
bookings, their reviews and every copy, their place and the map's counts, in one
transaction; a booking or review made meanwhile is refused and none is left behind; a
removal that stopped is taken over; more than one transaction holds is refused with the
way on, `dynagate remove`, which goes in steps and goes on when run again."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from data.callers import Caller
from data.writes import parents as parent_removals
from data.writes import removal_steps
from data.writes.removal_marks import MARK_LEASE, REMOVING
from examples.booking.model import MODEL, VENUE
from keys.codecs import format_timestamp
from store.client import Store
from store.loaders import ItemLoader
from tests.client import Api
from tests.data.test_faults import lost_once
from tests.examples.booking import BOOKING, DOCUMENT, DYNAGATE, LISBON, ROOT, VENUES, at
from tests.faults import FaultProxy
from tests.identity import SECURED, as_user
from tests.table import scan_all

pytestmark = pytest.mark.overrides(model=BOOKING, **SECURED)
STAY = {"venueId": "v1", "startsAt": at(days=30), "nights": 2, "people": 2}
REVIEWED = {"venueId": "v1", "rating": 5, "language": "pt", "body": "Óptimo"}


def of_venue(items: list[dict[str, Any]], venue: str) -> list[dict[str, Any]]:
    """Every item that is the venue's or below it: its own, its place, its bookings, its
    reviews and their copies."""
    return [
        i
        for i in items
        if i.get("venueId") == venue
        or i["PK"] == f"VENUE#{venue}"
        or (str(i["PK"]).startswith("BkVe#") and i.get("id") == venue)
    ]


def recount(items: list[dict[str, Any]]) -> tuple[dict[str, int], dict[str, int]]:
    """The map's stored counts of cells holding any, and those the place items make."""
    stored: dict[str, int] = {}
    for i in items:
        if str(i["PK"]).startswith("BkCe") and int(i["count"]):
            stored[i["PK"].split("#", 1)[1] + i["SK"]] = int(i["count"])
    made: dict[str, int] = {}
    for place in (i for i in items if str(i["PK"]).startswith("BkVe#")):
        for length in range(1, 9):
            cell = place["geohash"][:length]
            made[cell] = made.get(cell, 0) + 1
    return stored, made


async def stocked(api: Api, reviews: int = 1) -> None:
    """Venues v1 and v2, with bookings and reviews under each."""
    admin, ann = as_user(api, "root", admin=True), as_user(api, "ann")
    for made in VENUES:
        (await admin(DOCUMENT["CreateVenue"], input=made)).ok()
    for venue, count in (("v1", 2), ("v2", 1)):
        for _ in range(count):
            (
                await ann(DOCUMENT["BookVenue"], input={**STAY, "venueId": venue, "guestId": "ann"})
            ).ok()
    for venue, count in (("v1", reviews), ("v2", 1)):
        for _ in range(count):
            (await ann(DOCUMENT["PostReview"], input={**REVIEWED, "venueId": venue})).ok()


async def test_admins_remove_a_venue_with_everything_below_it(api: Api, client: Any) -> None:
    await stocked(api)
    table = api.settings.table
    before = await scan_all(client, table)
    assert len(of_venue(before, "v1")) == 2 + 2 + 1 + 32  # itself, its place, 2 bookings, a review
    admin, ann = as_user(api, "root", admin=True), as_user(api, "ann")
    assert (await ann(DOCUMENT["RemoveVenue"], id="v1")).codes == ["FORBIDDEN"]
    removed = await admin(DOCUMENT["RemoveVenue"], id="v1")
    assert removed.ok() == {"removeVenue": True}
    # Its mark, its bookings from its partition, its reviews from their index, one transaction.
    operations = removed.cost["operations"]
    assert operations == {"UpdateItem": 1, "Query": 2, "TransactWriteItems": 1}, operations
    after = await scan_all(client, table)
    assert of_venue(after, "v1") == []
    others = [
        i for i in before if i not in of_venue(before, "v1") and not i["PK"].startswith("BkCe")
    ]
    assert all(i in after for i in others)  # v2 and its own are as they were
    stored, made = recount(after)
    assert stored == made
    assert (await api(DOCUMENT["Venue"], id="v1")).ok() == {"venue": None}
    found = (await api(DOCUMENT["VenuesNear"], viewport=LISBON)).ok()["venues"]["venues"]
    assert [v["id"] for v in found] == ["v2"]
    again = await admin(DOCUMENT["RemoveVenue"], id="v1")
    assert again.codes == ["NOT_FOUND"]
    booked = await ann(DOCUMENT["BookVenue"], input={**STAY, "guestId": "ann"})
    assert booked.codes == ["NOT_FOUND"]


async def _marked(client: Any, table: str) -> bool:
    answer = await client.get_item(
        TableName=table, Key={"PK": {"S": "VENUE#v1"}, "SK": {"S": "VENUE#v1"}}, ConsistentRead=True
    )
    return REMOVING in answer.get("Item", {})


async def test_what_is_made_under_a_venue_being_removed_is_refused(api: Api, client: Any) -> None:
    await stocked(api)
    admin, ann = as_user(api, "root", admin=True), as_user(api, "ann")
    removing = asyncio.create_task(admin(DOCUMENT["RemoveVenue"], id="v1"))
    for _ in range(100):  # it waits for the reviews' index, closed meanwhile
        if await _marked(client, api.settings.table):
            break
        await asyncio.sleep(0.02)
    booked = await ann(DOCUMENT["BookVenue"], input={**STAY, "guestId": "ann"})
    assert booked.codes == ["CONFLICT"]
    assert booked.errors[0]["message"] == "venue 'v1' is being removed"
    assert (await ann(DOCUMENT["PostReview"], input=REVIEWED)).codes == ["CONFLICT"]
    assert (await removing).ok() == {"removeVenue": True}
    assert of_venue(await scan_all(client, api.settings.table), "v1") == []


async def test_racing_creates_leave_nothing_behind(api: Api, client: Any) -> None:
    """Bookings and reviews made all through a removal: each is refused, or made before
    the venue was closed and removed with it."""
    await stocked(api)
    admin, ann = as_user(api, "root", admin=True), as_user(api, "ann")

    async def create(n: int) -> list[str]:
        await asyncio.sleep(n * 0.05)
        if n % 2:
            made = await ann(DOCUMENT["PostReview"], input=REVIEWED)
        else:
            made = await ann(DOCUMENT["BookVenue"], input={**STAY, "guestId": "ann"})
        return made.codes

    removal = asyncio.create_task(admin(DOCUMENT["RemoveVenue"], id="v1"))
    results = await asyncio.gather(*(create(n) for n in range(24)))
    assert (await removal).ok() == {"removeVenue": True}
    outcomes = {code for codes in results for code in codes}
    assert outcomes <= {"CONFLICT", "NOT_FOUND"}, results
    assert "CONFLICT" in outcomes  # some came while it was closed
    items = await scan_all(client, api.settings.table)
    assert of_venue(items, "v1") == []
    assert len([i for i in items if i.get("type") == "BOOKING"]) == 1  # v2's


async def _mark(client: Any, table: str, age: timedelta) -> None:
    when = format_timestamp(datetime.now(UTC) - age)
    await client.update_item(
        TableName=table,
        Key={"PK": {"S": "VENUE#v1"}, "SK": {"S": "VENUE#v1"}},
        UpdateExpression="SET #r = :m",
        ExpressionAttributeNames={"#r": REMOVING},
        ExpressionAttributeValues={":m": {"S": f"{when} another"}},
    )


async def test_a_removal_that_stopped_is_taken_over(api: Api, client: Any) -> None:
    await stocked(api)
    admin, ann = as_user(api, "root", admin=True), as_user(api, "ann")
    table = api.settings.table
    await _mark(client, table, timedelta(seconds=5))  # another removal, going on
    busy = await admin(DOCUMENT["RemoveVenue"], id="v1")
    assert busy.codes == ["CONFLICT"]
    assert "is being removed by another request" in busy.errors[0]["message"]
    assert (await ann(DOCUMENT["BookVenue"], input={**STAY, "guestId": "ann"})).codes == [
        "CONFLICT"
    ]
    await _mark(client, table, MARK_LEASE + timedelta(seconds=5))  # it stopped
    (await ann(DOCUMENT["BookVenue"], input={**STAY, "guestId": "ann"})).ok()
    assert (await admin(DOCUMENT["RemoveVenue"], id="v1")).ok() == {"removeVenue": True}
    assert of_venue(await scan_all(client, table), "v1") == []


def run_remove(endpoint: str, table: str, *key: str) -> subprocess.CompletedProcess[str]:
    """`dynagate remove --model examples/booking/model.py Venue KEY…`, as a user runs it."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
    where = {"DYNAGATE_DYNAMODB_ENDPOINT": endpoint, "DYNAGATE_TABLE": table}
    return subprocess.run(
        [DYNAGATE, "remove", "--model", "examples/booking/model.py", "Venue", *key],
        env={**clean, **where},
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


class Stopped(Exception):
    pass


async def test_more_than_one_transaction_holds_is_removed_in_steps(
    api: Api, client: Any, endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await stocked(api, reviews=3)  # 10 writes for the venue and 33 a review: more than 100
    admin, ann = as_user(api, "root", admin=True), as_user(api, "ann")
    table = api.settings.table
    refused = await admin(DOCUMENT["RemoveVenue"], id="v1")
    assert refused.codes == ["CONFLICT"]
    assert "`dynagate remove Venue id=v1` removes it in steps" in refused.errors[0]["message"]
    # Refused as a whole: the venue is open to bookings again.
    (await ann(DOCUMENT["BookVenue"], input={**STAY, "guestId": "ann"})).ok()
    monkeypatch.setattr(removal_steps, "STEP", 1)  # one child of each entity a step
    steps: list[dict[str, int]] = []

    def stop_after_two(removed: removal_steps.Removed) -> None:
        steps.append(dict(removed.counts))
        if removed.steps == 2:
            raise Stopped

    store = Store(client, table, layout=MODEL.table_layout)
    with contextlib.suppress(Stopped):
        await removal_steps.remove_in_steps(
            store, MODEL, VENUE, {"id": "v1"}, report=stop_after_two
        )
    assert steps[-1] == {"Booking": 2, "Review": 2}
    halfway = await scan_all(client, table)
    assert len([i for i in of_venue(halfway, "v1") if i.get("type") == "BOOKING"]) == 1
    # Stopped with its mark fresh: still closed to bookings.
    assert (await ann(DOCUMENT["BookVenue"], input={**STAY, "guestId": "ann"})).codes == [
        "CONFLICT"
    ]
    done = run_remove(endpoint, table, "id=v1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "removed venue id=v1 and 2 entities below it"
    assert "step 1: removed 1 Booking, 1 Review" in done.stdout
    after = await scan_all(client, table)
    assert of_venue(after, "v1") == []
    stored, made = recount(after)
    assert stored == made
    gone = run_remove(endpoint, table, "id=v1")
    assert (gone.returncode, gone.stderr) == (1, "dynagate: venue 'v1' does not exist\n")
    wrong = run_remove(endpoint, table, "name=v1")
    assert wrong.returncode == 1
    assert "give the venue's key as id=…" in wrong.stderr


async def test_a_removal_whose_answer_was_lost_happens_once(
    api: Api, client: Any, table: str, proxy: FaultProxy, faulty: Store
) -> None:
    """The transaction's answer lost after DynamoDB applied it: the resend is recognised,
    and the removal answers true once; nothing is left, every count exact."""
    assert api.settings.table == table
    await stocked(api)
    removing = parent_removals.delete(
        faulty,
        ItemLoader(faulty),
        MODEL,
        VENUE,
        {"id": "v1"},
        caller=Caller("root", admin=True),
        writer_only=False,
        children="remove",
    )
    assert await lost_once(proxy, "TransactWriteItems", removing) is True
    after = await scan_all(client, table)
    assert of_venue(after, "v1") == []
    stored, made = recount(after)
    assert stored == made


async def test_two_removals_at_once_remove_it_once(api: Api, client: Any) -> None:
    """Two admins remove the same venue at once: one removes it, the other is refused
    (being removed, or gone), and nothing of it is left."""
    await stocked(api)
    admin = as_user(api, "root", admin=True)
    first, second = await asyncio.gather(
        admin(DOCUMENT["RemoveVenue"], id="v1"), admin(DOCUMENT["RemoveVenue"], id="v1")
    )
    answers = sorted([first.data, second.data], key=str)
    assert answers == [None, {"removeVenue": True}], (first.body, second.body)
    refused = first if first.errors else second
    assert refused.codes[0] in {"CONFLICT", "NOT_FOUND"}
    assert of_venue(await scan_all(client, api.settings.table), "v1") == []
