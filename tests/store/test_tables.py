"""The CreateTable request built from the declaration in `keys.table` (no DynamoDB; the
stream switch against DynamoDB Local is in `test_stream.py`)."""

from __future__ import annotations

import pytest

from keys.table import SECONDARY_INDEXES, TABLE, index_named, page_key_attributes
from store.tables import create_table_request


def test_create_table_request_declares_every_key_attribute_once() -> None:
    request = create_table_request("dynagate")
    definitions = request["AttributeDefinitions"]
    names = [d["AttributeName"] for d in definitions]
    used = {a for index in (TABLE, *SECONDARY_INDEXES) for a in index.attributes}
    # Exactly once each, and no unused one (DynamoDB refuses unused definitions).
    assert len(names) == len(set(names))
    assert set(names) == used
    assert {d["AttributeType"] for d in definitions} == {"S"}

    assert request["KeySchema"] == [
        {"AttributeName": "PK", "KeyType": "HASH"},
        {"AttributeName": "SK", "KeyType": "RANGE"},
    ]
    indexes = request["GlobalSecondaryIndexes"]
    assert [i["IndexName"] for i in indexes] == [i.name for i in SECONDARY_INDEXES]
    for declared, index in zip(indexes, SECONDARY_INDEXES, strict=True):
        assert index_named(index.name) is index
        assert declared["KeySchema"] == [
            {"AttributeName": index.partition_key, "KeyType": "HASH"},
            {"AttributeName": index.sort_key, "KeyType": "RANGE"},
        ]
        assert declared["Projection"] == {"ProjectionType": index.projection}
        assert page_key_attributes(index) == ("PK", "SK", *index.attributes)
    assert index_named(None) is TABLE
    assert page_key_attributes(TABLE) == ("PK", "SK")
    with pytest.raises(KeyError):
        index_named("GSI9")


def test_a_new_table_has_a_stream_of_new_and_old_images() -> None:
    # Subscriptions read each change with the item before and after it.
    assert create_table_request("dynagate")["StreamSpecification"] == {
        "StreamEnabled": True,
        "StreamViewType": "NEW_AND_OLD_IMAGES",
    }
