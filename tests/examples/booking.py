"""What the booking example's tests share: the model's path, its documents by operation
name, and a table stocked with two venues and their bookings at known times."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from examples.booking.documents import OPERATIONS
from tests.client import Api

ROOT = Path(__file__).parents[2]
# The console script, run as a user runs it.
DYNAGATE = str(Path(sys.executable).with_name("dynagate"))
# Served by its path, as `--model examples/booking/model.py` serves it.
BOOKING = str(ROOT / "examples" / "booking" / "model.py")
# The app's own documents (`examples/booking/documents.py`), run by the tests.
DOCUMENT = OPERATIONS
# Hours apart, in the past: every booking's time is exact to the millisecond.
BASE = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=20)
LISBON = {"north": 38.8, "south": 38.6, "east": -9.0, "west": -9.3}
VENUES = [
    {"id": "v1", "name": "Harbour Inn", "city": "Lisbon", "latitude": 38.71, "longitude": -9.14},
    {"id": "v2", "name": "Cedar Loft", "city": "Lisbon", "latitude": 38.74, "longitude": -9.2},
]
# (venue, guest, booked hours after BASE, stay begins days after BASE, moves after PENDING)
PLAN = [
    ("v1", "ann", 1, 30, []),
    ("v1", "bob", 2, 25, ["CONFIRMED"]),
    ("v1", "ann", 3, 40, ["CANCELLED"]),
    ("v1", "cy", 4, 22, []),
    ("v1", "bob", 5, 35, ["CONFIRMED"]),
    ("v1", "ann", 6, 21, ["CONFIRMED"]),
    ("v1", "cy", 7, 50, ["CONFIRMED", "CANCELLED"]),
    ("v1", "bob", 8, 28, []),
    ("v2", "ann", 9, 33, []),
    ("v2", "cy", 10, 45, ["CONFIRMED"]),
]


def at(hours: float = 0, days: float = 0) -> str:
    """BASE moved by `hours` and `days`, as the API writes times."""
    moved = BASE + timedelta(hours=hours, days=days)
    return moved.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moved.microsecond // 1000:03d}Z"


@dataclass
class Booked:
    """A booking of PLAN as the API answered it, with who made it."""

    guest: str
    hours: int
    node: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.node["id"])

    def __getitem__(self, name: str) -> Any:
        return self.node[name]


async def stock(api: Api) -> list[Booked]:
    """The venues and PLAN's bookings, each moved as PLAN says; in PLAN's order."""
    for place in VENUES:
        (await api(DOCUMENT["CreateVenue"], input=place)).ok()
    booked = []
    for venue, guest, hours, days, moves in PLAN:
        given = {
            "venueId": venue,
            "guestId": guest,
            "startsAt": at(days=days),
            "nights": 2,
            "people": 2,
            "bookedAt": at(hours=hours),
        }
        node = (await api(DOCUMENT["BookVenue"], input=given)).ok()["bookVenue"]
        for status in moves:
            where = {"venueId": venue, "id": node["id"], "status": status}
            node = (await api(DOCUMENT["SetBookingStatus"], **where)).ok()["setBookingStatus"]
        booked.append(Booked(guest, hours, node))
    return booked


def ids(connection: dict[str, Any]) -> list[str]:
    return [edge["node"]["id"] for edge in connection["edges"]]


async def paged(api: Api, name: str, path: tuple[str, ...], **variables: Any) -> list[str]:
    """Every id of the list at `path` of operation `name`, `first` at a time, following its
    cursors."""
    seen: list[str] = []
    after = None
    while True:
        data = (await api(DOCUMENT[name], after=after, **variables)).ok()
        for step in path:
            data = data[step]
        seen += ids(data)
        if not data["pageInfo"]["hasNextPage"]:
            return seen
        after = data["pageInfo"]["endCursor"]
