"""Tables written by other tools, served beside them: ElectroDB itself (`tests/tools/`, run
with Node as its users run it) makes the table and writes its items in its own formats;
dynagate, given a model of that table (`tests/model/electrodb_ticketing.py`), answers as
ElectroDB's own queries do over the same items, and what each side writes the other reads."""

from __future__ import annotations

import pytest

from tests.client import Api
from tests.other_tools import NEEDS_NODE, Tool, table_made_by

pytestmark = [pytest.mark.overrides(model="tests.model.electrodb_ticketing"), NEEDS_NODE]
electrodb = Tool("electrodb.mjs", ("eventId", "day", "title", "seats"))
EVENTS = electrodb.list_query('venue(venueId: "V1")', "events")
table = table_made_by(electrodb.script)


async def test_dynagate_answers_as_electrodb_s_own_query(
    api: Api, endpoint: str, table: str
) -> None:
    theirs = await electrodb(endpoint, table, "events", venueId="V1")
    first, venue = await electrodb.same_list(api, EVENTS, "venue", "events", theirs)
    assert venue["name"] == "Hall One"
    assert [event["eventId"] for event in theirs] == ["E1", "E2", "E3"]
    # Each page one Query of the venue's partition on gsi1 (the venue itself by GetItem).
    assert first.cost["itemsScanned"] <= 3 + 1, first.cost
    one = await api('{ event(eventId: "E3") { eventId day title seats } }')
    assert one.ok()["event"] == electrodb.shown(theirs[2])


async def test_what_each_side_writes_the_other_reads(api: Api, endpoint: str, table: str) -> None:
    added = await api(
        """mutation { addEvent(input: {eventId: "E9", venueId: "V1", day: "2025-03-02",
        title: "Matinee", seats: 30}) { eventId } }"""
    )
    assert added.ok()["addEvent"] == {"eventId": "E9"}
    read_back = await electrodb(endpoint, table, "get", eventId="E9")
    assert electrodb.shown(read_back) == {
        "eventId": "E9",
        "day": "2025-03-02",
        "title": "Matinee",
        "seats": 30,
    }
    listed = await electrodb(endpoint, table, "events", venueId="V1")
    assert [event["eventId"] for event in listed] == ["E1", "E2", "E9", "E3"]
    retitled = await api(
        'mutation { retitleEvent(input: {eventId: "E1", title: "Grand launch"}) { title } }'
    )
    assert retitled.ok()["retitleEvent"] == {"title": "Grand launch"}
    got = await electrodb(endpoint, table, "get", eventId="E1")
    assert got["title"] == "Grand launch"
    # Stored as ElectroDB stores it: under its field's name, never the attribute's.
    stored = await electrodb(endpoint, table, "scan")
    events = [item for item in stored if item["__edb_e__"] == {"S": "event"}]
    assert all("eventTitle" in item and "title" not in item for item in events)
    assert {"S": "Grand launch"} in [item["eventTitle"] for item in events]
    # ElectroDB's write is served at once.
    await electrodb(
        endpoint,
        table,
        "add",
        eventId="E10",
        venueId="V1",
        day="2025-03-01",
        title="Early bird",
        seats=5,
    )
    ours = (await api(EVENTS, first=10)).ok()["venue"]["events"]["edges"]
    assert [edge["node"]["eventId"] for edge in ours] == ["E1", "E10", "E2", "E9", "E3"]
