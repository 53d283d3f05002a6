"""The booking example builds as the gateway builds it (`dynagate model check`), and its
trusted-documents manifest (`examples/booking/documents.json`) is the one its script
writes, each document named by its own SHA-256 and passing the checks `dynagate
documents add` makes against the booking schema, every root field used by one."""

from __future__ import annotations

import json
import subprocess

from graphql import FieldNode, OperationDefinitionNode, parse

from examples.booking.documents import MANIFEST, OPERATIONS, manifest_text
from gateway.cli.documents import check, refusals
from gateway.demand.control import Limits
from gateway.schema.build import build_schema
from gateway.served_model import declared, served
from keys.documents import digest
from tests.examples.booking import BOOKING, DYNAGATE, ROOT


def test_the_model_check_passes_and_prints_every_pattern() -> None:
    checked = subprocess.run(
        [DYNAGATE, "model", "check", "--model", "examples/booking/model.py"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert checked.returncode == 0, checked.stderr
    *lines, summary = checked.stdout.splitlines()
    model = declared(BOOKING)
    assert len(lines) == len(model.patterns) == 20
    assert summary == "model 'examples/booking/model.py': 3 entities, 20 access patterns, ok"
    by_field = dict(line.split(": ", 1) for line in lines)
    assert "Query the table PK=VENUE#<venueId>" in by_field["Venue.latestBookings"]
    assert "GSI2SK on status, bookedAt" in by_field["Venue.bookings"]
    assert "GSI3PK=BOOKINGS#PENDING" in by_field["Query.pendingBookings"]
    assert "GSI1PK=GUEST#<guestId>, GSI1SK on startsAt" in by_field["Query.guestBookings"]
    assert "VENUE#<venueId>#<language>#<rating>" in by_field["Venue.reviews"]
    nearby = by_field["Query.venuesNearby"]
    assert "on BkVe#<geohash[0:3]>" in nearby
    assert "worst 32 calls, 4096 items (first 20" in nearby
    # A venue's removal: its bookings from its partition, its reviews from their index.
    removal = by_field["Mutation.removeVenue"]
    assert removal.startswith("UpdateItem (its removal's mark), Query the table PK=VENUE#<venueId>")
    assert "GSI1PK=VENUE#<venueId>#<language>#<rating> of its reviews (after 1 s)" in removal
    # A status change reads the time booked first, which its by-status key holds.
    assert by_field["Mutation.setBookingStatus"].endswith("worst 2 calls, 1 read")


def test_the_manifest_is_what_its_script_writes() -> None:
    assert MANIFEST.read_text() == manifest_text()
    documents = json.loads(MANIFEST.read_text())
    assert list(documents.values()) == list(OPERATIONS.values())
    for named, text in documents.items():
        assert named == f"sha256:{digest(text)}"
    names = [_operation(text).name for text in documents.values()]
    assert [n.value if n else None for n in names] == list(OPERATIONS)


def test_every_document_passes_the_trusted_checks_against_the_booking_schema() -> None:
    schema = build_schema(roots=served(BOOKING), introspection=False)._schema
    documents = json.loads(MANIFEST.read_text())
    checked = check(schema, documents, Limits(), introspection=False)
    assert refusals(checked) == []
    assert all(len(document.bounds) == 1 for document in checked)
    # One document for every root field: each access pattern and mutation is sent.
    used = {
        selection.name.value
        for text in documents.values()
        for selection in _operation(text).selection_set.selections
        if isinstance(selection, FieldNode)
    }
    roots = (schema.query_type, schema.mutation_type, schema.subscription_type)
    fields = {name for root in roots if root is not None for name in root.fields}
    assert used == fields


def _operation(text: str) -> OperationDefinitionNode:
    [operation] = parse(text).definitions
    assert isinstance(operation, OperationDefinitionNode)
    return operation
