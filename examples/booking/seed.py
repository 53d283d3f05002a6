"""The booking model's demo data (`dynagate seed --model examples/booking/model.py`),
written through the model's own mutations so it takes the API's code paths: venues on the
map, their bookings (some confirmed or cancelled since) and their reviews.

Deterministic: each venue's data comes from a generator seeded by its number, so a run
with more venues adds the same first ones. Times are relative to now (bookings made in the
last 90 days, stays from a few weeks ago to four months ahead), so every list has content.
A venue that exists already is skipped with its bookings and reviews: seeding twice adds
nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

if TYPE_CHECKING:
    from dynagate import Seeding

CREATE_VENUE = """mutation ($input: CreateVenueInput!) { createVenue(input: $input) { id } }"""
BOOK_VENUE = """mutation ($input: BookVenueInput!) { bookVenue(input: $input) { id } }"""
SET_STATUS = """mutation ($venueId: ID!, $id: ID!, $status: BookingStatus!) {
  setBookingStatus(venueId: $venueId, id: $id, status: $status) { id } }"""
CANCEL = """mutation ($venueId: ID!, $id: ID!) {
  cancelBooking(venueId: $venueId, id: $id) { id } }"""
POST_REVIEW = """mutation ($input: PostReviewInput!) { postReview(input: $input) { id } }"""

# The seed's options: each a count, its default and what it counts.
SEED_COUNTS = (
    ("--venues", 12, "venues to create, spread over the demo cities"),
    ("--bookings-per-venue", 20, "bookings of each venue"),
    ("--reviews-per-venue", 8, "reviews of each venue"),
)
# Demo cities: (name, latitude, longitude) of each centre; venues lie within 0.1 degrees.
CITIES = [
    ("Lisbon", 38.722, -9.139),
    ("Kyoto", 35.011, 135.768),
    ("Montreal", 45.501, -73.567),
    ("Cape Town", -33.925, 18.424),
]
KINDS = ["Guesthouse", "Loft", "Cabin", "Studio", "Inn", "Hostel", "Villa"]
STREETS = ["Harbour", "Old Mill", "Cedar", "Market", "Hillside", "Riverside", "Lantern"]
GUESTS = ["ana", "bruno", "chen", "dara", "emeka", "fatima", "goran", "hana", "ivo", "jun"]
LANGUAGES = ["en", "en", "en", "pt", "fr", "ja", "de"]
REMARKS = [
    "Spotless, and the host was lovely.",
    "Noisy street at night.",
    "Great value for the area.",
    "Check-in took far too long.",
    "Would stay again.",
    "Smaller than the photos suggest.",
    "Perfect for a long weekend.",
]
# What becomes of a booking, as (the moves after PENDING, weight): for stays still ahead,
# and for stays begun (none left pending).
AHEAD = [([], 4), (["CONFIRMED"], 4), (["CANCELLED"], 1), (["CONFIRMED", "CANCELLED"], 1)]
BEGUN = [(["CONFIRMED"], 8), (["CANCELLED"], 1), (["CONFIRMED", "CANCELLED"], 1)]


def add_seed_arguments(parser: argparse.ArgumentParser) -> None:
    for option, default, counted in SEED_COUNTS:
        parser.add_argument(option, type=int, default=default, help=counted)


async def seed(api: Seeding, args: argparse.Namespace) -> str:
    """The demo data, through the model's mutations: what was added, or skipped."""
    seeder = Seeder(api, datetime.now(UTC))
    with tqdm(total=args.venues, desc="seeding venues", unit="venue") as progress:
        for number in range(args.venues):
            await seeder.venue(number, args.bookings_per_venue, args.reviews_per_venue)
            progress.update()
    return seeder.summary()


@dataclass
class Seeder:
    api: Seeding
    now: datetime
    venues: int = 0
    bookings: int = 0
    reviews: int = 0
    skipped: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One sentence on what was written and what was there already."""
        table = self.api.table
        skipped = _count(len(self.skipped), "venue")
        if self.skipped and not self.venues:
            added = "nothing was added"
            return f"the booking data already exists in {table!r}, {added} (skipped {skipped})"
        seeded = (
            f"seeded {_count(self.venues, 'venue')} with {_count(self.bookings, 'booking')}"
            f" and {_count(self.reviews, 'review')} into {table!r}"
        )
        if not self.skipped:
            return seeded
        return f"{seeded}; skipped {skipped} already there"

    async def venue(self, number: int, bookings: int, reviews: int) -> None:
        """Venue `number` with its bookings and reviews, unless it exists already."""
        generator = random.Random(number)
        city, latitude, longitude = CITIES[number % len(CITIES)]
        venue_id = f"venue-{number:03d}"
        given = {
            "id": venue_id,
            "name": f"{generator.choice(STREETS)} {generator.choice(KINDS)}",
            "city": city,
            "latitude": round(latitude + generator.uniform(-0.1, 0.1), 6),
            "longitude": round(longitude + generator.uniform(-0.1, 0.1), 6),
        }
        if await self.api.execute(CREATE_VENUE, {"input": given}) is None:
            self.skipped.append(venue_id)
            return
        plans = [self._booking(generator, venue_id) for _ in range(bookings)]
        posts = [self._review(generator, venue_id) for _ in range(reviews)]
        await asyncio.gather(*(self._book(plan) for plan in plans))
        await asyncio.gather(
            *(self.api.execute(POST_REVIEW, {"input": p}, as_user=by) for by, p in posts)
        )
        self.venues += 1
        self.bookings += bookings
        self.reviews += reviews

    def _booking(self, generator: random.Random, venue_id: str) -> dict[str, Any]:
        booked = self.now - timedelta(minutes=generator.randint(60, 90 * 24 * 60))
        day = booked.replace(hour=15, minute=0, second=0, microsecond=0)
        starts = day + timedelta(days=generator.randint(1, 120))
        fates = BEGUN if starts <= self.now else AHEAD
        moves = generator.choices([m for m, _ in fates], [w for _, w in fates])[0]
        given = {
            "venueId": venue_id,
            "guestId": generator.choice(GUESTS),
            "startsAt": starts.isoformat(),
            "nights": generator.randint(1, 7),
            "people": generator.randint(1, 4),
            "bookedAt": booked.isoformat(),
        }
        return {"input": given, "moves": moves}

    async def _book(self, plan: dict[str, Any]) -> None:
        given = plan["input"]
        made = await self.api.execute(BOOK_VENUE, {"input": given}, as_user=given["guestId"])
        assert made is not None  # a new id: never there already
        where = {"venueId": given["venueId"], "id": made["bookVenue"]["id"]}
        for status in plan["moves"]:
            if status == "CANCELLED":  # the guest cancels
                await self.api.execute(CANCEL, where, as_user=given["guestId"])
            else:  # the venue confirms
                await self.api.execute(SET_STATUS, {**where, "status": status})

    def _review(self, generator: random.Random, venue_id: str) -> tuple[str, dict[str, Any]]:
        """Who posts a review, and what they give."""
        written = self.now - timedelta(minutes=generator.randint(60, 365 * 24 * 60))
        given = {
            "venueId": venue_id,
            "rating": generator.choice([1, 2, 3, 4, 4, 5, 5, 5]),
            "language": generator.choice(LANGUAGES),
            "body": generator.choice(REMARKS),
            "createdAt": written.isoformat(),
        }
        return generator.choice(GUESTS), given


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
