"""The booking example (`examples/booking/model.py`) through the whole engine, against
DynamoDB Local, with the app's own documents: bookings by status then time both ways, a
sparse queue of pending bookings, a venue read with its latest bookings, a guest's stays,
reviews filtered by language and any set of ratings, venues by viewport and heatmap, and
pages followed by cursors bound to their list. Every response's cost is within its bound
(`tests/client.py`)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest

from keys.geohash import encode
from tests.client import Api
from tests.examples.booking import (
    BOOKING,
    DOCUMENT,
    LISBON,
    VENUES,
    Booked,
    at,
    ids,
    paged,
    stock,
)
from tests.table import scan_all

pytestmark = pytest.mark.overrides(model=BOOKING)
# The order of GSI2's sort key: status, then the time booked.
STATUS_ORDER = ["CANCELLED", "CONFIRMED", "PENDING"]


def in_venue(booked: list[Booked], venue: str = "v1") -> list[Booked]:
    return [b for b in booked if b["venueId"] == venue]


def by_status(booked: list[Booked], status: str | None = None) -> list[str]:
    """The ids `bookings(status:)` lists ascending: by status, then time booked."""
    chosen = [b for b in booked if status in (None, b["status"])]
    chosen.sort(key=lambda b: (STATUS_ORDER.index(b["status"]), b["bookedAt"], b.id))
    return [b.id for b in chosen]


async def bookings(api: Api, **variables: Any) -> Any:
    found = await api(DOCUMENT["VenueBookings"], id="v1", **variables)
    return found, found.ok()["venue"]["bookings"]


async def test_bookings_by_status_then_time_both_ways_and_by_range(api: Api) -> None:
    booked = in_venue(await stock(api))
    for status in (None, *STATUS_ORDER):
        wanted = by_status(booked, status)
        found, ascending = await bookings(api, status=status, first=20)
        assert ids(ascending) == wanted
        assert found.cost["itemsScanned"] <= len(wanted) + 1, found.cost
        _, descending = await bookings(api, status=status, direction="DESC", first=20)
        assert ids(descending) == wanted[::-1]
    # Equality on the status, then an interval of time, both bounds inclusive: one key
    # condition, nothing read thrown away.
    between = {"from": at(hours=2), "to": at(hours=6)}
    found, confirmed = await bookings(api, status="CONFIRMED", booked=between, first=20)
    wanted = [b.id for b in booked if b["status"] == "CONFIRMED" and 2 <= b.hours <= 6]
    assert len(wanted) == 3 and ids(confirmed) == wanted
    assert found.cost["itemsScanned"] <= len(wanted) + 1, found.cost
    _, latest = await bookings(
        api, status="PENDING", booked={"from": at(hours=4)}, direction="DESC", first=20
    )
    wanted = [b.id for b in booked if b["status"] == "PENDING" and b.hours >= 4]
    assert ids(latest) == wanted[::-1]
    alone = (await api(DOCUMENT["VenueBookings"], id="v1", booked=between, first=5)).codes
    assert alone == ["BAD_USER_INPUT"]


async def test_pages_follow_cursors_bound_to_their_list(api: Api) -> None:
    booked = in_venue(await stock(api))
    path = ("venue", "bookings")
    assert await paged(api, "VenueBookings", path, id="v1", first=3) == by_status(booked)
    confirmed = await paged(api, "VenueBookings", path, id="v1", status="CONFIRMED", first=1)
    assert confirmed == by_status(booked, "CONFIRMED")
    backwards = await paged(api, "VenueBookings", path, id="v1", direction="DESC", first=4)
    assert backwards == by_status(booked)[::-1]
    _, page = await bookings(api, status="CONFIRMED", first=1)
    cursor = page["pageInfo"]["endCursor"]
    _, following = await bookings(api, status="CONFIRMED", first=5, after=cursor)
    assert ids(following) == by_status(booked, "CONFIRMED")[1:]
    _, before = await bookings(api, status="CONFIRMED", last=5, before=first_cursor(following))
    assert ids(before) == by_status(booked, "CONFIRMED")[:1]
    for moved in ({"status": "PENDING"}, {"id": "v2", "status": "CONFIRMED"}):
        elsewhere = await api(DOCUMENT["VenueBookings"], **{"id": "v1", **moved}, after=cursor)
        assert elsewhere.codes == ["BAD_CURSOR"], moved


def first_cursor(connection: dict[str, Any]) -> str:
    cursor: str = connection["edges"][0]["cursor"]
    return cursor


async def test_a_venue_is_read_with_its_latest_bookings_in_one_query(api: Api) -> None:
    booked = in_venue(await stock(api))
    latest = sorted(booked, key=lambda b: b["bookedAt"], reverse=True)
    found = await api(DOCUMENT["VenueWithLatestBookings"], id="v1", first=3)
    venue = found.ok()["venue"]
    assert found.calls == 1, found.cost  # the venue and its first page
    assert venue["name"] == "Harbour Inn"
    assert ids(venue["latestBookings"]) == [b.id for b in latest[:3]]
    assert venue["latestBookings"]["pageInfo"]["hasNextPage"] is True
    path = ("venue", "latestBookings")
    assert await paged(api, "VenueWithLatestBookings", path, id="v1", first=3) == [
        b.id for b in latest
    ]
    nothing = (await api(DOCUMENT["VenueWithLatestBookings"], id="v9", first=3)).ok()
    assert nothing == {"venue": None}


async def test_pending_bookings_are_a_sparse_index_left_when_confirmed(
    api: Api, client: Any
) -> None:
    booked = await stock(api)
    pending = [b for b in booked if b["status"] == "PENDING"]
    queue = (await api(DOCUMENT["PendingBookings"], first=20)).ok()["pendingBookings"]
    assert ids(queue) == [b.id for b in sorted(pending, key=lambda b: b["bookedAt"])]
    assert [e["node"]["venue"]["name"] for e in queue["edges"]][:1] == ["Harbour Inn"]
    confirmed, cancelled = pending[0], pending[1]
    where = {"venueId": confirmed["venueId"], "id": confirmed.id}
    (await api(DOCUMENT["SetBookingStatus"], **where, status="CONFIRMED")).ok()
    gone = {"venueId": cancelled["venueId"], "id": cancelled.id}
    after = (await api(DOCUMENT["CancelBooking"], **gone)).ok()["cancelBooking"]
    assert after["status"] == "CANCELLED"
    queue = (await api(DOCUMENT["PendingBookings"], first=20)).ok()["pendingBookings"]
    assert ids(queue) == [b.id for b in pending[2:]]
    items = {i["id"]: i for i in await scan_all(client, api.settings.table) if "status" in i}
    assert {"GSI3PK", "GSI3SK"}.isdisjoint(items[confirmed.id])
    assert items[pending[2].id]["GSI3PK"] == "BOOKINGS#PENDING"
    # The by-status list followed the move, read first for the time booked.
    _, now_confirmed = await bookings(api, status="CONFIRMED", first=20)
    assert confirmed.id in ids(now_confirmed)
    # Moves are data: back to PENDING, or out of CANCELLED, is refused by name.
    back = await api(DOCUMENT["SetBookingStatus"], **where, status="PENDING")
    assert back.codes == ["BAD_USER_INPUT"], back.body
    revived = await api(DOCUMENT["SetBookingStatus"], **gone, status="CONFIRMED")
    assert revived.codes == ["BAD_USER_INPUT"]
    assert "cannot move from CANCELLED to CONFIRMED" in revived.errors[0]["message"]
    missing = await api(DOCUMENT["CancelBooking"], venueId="v2", id=confirmed.id)
    assert missing.codes == ["NOT_FOUND"]


async def test_a_guests_bookings_are_by_stay(api: Api) -> None:
    booked = [b for b in await stock(api) if b.guest == "ann"]
    stays = sorted(booked, key=lambda b: b["startsAt"])
    found = (await api(DOCUMENT["GuestBookings"], guestId="ann", first=20)).ok()
    page = found["guestBookings"]
    assert ids(page) == [b.id for b in stays]
    assert {e["node"]["venue"]["name"] for e in page["edges"]} == {"Harbour Inn", "Cedar Loft"}
    window = {"from": at(days=30), "to": at(days=40)}
    found = (
        await api(DOCUMENT["GuestBookings"], guestId="ann", stays=window, direction="DESC")
    ).ok()
    wanted = [b.id for b in stays if at(days=30) <= b["startsAt"] <= at(days=40)]
    assert len(wanted) == 3 and ids(found["guestBookings"]) == wanted[::-1]
    one = (await api(DOCUMENT["Booking"], venueId="v2", id=stays[-2].id)).ok()["booking"]
    assert (one["id"], one["venue"]["city"]) == (stays[-2].id, "Lisbon")


REVIEWS = [(rating, language) for rating in range(1, 6) for language in ("en", "pt")]
RATING_SETS = [list(c) for size in range(1, 6) for c in combinations(range(1, 6), size)]


async def reviewed(api: Api) -> list[dict[str, Any]]:
    """Venue v1 with a review of each rating in each language, an hour apart; newest first."""
    (await api(DOCUMENT["CreateVenue"], input=VENUES[0])).ok()
    posted = []
    for n, (rating, language) in enumerate(REVIEWS):
        given = {"venueId": "v1", "rating": rating, "language": language, "body": f"r{n}"}
        made = await api(DOCUMENT["PostReview"], input={**given, "createdAt": at(hours=n)})
        posted.append(made.ok()["postReview"])
    return posted[::-1]


async def test_reviews_by_language_and_any_set_of_ratings_are_one_query(api: Api) -> None:
    reviews = await reviewed(api)
    for language in (None, "en", "PT"):
        for ratings in (None, *RATING_SETS):
            found = await api(
                DOCUMENT["VenueReviews"], id="v1", language=language, ratings=ratings, first=20
            )
            wanted = [
                r["id"]
                for r in reviews
                if (language is None or language.lower() == r["language"])
                and (ratings is None or r["rating"] in ratings)
            ]
            assert ids(found.ok()["venue"]["reviews"]) == wanted, (language, ratings)
            # The venue, then one Query on the one list of copies.
            assert found.calls == 2, found.cost
            assert found.cost["itemsScanned"] <= len(wanted) + 2, found.cost
    path = ("venue", "reviews")
    good = await paged(api, "VenueReviews", path, id="v1", ratings=[4, 5], first=3)
    assert good == [r["id"] for r in reviews if r["rating"] >= 4]
    for bad in ([], [0], [6]):
        refused = await api(DOCUMENT["VenueReviews"], id="v1", ratings=bad, first=2)
        assert refused.codes == ["BAD_USER_INPUT"], bad


async def test_an_edited_review_moves_between_lists_and_a_deleted_one_leaves_all(
    api: Api, client: Any
) -> None:
    reviews = await reviewed(api)
    target = reviews[0]  # rated 5, in Portuguese
    edit = {"id": target["id"], "rating": 2, "language": "en"}
    assert (await api(DOCUMENT["EditReview"], input=edit)).ok()["editReview"]["rating"] == 2

    async def listed(language: str, ratings: list[int]) -> list[str]:
        found = await api(
            DOCUMENT["VenueReviews"], id="v1", language=language, ratings=ratings, first=20
        )
        return ids(found.ok()["venue"]["reviews"])

    assert target["id"] in await listed("en", [2])
    assert target["id"] not in await listed("pt", [5])
    assert (await api(DOCUMENT["DeleteReview"], id=target["id"])).ok() == {"deleteReview": True}
    assert (await api(DOCUMENT["DeleteReview"], id=target["id"])).codes == ["NOT_FOUND"]
    assert target["id"] not in await listed("en", [1, 2, 3, 4, 5])
    left = [i for i in await scan_all(client, api.settings.table) if target["id"] in i["PK"]]
    assert left == []
    assert (await api(DOCUMENT["Review"], id=target["id"])).ok() == {"review": None}


# Venues in Lisbon's view, one just outside it, one far away.
SPOTS = [(38.70 + n * 0.01, -9.25 + n * 0.03) for n in range(5)] + [(38.81, -9.1), (35.0, 135.7)]


async def test_venues_by_viewport_and_their_heatmap_are_exact(api: Api) -> None:
    for n, (lat, lon) in enumerate(SPOTS):
        given = {"id": f"s{n}", "name": f"Spot {n}", "city": "Somewhere"}
        place = {"latitude": lat, "longitude": lon}
        (await api(DOCUMENT["CreateVenue"], input={**given, **place})).ok()
    found = await api(DOCUMENT["VenuesNear"], viewport=LISBON)
    near = found.ok()["venues"]
    assert sorted(v["id"] for v in near["venues"]) == [f"s{n}" for n in range(5)]
    assert near["truncated"] is False
    assert found.cost["itemsScanned"] < len(SPOTS), found.cost
    few = (await api(DOCUMENT["VenuesNear"], viewport=LISBON, limit=2)).ok()["venues"]
    assert (len(few["venues"]), few["truncated"]) == (2, True)
    for precision in (None, 2, 5):
        heat = await api(DOCUMENT["VenueHeatmap"], viewport=LISBON, precision=precision)
        cells = heat.ok()["venueHeatmap"]
        length = cells["precision"]
        counted = {c["geohash"]: c["count"] for c in cells["cells"]}
        wanted: dict[str, int] = {}
        for lat, lon in SPOTS:
            cell = encode(lat, lon, length)
            if cell in counted:
                wanted[cell] = wanted.get(cell, 0) + 1
        assert counted == wanted and sum(wanted.values()) >= 5, (precision, counted)
    twice = await api(DOCUMENT["CreateVenue"], input={**VENUES[0], "id": "s0"})
    assert twice.codes == ["CONFLICT"]
