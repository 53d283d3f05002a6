"""Items of kinds the model does not declare, which the table's other app keeps inside a
list's range (`tests/model/told_apart.py`: each item says its entity in `type`): passed
over by the Query's filter, pages still full and their cursors exact, the parent still read
with its first page in one Query, and what was passed over counted in the cost report."""

from __future__ import annotations

from typing import Any

import pytest

from tests.client import Api
from tests.model.test_adopted_table import (
    EVENTS,
    EVENTS_OF_ACME,
    ON_DAY,
    app_table,
    table_made_by_the_app,
)
from tests.model.test_adopted_table import made_by_the_app as made_untold

pytestmark = pytest.mark.overrides(model="tests.model.told_apart")
# What the app keeps beside the events, in their ranges: an audit entry of each event.
AUDITS = [
    {
        "pk": "ORG#acme",
        "sk": f"EVENT#{day}#{event_id}#audit",
        "gsi1pk": f"DAY#{day}",
        "gsi1sk": f"EVENT#acme#{event_id}#audit",
        "type": "audit",
        "what": "created",
    }
    for day, event_id, _ in EVENTS
]


def told_apart(endpoint: str, name: str) -> None:
    made_untold(endpoint, name)
    table = app_table(endpoint, name)
    for found in table.scan()["Items"]:
        kind = "org" if found["sk"].startswith("ORG#") else "event"
        table.update_item(
            Key={"pk": found["pk"], "sk": found["sk"]},
            UpdateExpression="SET #t = :t",
            ExpressionAttributeNames={"#t": "type"},
            ExpressionAttributeValues={":t": kind},
        )
    for audit in AUDITS:
        table.put_item(Item=audit)


table = table_made_by_the_app("told", told_apart)


def ids(connection: dict[str, Any]) -> list[str]:
    return [edge["node"]["id"] for edge in connection["edges"]]


async def test_items_of_no_declared_entity_are_passed_over(api: Api) -> None:
    first = await api(EVENTS_OF_ACME, first=2)
    org = first.ok()["org"]
    assert org["name"] == "Acme" and ids(org["events"]) == ["e3", "e2"]
    assert org["events"]["pageInfo"]["hasNextPage"] is True
    # The org read with its page: the audits took room in the Query's Limit, so one more
    # Query fills the page; what was passed over is counted as read.
    assert first.cost["requests"] == 2, first.cost
    assert first.cost["itemsScanned"] > first.cost["itemsReturned"], first.cost
    after = org["events"]["pageInfo"]["endCursor"]
    rest = (await api(EVENTS_OF_ACME, first=2, after=after)).ok()["org"]["events"]
    assert ids(rest) == ["e1"] and rest["pageInfo"]["hasNextPage"] is False
    on_day = (await api(ON_DAY, day="2025-03-01")).ok()["eventsOn"]
    assert ids(on_day) == ["e1", "e2"] and on_day["pageInfo"]["hasNextPage"] is False
