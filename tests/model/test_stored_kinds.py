"""Values another app stored in DynamoDB's own types (`tests/model/stored_kinds.py`), served
and written back in those types: booleans, numbers, sets, maps and lists, null, epoch and
ISO times, and the app's version, which every change dynagate writes moves on."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.types import Binary

from tests.client import Api
from tests.model.test_adopted_table import app_created, app_table, table_made_by_the_app

pytestmark = pytest.mark.overrides(model="tests.model.stored_kinds")
FIELDS = "id name active ratio tags ports settings note seenAt madeAt checkedAt revision"
DEVICE = f'query {{ device(id: "d1") {{ {FIELDS} }} }}'
# As the app writes it: boto3's own types, a zone other than UTC, and what it keeps alone.
APP_ITEM: dict[str, Any] = {
    "pk": "DEVICE#d1",
    "sk": "DEVICE#d1",
    "_type": "Device",
    "id": "d1",
    "name": "Gate sensor",
    "active": True,
    "ratio": Decimal("0.25"),
    "tags": {"outdoor", "east"},
    "ports": {Decimal(443), Decimal(80)},
    "settings": {
        "mode": "eco",
        "levels": [1, Decimal("2.5"), None, {"on": False}],
        "raw": Binary(b"\x01\x02"),
    },
    "note": None,
    "seen_at": Decimal(1_740_823_200),
    "madeAt": Decimal(1_740_823_200_123),
    "checkedAt": "2025-03-01T12:00:00+02:00",
    "_version": Decimal(3),
    "firmware": "4.2.1",
}


def made_by_the_app(endpoint: str, name: str) -> None:
    app_created(endpoint, name, {"pk": "S", "sk": "S"})
    app_table(endpoint, name).put_item(Item=APP_ITEM)


table = table_made_by_the_app("kinds", made_by_the_app)


async def stored_item(endpoint: str, table: str, device: str) -> dict[str, Any]:
    key = {"pk": f"DEVICE#{device}", "sk": f"DEVICE#{device}"}
    found = await asyncio.to_thread(app_table(endpoint, table).get_item, Key=key)
    return dict(found["Item"])


async def test_the_app_s_typed_values_are_served(api: Api) -> None:
    device = (await api(DEVICE)).ok()["device"]
    assert device == {
        "id": "d1",
        "name": "Gate sensor",
        "active": True,
        "ratio": 0.25,
        "tags": ["east", "outdoor"],
        "ports": [80, 443],
        "settings": {
            "mode": "eco",
            "levels": [1, 2.5, None, {"on": False}],
            "raw": "AQI=",
        },
        "note": None,
        "seenAt": "2025-03-01T10:00:00.000Z",
        "madeAt": "2025-03-01T10:00:00.123Z",
        "checkedAt": "2025-03-01T10:00:00.000Z",
        "revision": 3,
    }


async def test_a_change_writes_the_app_s_types_and_moves_its_version(
    api: Api, endpoint: str, table: str
) -> None:
    changed = await api(
        """mutation { changeDevice(input: {id: "d1", active: false, tags: [],
        ports: [8080, 22, 8080], settings: [1, "two"], seenAt: "2025-03-02T00:00:01.999Z"})
        { active tags ports settings seenAt revision } }"""
    )
    assert changed.ok()["changeDevice"] == {
        "active": False,
        "tags": [],
        "ports": [22, 8080],
        "settings": [1, "two"],
        "seenAt": "2025-03-02T00:00:01.000Z",
        "revision": 4,
    }
    item = await stored_item(endpoint, table, "d1")
    assert item["active"] is False
    assert "tags" not in item  # DynamoDB holds no empty set: the attribute is removed
    assert item["ports"] == {Decimal(22), Decimal(8080)}
    assert item["settings"] == [Decimal(1), "two"]
    assert item["seen_at"] == Decimal(1_740_873_601)
    assert item["_version"] == Decimal(4)
    # What the change did not name stays as the app wrote it.
    assert item["firmware"] == "4.2.1"
    assert item["checkedAt"] == "2025-03-01T12:00:00+02:00"
    assert item["madeAt"] == Decimal(1_740_823_200_123)


async def test_what_dynagate_creates_holds_the_app_s_types(
    api: Api, endpoint: str, table: str
) -> None:
    added = await api(
        """mutation { addDevice(input: {id: "d2", name: "Door", active: true, ratio: 0.5,
        tags: ["north"], ports: [22], seenAt: "2025-03-01T10:00:00Z"}) { id revision madeAt } }"""
    )
    assert added.ok()["addDevice"]["revision"] == 1
    item = await stored_item(endpoint, table, "d2")
    assert item["_type"] == "Device"
    assert item["active"] is True
    assert item["ratio"] == Decimal("0.5")
    assert item["tags"] == {"north"}
    assert item["ports"] == {Decimal(22)}
    assert item["seen_at"] == Decimal(1_740_823_200)
    assert isinstance(item["madeAt"], Decimal) and item["madeAt"] > 1_740_823_200_000
    assert item["_version"] == Decimal(1)
    assert "settings" not in item and "note" not in item


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ('settings: "text"', "must be a JSON list or object"),
        ("settings: " + "[" * 40 + "]" * 40, "nested over 32 levels"),
        ('settings: {blob: "' + "x" * 2000 + '"}', "over 1,024 bytes as JSON"),
        ('tags: ["a", "b", "c", "d", "e", "f"]', "6 distinct values; at most 5"),
        ("ports: [0]", "ports"),
        ("ratio: 1.5", "outside 0 to 1"),
        ('tags: ["' + "x" * 21 + '"]', "tags"),
    ],
)
async def test_bad_values_are_refused_naming_the_field(api: Api, given: str, says: str) -> None:
    refused = await api(f'mutation {{ changeDevice(input: {{id: "d1", {given}}}) {{ id }} }}')
    error = refused.errors[0]
    assert error["extensions"]["code"] == "BAD_USER_INPUT", error
    assert says in error["message"] or says == error["extensions"].get("field"), error
