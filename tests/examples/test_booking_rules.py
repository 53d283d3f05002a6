"""The booking example's rules with identity on: guests book for themselves and read and
cancel their own bookings, admins run the venues and their queue, reviewers keep their
reviews; and the subscriptions of the lists, each held to its list's rule, against a
gateway served on a real port."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from tests.client import Api, settings_for
from tests.examples.booking import BOOKING, DOCUMENT, LISBON, VENUES, at, ids
from tests.identity import SECURED, as_user, token
from tests.live import Served, connected, served

pytestmark = pytest.mark.overrides(model=BOOKING)
STAY = {"venueId": "v1", "startsAt": at(days=30), "nights": 3, "people": 2}


async def test_guests_book_read_and_cancel_their_own(api: Api) -> None:
    async with Api.serving(replace(api.settings, **SECURED)) as secured:
        await _bookings(secured)


async def _bookings(api: Api) -> None:
    admin, ann, bob = as_user(api, "root", admin=True), as_user(api, "ann"), as_user(api, "bob")
    assert (await ann(DOCUMENT["CreateVenue"], input=VENUES[0])).codes == ["FORBIDDEN"]
    (await admin(DOCUMENT["CreateVenue"], input=VENUES[0])).ok()
    assert (await bob(DOCUMENT["BookVenue"], input={**STAY, "guestId": "ann"})).codes == [
        "FORBIDDEN"
    ]
    imported = {**STAY, "guestId": "ann", "bookedAt": at(hours=1)}
    assert (await ann(DOCUMENT["BookVenue"], input=imported)).codes == ["FORBIDDEN"]
    booking = (await ann(DOCUMENT["BookVenue"], input={**STAY, "guestId": "ann"})).ok()
    where = {"venueId": "v1", "id": booking["bookVenue"]["id"]}
    assert (await ann(DOCUMENT["Booking"], **where)).ok()["booking"]["status"] == "PENDING"
    theirs = await bob(DOCUMENT["Booking"], **where)
    assert (theirs.codes, theirs.data) == (["FORBIDDEN"], {"booking": None})
    # The venue's lists are its public calendar: no guest is shown.
    calendar = (await api(DOCUMENT["VenueWithLatestBookings"], id="v1", first=5)).ok()
    assert ids(calendar["venue"]["latestBookings"]) == [where["id"]]
    for caller in (ann, bob):
        assert (await caller(DOCUMENT["PendingBookings"], first=5)).codes == ["FORBIDDEN"]
    # A guest's own bookings are theirs to list, and no one else's.
    mine = (await ann(DOCUMENT["GuestBookings"], guestId="ann")).ok()["guestBookings"]
    assert ids(mine) == [where["id"]]
    assert (await bob(DOCUMENT["GuestBookings"], guestId="ann")).codes == ["FORBIDDEN"]
    queue = (await admin(DOCUMENT["PendingBookings"], first=5)).ok()["pendingBookings"]
    assert ids(queue) == [where["id"]]
    stays = (await admin(DOCUMENT["GuestBookings"], guestId="ann")).ok()["guestBookings"]
    assert ids(stays) == [where["id"]]
    confirm = {**where, "status": "CONFIRMED"}
    assert (await ann(DOCUMENT["SetBookingStatus"], **confirm)).codes == ["FORBIDDEN"]
    (await admin(DOCUMENT["SetBookingStatus"], **confirm)).ok()
    assert (await bob(DOCUMENT["CancelBooking"], **where)).codes == ["FORBIDDEN"]
    cancelled = (await ann(DOCUMENT["CancelBooking"], **where)).ok()["cancelBooking"]
    assert cancelled["status"] == "CANCELLED"


async def test_admins_rename_and_move_venues_and_the_map_follows(api: Api) -> None:
    async with Api.serving(replace(api.settings, **SECURED)) as secured:
        admin, ann = as_user(secured, "root", admin=True), as_user(secured, "ann")
        (await admin(DOCUMENT["CreateVenue"], input=VENUES[0])).ok()
        booked = await ann(DOCUMENT["BookVenue"], input={**STAY, "guestId": "ann"})
        booked.ok()
        porto = {"id": "v1", "name": "Casa do Porto", "latitude": 41.15, "longitude": -8.61}
        assert (await ann(DOCUMENT["ChangeVenue"], input=porto)).codes == ["FORBIDDEN"]
        moved = (await admin(DOCUMENT["ChangeVenue"], input=porto)).ok()["changeVenue"]
        assert (moved["name"], moved["latitude"]) == ("Casa do Porto", 41.15)
        view = {"north": 41.2, "south": 41.1, "east": -8.5, "west": -8.7}
        found = (await api(DOCUMENT["VenuesNear"], viewport=view)).ok()["venues"]["venues"]
        assert [v["name"] for v in found] == ["Casa do Porto"]
        assert (await api(DOCUMENT["VenuesNear"], viewport=LISBON)).ok()["venues"]["venues"] == []
        heat = (await api(DOCUMENT["VenueHeatmap"], viewport=view, precision=4)).ok()
        assert [c["count"] for c in heat["venueHeatmap"]["cells"]] == [1]
        # Its bookings stay with it: the venue's key, their partition, did not change.
        calendar = (await api(DOCUMENT["VenueWithLatestBookings"], id="v1", first=5)).ok()
        assert ids(calendar["venue"]["latestBookings"]) == [booked.data["bookVenue"]["id"]]


async def test_reviewers_keep_their_reviews(api: Api) -> None:
    async with Api.serving(replace(api.settings, **SECURED)) as secured:
        admin, ann = as_user(secured, "root", admin=True), as_user(secured, "ann")
        bob = as_user(secured, "bob")
        (await admin(DOCUMENT["CreateVenue"], input=VENUES[0])).ok()
        given = {"venueId": "v1", "rating": 4, "language": "en", "body": "Lovely"}
        assert (await secured(DOCUMENT["PostReview"], input=given)).codes == ["UNAUTHENTICATED"]
        review = (await ann(DOCUMENT["PostReview"], input=given)).ok()["postReview"]
        assert review["author"] == "ann"
        edit = {"id": review["id"], "body": "Mine now"}
        assert (await bob(DOCUMENT["EditReview"], input=edit)).codes == ["FORBIDDEN"]
        assert (await bob(DOCUMENT["DeleteReview"], id=review["id"])).codes == ["FORBIDDEN"]
        assert (await ann(DOCUMENT["EditReview"], input={**edit, "body": "Still lovely"})).ok()
        found = (await secured(DOCUMENT["Review"], id=review["id"])).ok()["review"]
        assert (found["body"], found["venue"]["name"]) == ("Still lovely", "Harbour Inn")
        assert (await ann(DOCUMENT["DeleteReview"], id=review["id"])).ok()


def code_of(message: dict[str, Any]) -> str:
    """The code of a subscription refused at once (the protocol's `error` message)."""
    payload = message["payload"]
    errors = payload if message["type"] == "error" else payload["errors"]
    code: str = errors[0]["extensions"]["code"]
    return code


@pytest.fixture
async def gateway(endpoint: str, table: str) -> AsyncIterator[Served]:
    async with served(settings_for(endpoint, table, model=BOOKING, **SECURED)) as running:
        yield running


def caller_of(gateway: Served, username: str, *, admin: bool = False) -> Any:
    """A call of the served gateway over HTTP as `username`, answering its data."""
    headers = {"Authorization": f"Bearer {token(username, admin=admin)}"}

    async def call(name: str, **variables: Any) -> Any:
        async with httpx.AsyncClient() as http:
            sent = {"query": DOCUMENT[name], "variables": variables}
            body = (await http.post(gateway.url + "/graphql", json=sent, headers=headers)).json()
        assert "errors" not in body, body
        return body["data"]

    return call


@pytest.mark.streamed
async def test_each_list_is_followed_under_its_rule(gateway: Served) -> None:
    admin, ann = caller_of(gateway, "root", admin=True), caller_of(gateway, "ann")
    await admin("CreateVenue", input=VENUES[0])
    async with (
        connected(gateway, token("root", admin=True)) as desk,
        connected(gateway, token("ann")) as guest,
        connected(gateway, token("bob")) as other,
    ):
        refused = await other.answer(DOCUMENT["GuestBookingChanges"], guestId="ann")
        assert code_of(refused) == "FORBIDDEN"
        assert code_of(await other.answer(DOCUMENT["PendingBookingChanges"])) == "FORBIDDEN"
        pending = await desk.subscribe(DOCUMENT["PendingBookingChanges"])
        mine = await guest.subscribe(DOCUMENT["GuestBookingChanges"], guestId="ann")
        confirmed = await guest.subscribe(
            DOCUMENT["BookingStatusChanges"], venueId="v1", status="CONFIRMED"
        )
        top = await guest.subscribe(DOCUMENT["ReviewChanges"], venueId="v1", ratings=[5])
        await asyncio.sleep(0.3)
        made = (await ann("BookVenue", input={**STAY, "guestId": "ann"}))["bookVenue"]
        where = {"venueId": "v1", "id": made["id"]}
        await admin("SetBookingStatus", **where, status="CONFIRMED")
        review = {"venueId": "v1", "language": "en", "body": "Fine"}
        await ann("PostReview", input={**review, "rating": 3})
        best = (await ann("PostReview", input={**review, "rating": 5}))["postReview"]

        async def seen(client: Any, ident: str, field: str) -> tuple[str, str]:
            change = (await client.next_for(ident, within=10))["payload"]["data"][field]
            return change["kind"], change["id"]

        assert [await seen(desk, pending, "pendingBookingChanges") for _ in range(2)] == [
            ("ADDED", made["id"]),
            ("REMOVED", made["id"]),
        ]
        assert [await seen(guest, mine, "guestBookingChanges") for _ in range(2)] == [
            ("ADDED", made["id"]),
            ("CHANGED", made["id"]),
        ]
        assert await seen(guest, confirmed, "bookingStatusChanges") == ("ADDED", made["id"])
        assert await seen(guest, top, "reviewChanges") == ("ADDED", best["id"])
