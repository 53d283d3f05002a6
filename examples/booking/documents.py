"""The operations a booking app sends, one per access pattern and mutation, and the trusted
documents manifest made of them (`documents.json` beside this file: `"sha256:<hex>"` of
each document's text → the text), which `dynagate documents add` registers:

    python examples/booking/documents.py            # writes documents.json
    dynagate documents add --model examples/booking/model.py examples/booking/documents.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

MANIFEST = Path(__file__).with_name("documents.json")
PAGE_INFO = "pageInfo { hasNextPage hasPreviousPage startCursor endCursor }"
BOOKING = "id venueId status startsAt nights people bookedAt updatedAt"
REVIEW = "id rating language body createdAt author"
VENUE = "id name city latitude longitude"


def _with_input(name: str, selection: str) -> str:
    """The mutation `name` of one `input` argument (of the type `<name>Input`), selecting
    `selection` of what it returns."""
    field = name[0].lower() + name[1:]
    return (
        f"mutation {name}($input: {name}Input!) {{\n  {field}(input: $input) {{ {selection} }}\n}}"
    )


OPERATIONS = {
    "Venue": f"""query Venue($id: ID!) {{
  venue(id: $id) {{ {VENUE} }}
}}""",
    "VenuesNear": f"""query VenuesNear($viewport: Viewport!, $limit: Int) {{
  venues(viewport: $viewport, limit: $limit) {{ venues {{ {VENUE} }} truncated }}
}}""",
    "VenuesNearby": f"""query VenuesNearby($latitude: Float!, $longitude: Float!,
    $radiusMeters: Float!, $first: Int, $after: String) {{
  venuesNearby(latitude: $latitude, longitude: $longitude, radiusMeters: $radiusMeters,
      first: $first, after: $after) {{
    edges {{ cursor distanceMeters node {{ {VENUE} }} }} pageInfo {{ hasNextPage endCursor }} }}
}}""",
    "VenueHeatmap": """query VenueHeatmap($viewport: Viewport!, $precision: Int) {
  venueHeatmap(viewport: $viewport, precision: $precision) {
    precision cells { geohash count } }
}""",
    "VenueWithLatestBookings": f"""query VenueWithLatestBookings($id: ID!, $first: Int,
    $after: String) {{
  venue(id: $id) {{ {VENUE}
    latestBookings(first: $first, after: $after) {{
      edges {{ cursor node {{ {BOOKING} }} }} {PAGE_INFO} }} }}
}}""",
    "VenueBookings": f"""query VenueBookings($id: ID!, $status: BookingStatus,
    $booked: DateTimeRange, $direction: SortDirection, $first: Int, $after: String,
    $last: Int, $before: String) {{
  venue(id: $id) {{
    bookings(status: $status, booked: $booked, direction: $direction, first: $first,
        after: $after, last: $last, before: $before) {{
      edges {{ cursor node {{ {BOOKING} }} }} {PAGE_INFO} }} }}
}}""",
    "PendingBookings": f"""query PendingBookings($first: Int, $after: String) {{
  pendingBookings(first: $first, after: $after) {{
    edges {{ cursor node {{ {BOOKING} venue {{ name }} }} }} {PAGE_INFO} }}
}}""",
    "GuestBookings": f"""query GuestBookings($guestId: ID!, $stays: DateTimeRange,
    $direction: SortDirection, $first: Int, $after: String) {{
  guestBookings(guestId: $guestId, stays: $stays, direction: $direction, first: $first,
      after: $after) {{
    edges {{ cursor node {{ {BOOKING} venue {{ name city }} }} }} {PAGE_INFO} }}
}}""",
    "Booking": f"""query Booking($venueId: ID!, $id: ID!) {{
  booking(venueId: $venueId, id: $id) {{ {BOOKING} venue {{ name city }} }}
}}""",
    "VenueReviews": f"""query VenueReviews($id: ID!, $language: String, $ratings: [Int!],
    $first: Int, $after: String) {{
  venue(id: $id) {{
    reviews(language: $language, ratings: $ratings, first: $first, after: $after) {{
      edges {{ cursor node {{ {REVIEW} }} }} {PAGE_INFO} }} }}
}}""",
    "Review": f"""query Review($id: ID!) {{
  review(id: $id) {{ {REVIEW} venue {{ name }} }}
}}""",
    "CreateVenue": _with_input("CreateVenue", VENUE),
    "ChangeVenue": _with_input("ChangeVenue", VENUE),
    "RemoveVenue": """mutation RemoveVenue($id: ID!) {
  removeVenue(id: $id)
}""",
    "BookVenue": _with_input("BookVenue", BOOKING),
    "SetBookingStatus": f"""mutation SetBookingStatus($venueId: ID!, $id: ID!,
    $status: BookingStatus!) {{
  setBookingStatus(venueId: $venueId, id: $id, status: $status) {{ {BOOKING} }}
}}""",
    "CancelBooking": f"""mutation CancelBooking($venueId: ID!, $id: ID!) {{
  cancelBooking(venueId: $venueId, id: $id) {{ {BOOKING} }}
}}""",
    "PostReview": _with_input("PostReview", REVIEW),
    "EditReview": _with_input("EditReview", REVIEW),
    "DeleteReview": """mutation DeleteReview($id: ID!) {
  deleteReview(id: $id)
}""",
    "VenueChanges": f"""subscription VenueChanges($viewport: Viewport!) {{
  venueChanges(viewport: $viewport) {{ kind id venue {{ {VENUE} }} }}
}}""",
    "VenueBookingChanges": f"""subscription VenueBookingChanges($venueId: ID!) {{
  venueBookingChanges(venueId: $venueId) {{ kind id booking {{ {BOOKING} }} }}
}}""",
    "BookingStatusChanges": f"""subscription BookingStatusChanges($venueId: ID!,
    $status: BookingStatus) {{
  bookingStatusChanges(venueId: $venueId, status: $status) {{
    kind id booking {{ {BOOKING} }} }}
}}""",
    "PendingBookingChanges": f"""subscription PendingBookingChanges {{
  pendingBookingChanges {{ kind venueId id booking {{ {BOOKING} }} }}
}}""",
    "GuestBookingChanges": f"""subscription GuestBookingChanges($guestId: ID!,
    $stays: DateTimeRange) {{
  guestBookingChanges(guestId: $guestId, stays: $stays) {{ kind id booking {{ {BOOKING} }} }}
}}""",
    "ReviewChanges": f"""subscription ReviewChanges($venueId: ID!, $language: String,
    $ratings: [Int!]) {{
  reviewChanges(venueId: $venueId, language: $language, ratings: $ratings) {{
    kind id review {{ {REVIEW} }} }}
}}""",
}


def sha256(text: str) -> str:
    """The id a client sends for a document: the SHA-256 of its text (UTF-8), in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def manifest() -> dict[str, str]:
    """Each operation by the hash of its text, in the order above."""
    return {f"sha256:{sha256(text)}": text for text in OPERATIONS.values()}


def manifest_text() -> str:
    """The manifest as `documents.json` holds it."""
    return json.dumps(manifest(), indent=2) + "\n"


if __name__ == "__main__":
    MANIFEST.write_text(manifest_text())
    sys.stdout.write(f"wrote {len(OPERATIONS)} documents to {MANIFEST}\n")
