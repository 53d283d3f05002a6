"""The CreateTable request built from a layout (`keys/table.py`), and how a described table
is compared with one (no DynamoDB; the stream switch against DynamoDB Local is in
`test_stream.py`, a live comparison in `tests/model/test_adopted_table.py`)."""

from __future__ import annotations

from typing import Any

import pytest

from keys.table import CLASSIC, GSI1, TABLE, Index, Layout, LayoutError, local_index
from store.tables import create_table_request, layout_differences, stream_problem

PK_SK = Index(None, "pk", "sk")
GSI = Index("gsi1", "gsi1pk", "gsi1sk", "INCLUDE", included=("name", "status"))
BY_NUMBER = local_index("lsi1", PK_SK, "rank", sort_type="N", projection="KEYS_ONLY")
ADOPTED = Layout(PK_SK, (GSI, BY_NUMBER))


def test_create_table_request_declares_every_key_attribute_once() -> None:
    request = create_table_request("dynagate")
    definitions = request["AttributeDefinitions"]
    names = [d["AttributeName"] for d in definitions]
    used = {a for index in CLASSIC.all for a in index.attributes}
    # Exactly once each, and no unused one (DynamoDB refuses unused definitions).
    assert len(names) == len(set(names))
    assert set(names) == used
    assert {d["AttributeType"] for d in definitions} == {"S"}

    assert request["KeySchema"] == [
        {"AttributeName": "PK", "KeyType": "HASH"},
        {"AttributeName": "SK", "KeyType": "RANGE"},
    ]
    indexes = request["GlobalSecondaryIndexes"]
    assert [i["IndexName"] for i in indexes] == [i.name for i in CLASSIC.indexes]
    for declared, index in zip(indexes, CLASSIC.indexes, strict=True):
        assert CLASSIC.index(index.name) is index
        assert declared["KeySchema"] == [
            {"AttributeName": index.partition_key, "KeyType": "HASH"},
            {"AttributeName": index.sort_key, "KeyType": "RANGE"},
        ]
        assert declared["Projection"] == {"ProjectionType": index.projection}
        assert CLASSIC.page_key_attributes(index) == ("PK", "SK", *index.attributes)
    assert CLASSIC.index(None) is TABLE
    assert CLASSIC.page_key_attributes(TABLE) == ("PK", "SK")
    with pytest.raises(KeyError):
        CLASSIC.index("GSI9")


def test_a_declared_layout_is_created_as_declared() -> None:
    request = create_table_request("legacy", ADOPTED)
    assert request["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert {d["AttributeName"]: d["AttributeType"] for d in request["AttributeDefinitions"]} == {
        "pk": "S",
        "sk": "S",
        "gsi1pk": "S",
        "gsi1sk": "S",
        "rank": "N",
    }
    (global_index,) = request["GlobalSecondaryIndexes"]
    assert global_index["Projection"] == {
        "ProjectionType": "INCLUDE",
        "NonKeyAttributes": ["name", "status"],
    }
    (local,) = request["LocalSecondaryIndexes"]
    assert local["KeySchema"][0] == {"AttributeName": "pk", "KeyType": "HASH"}
    assert local["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    # A page of an index starts after the table's key and the index's own.
    assert ADOPTED.page_key_attributes(BY_NUMBER) == ("pk", "sk", "rank")


def described(request: dict[str, Any], **more: Any) -> dict[str, Any]:
    """DescribeTable's answer for a table made from `request`."""
    return {**request, **more}


def test_a_table_as_declared_has_no_differences() -> None:
    request = create_table_request("legacy", ADOPTED)
    assert layout_differences(described(request), ADOPTED) == []


def test_every_difference_names_both_sides() -> None:
    request = create_table_request("legacy", ADOPTED)
    table = described(
        request,
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            *request["AttributeDefinitions"],
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "N"},
        ],
        GlobalSecondaryIndexes=[
            {**request["GlobalSecondaryIndexes"][0], "Projection": {"ProjectionType": "ALL"}}
        ],
        LocalSecondaryIndexes=[],
    )
    found = layout_differences(table, ADOPTED)
    assert found == [
        "the table is keyed PK (S) + SK (N), the model declares pk (S) + sk (S)",
        "it lacks the local index lsi1 (a local index is made with the table only)",
        "index gsi1 is global on gsi1pk (S) + gsi1sk (S), projecting ALL, the model declares"
        " global on gsi1pk (S) + gsi1sk (S), projecting INCLUDE ['name', 'status']",
    ]
    assert layout_differences(described(create_table_request("t")), ADOPTED)[0].startswith(
        "the table is keyed PK (S) + SK (S), the model declares pk (S) + sk (S)"
    )


def test_a_missing_global_index_is_added_only_when_asked() -> None:
    request = create_table_request("legacy", Layout(PK_SK, (BY_NUMBER,)))
    assert layout_differences(described(request), ADOPTED) == [
        "it lacks the global index gsi1 (`dynagate create-table --add-indexes` adds it, or"
        " `dynagate migrate apply`, which also gives the items their keys there)"
    ]
    assert layout_differences(described(request), ADOPTED, addable=True) == []


def test_a_stream_is_checked_for_both_images() -> None:
    request = create_table_request("t")
    assert stream_problem(request) is None
    assert stream_problem({}) == "it has no stream"
    keys_only = {"StreamSpecification": {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}}
    assert stream_problem(keys_only) == "its stream keeps KEYS_ONLY, not new and old images"


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda: Index(None, "pk", "pk"), "two attributes"),
        (lambda: Index("i", "a", "b", types=("S", "X")), "key types"),  # type: ignore[arg-type]
        (lambda: Index("i", "a", "b", "INCLUDE"), "INCLUDE, and only INCLUDE"),
        (lambda: Index("i", "a", "b", included=("c",)), "INCLUDE, and only INCLUDE"),
        (lambda: Layout(GSI1), "is an index"),
        (lambda: Layout(PK_SK, (GSI, GSI)), "a name of its own"),
        (lambda: Layout(PK_SK, (Index("l", "other", "rank", local=True),)), "the table's"),
        (
            lambda: Layout(
                PK_SK, (Index("g", "pk", "sk2"), Index("h", "x", "sk2", types=("S", "N")))
            ),
            "typed S and N",
        ),
        (
            lambda: Layout(PK_SK, tuple(Index(f"g{n}", f"a{n}", f"b{n}") for n in range(21))),
            "20 global",
        ),
        (
            lambda: Layout(PK_SK, tuple(local_index(f"l{n}", PK_SK, f"s{n}") for n in range(6))),
            "5 local",
        ),
    ],
)
def test_a_layout_dynamodb_would_refuse_is_refused(make: Any, said: str) -> None:
    with pytest.raises(LayoutError, match=said):
        make()


def test_a_new_table_has_a_stream_of_new_and_old_images() -> None:
    # Subscriptions read each change with the item before and after it.
    assert create_table_request("dynagate")["StreamSpecification"] == {
        "StreamEnabled": True,
        "StreamViewType": "NEW_AND_OLD_IMAGES",
    }
