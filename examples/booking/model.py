"""A booking system, declared: venues on a map, their bookings and their reviews.

    venue    PK = SK = VENUE#<id>                                        by id
             PK = BkVe#<geohash[0:3]>  SK = <geohash[3:12]>#<id>          where it is
             PK = BkCe#<geohash[0:L-3]>  SK = <geohash[L-3:L]>            counts, L = 3..8
             PK = BkCe<L>#  SK = <geohash[0:L]>                          counts, L = 1, 2
    booking  PK = VENUE#<venueId>  SK = BOOKING#<ksuid>                  sorts before the venue
             GSI1  GUEST#<guestId> / BOOKING#<startsAt>#<ksuid>          a guest's stays
             GSI2  VENUE#<venueId> / BOOKING#<STATUS>#<bookedAt>#<ksuid> by status, then time
             GSI3  BOOKINGS#PENDING / BOOKING#<bookedAt>#<ksuid>         sparse: PENDING only
    review   PK = SK = REVIEW#<ksuid>, 32 copies:
             PK = REVIEW#<ksuid>  SK = COPY#<language|~>#<ratings>
             GSI1  VENUE#<venueId>#<language|~>#<ratings> / REVIEW#<createdAt>#<ksuid>

A venue heads its own partition and its bookings join it: `BOOKING#` < `VENUE#` in byte
order, so a Query reading backwards from the venue item returns the venue and then its
bookings, the latest made first (a KSUID is time-ordered). A booking's status changes,
so its by-status key is written anew with it, from the time it was made (read first:
`bookedAt` never changes); it is in GSI3 only while PENDING, the venues' queue of
requests to confirm, oldest first. A guest's bookings are by stay (`startsAt`).

A review rated r in language L is copied into every list a filter can ask for: each set
of ratings holding r (16) under L and under `~` (any); `reviews(language: "pt", ratings:
[4, 5])` is then one Query on `VENUE#<id>#pt#24`.

Lists below a venue have no rule of their own: they are as open as the venue, which
anyone may read and find on the map. So a booking shows no guest, and a venue's lists are
its public calendar; who booked is kept in `guestId` (the owner, GSI1's partition) and the
author, which the rules read. A guest reads and follows their own bookings
(`guestBookings`, `guestBookingChanges`: the owner's partition of GSI1). Venues
are kept by place: an admin renames and moves one (`changeVenue`: its place and the cell
counts follow in the same transaction), and removes one with its bookings and reviews
(`removeVenue`: one transaction while they fit in one, else `dynagate remove Venue id=…`
in steps; a booking or review made meanwhile is refused, never left behind). A map finds
them by view (`venues`, `venueHeatmap`) and an app the nearest to its user first
(`venuesNearby(latitude, longitude, radiusMeters)`, each with its distance in metres),
reading the same place partitions cell by cell outward from the user.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from enum import StrEnum
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from dynagate import GSI1, GSI2, GSI3, TABLE, Face
from model import (
    Author,
    Choice,
    Code,
    Coordinate,
    Copies,
    Create,
    Delete,
    Entity,
    GeneratedId,
    Geohash,
    Heatmap,
    Identifier,
    Keys,
    ListOf,
    Lookup,
    Model,
    Near,
    Nearest,
    Number,
    Owner,
    Parent,
    Places,
    Range,
    Text,
    Timestamp,
    Update,
    key,
    moves,
    only,
    same,
)

if TYPE_CHECKING:
    from dynagate import Seeding


class BookingStatus(StrEnum):
    """Every status a booking can be in: the one list the keys, rules and schema share."""

    PENDING = "PENDING"
    CONFIRMED = "CONFIRMED"
    CANCELLED = "CANCELLED"


IN_VENUE = key("VENUE", "venueId")
OF_VENUE = Parent("Venue", {"venueId": "id"}, field="venue")
MOST_NIGHTS = 30
MOST_PEOPLE = 12

VENUE = Entity(
    "Venue",
    {
        "id": Identifier(),
        "name": Text(max_length=80),
        "city": Text(max_length=60),
        "latitude": Coordinate(axis="lat"),
        "longitude": Coordinate(axis="lon"),
        "geohash": Geohash(shown=False),
        "createdAt": Timestamp(stamped="create", shown=False),
    },
    key=same(key("VENUE", "id")),
    places=Places("BkVe", "BkCe"),
)
BOOKING = Entity(
    "Booking",
    {
        "id": GeneratedId(),
        "venueId": Identifier(),
        "guestId": Identifier(shown=False),
        "status": Choice(values=BookingStatus, initial=BookingStatus.PENDING),
        "startsAt": Timestamp(description="When the stay begins."),
        "nights": Number(low=1, high=MOST_NIGHTS),
        "people": Number(low=1, high=MOST_PEOPLE),
        "bookedAt": Timestamp(stamped="create", imported=True),
        "updatedAt": Timestamp(stamped="write"),
        "bookedBy": Author(verb="booked", role="guest", shown=False),
    },
    key=Keys(IN_VENUE, key("BOOKING", "id")),
    indexes={
        GSI1: Keys(key("GUEST", "guestId"), key("BOOKING", "startsAt", "id")),
        GSI2: Keys(IN_VENUE, key("BOOKING", "status", "bookedAt", "id")),
        GSI3: Keys(key("BOOKINGS", "status"), key("BOOKING", "bookedAt", "id")),
    },
    sparse={GSI3: only("status", BookingStatus.PENDING)},
    parent=OF_VENUE,
    owner=Owner("guestId", "guest"),
)
REVIEW = Entity(
    "Review",
    {
        "id": GeneratedId(),
        "venueId": Identifier(shown=False),
        "rating": Number(low=1, high=5),
        "language": Code(
            pattern="[A-Za-z]{2}", described="a two-letter language code such as 'en'"
        ),
        "body": Text(max_length=4_000, multiline=True),
        "createdAt": Timestamp(stamped="create", imported=True),
        "updatedAt": Timestamp(stamped="write", shown=False),
        "author": Author(verb="posted", role="reviewer"),
    },
    key=same(key("REVIEW", "id")),
    parent=OF_VENUE,
    copies=Copies(
        GSI1,
        IN_VENUE,
        key("REVIEW", "createdAt", "id"),
        either=("language",),
        sets={"rating": "ratings"},
    ),
)
STATUS_MOVES = moves(
    "status",
    {
        BookingStatus.PENDING: [BookingStatus.CONFIRMED, BookingStatus.CANCELLED],
        BookingStatus.CONFIRMED: [BookingStatus.CANCELLED],
    },
)
MODEL = Model(
    (VENUE, BOOKING, REVIEW),
    (
        Lookup(VENUE, "venue", access="anyone"),
        Near(
            VENUE,
            "venues",
            description="The venues inside a map view.",
            subscription="venueChanges",
        ),
        Heatmap(VENUE, "venueHeatmap", description="How many venues each cell of a view holds."),
        Nearest(
            VENUE,
            "venuesNearby",
            description="The venues within a radius of a point, nearest first.",
            max_radius=50_000,
        ),
        Create(VENUE, "createVenue", access="admins"),
        Update(
            VENUE,
            "changeVenue",
            ("name", "city", "latitude", "longitude"),
            access="admins",
            description="Renames or moves a venue: its place and the map's counts follow.",
        ),
        Delete(VENUE, "removeVenue", access="admins", children="remove"),
        Lookup(BOOKING, "booking", access="owner"),
        ListOf(
            BOOKING,
            TABLE,
            "latestBookings",
            descending=True,
            description="The latest made first; read with the venue in one Query.",
            subscription="venueBookingChanges",
            subscription_access="anyone",
        ),
        ListOf(
            BOOKING,
            GSI2,
            "bookings",
            equal=("status",),
            range=Range("bookedAt", "booked"),
            direction=True,
            description="By status, then when made (`booked`, given with a `status`).",
            subscription="bookingStatusChanges",
            subscription_access="anyone",
            subscription_range=False,
        ),
        ListOf(
            BOOKING,
            GSI3,
            "pendingBookings",
            root=True,
            at={"status": BookingStatus.PENDING},
            access="admins",
            description="PENDING bookings of every venue, oldest first (a sparse index).",
            subscription="pendingBookingChanges",
            subscription_access="admins",
        ),
        ListOf(
            BOOKING,
            GSI1,
            "guestBookings",
            root=True,
            range=Range("startsAt", "stays"),
            direction=True,
            access="owner",
            description="A guest's bookings by when the stay begins.",
            subscription="guestBookingChanges",
            subscription_access="owner",
        ),
        Create(BOOKING, "bookVenue", access="owner", done="booked"),
        Update(
            BOOKING,
            "setBookingStatus",
            ("status",),
            access="admins",
            inline=True,
            moves=(STATUS_MOVES,),
        ),
        Update(
            BOOKING,
            "cancelBooking",
            (),
            sets={"status": BookingStatus.CANCELLED},
            inline=True,
        ),
        Lookup(REVIEW, "review", access="anyone"),
        ListOf(
            REVIEW,
            GSI1,
            "reviews",
            descending=True,
            description="Newest first, filtered by a language and any set of ratings.",
            subscription="reviewChanges",
            subscription_access="anyone",
        ),
        Create(REVIEW, "postReview", done="posted"),
        Update(REVIEW, "editReview", ("rating", "language", "body")),
        Delete(REVIEW, "deleteReview"),
    ),
)


# `dynagate seed --model examples/booking/model.py`: the demo data of `seed.py` beside this
# file, loaded by its path (as the model is) when the command runs it.
def add_seed_arguments(parser: argparse.ArgumentParser) -> None:
    _seeding().add_seed_arguments(parser)


async def seed(api: Seeding, args: argparse.Namespace) -> str:
    summary: str = await _seeding().seed(api, args)
    return summary


def _seeding() -> ModuleType:
    """`seed.py` beside this file, loaded by its path once."""
    name = f"{__name__}_seed"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("seed.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return module


# What the gateway serves of this module: the model and its demo data.
FACE = Face(MODEL, seed_options=add_seed_arguments, seed=seed)
