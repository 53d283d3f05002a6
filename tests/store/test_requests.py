"""The pure request builders of `store.requests`: request dicts compared without a network."""

from __future__ import annotations

from typing import Any

import pytest
from boto3.dynamodb.types import TypeDeserializer
from hypothesis import given, settings
from hypothesis import strategies as st

from keys.codecs import KEY_MAX
from keys.conditions import KeyCondition
from keys.table import GSI1, GSI3, TABLE
from store.requests import (
    BATCH_GET_LIMIT,
    Filter,
    _from_wire,
    batch_get_requests,
    condition_check,
    from_attributes,
    put_request,
    query_request,
    to_attributes,
    update_request,
)

T = "tbl"


def test_prefix_is_begins_with_on_the_sort_key() -> None:
    condition = KeyCondition.prefix(GSI1, "CUSTOMER#alice", "ORDER#")
    assert query_request(T, condition, forward=False) == {
        "TableName": T,
        "IndexName": "GSI1",
        "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :prefix)",
        "ExpressionAttributeNames": {"#pk": "GSI1PK", "#sk": "GSI1SK"},
        "ExpressionAttributeValues": {
            ":pk": {"S": "CUSTOMER#alice"},
            ":prefix": {"S": "ORDER#"},
        },
        "ScanIndexForward": False,
        "ReturnConsumedCapacity": "TOTAL",
    }


def test_both_ends_are_between() -> None:
    request = query_request(T, KeyCondition(TABLE, "P", "A#1", "A#9"), forward=True)
    assert request["KeyConditionExpression"] == "#pk = :pk AND #sk BETWEEN :low AND :high"
    assert request["ExpressionAttributeNames"] == {"#pk": "PK", "#sk": "SK"}
    assert request["ExpressionAttributeValues"] == {
        ":pk": {"S": "P"},
        ":low": {"S": "A#1"},
        ":high": {"S": "A#9"},
    }
    assert request["ScanIndexForward"] is True


def test_an_interval_that_is_not_a_prefix_stays_between() -> None:
    # `high` is KEY_MAX past a different string than `low`: a range, not a prefix.
    request = query_request(T, KeyCondition(TABLE, "P", "A#1", "A#2" + KEY_MAX), forward=True)
    assert "BETWEEN" in request["KeyConditionExpression"]
    assert ":prefix" not in request["ExpressionAttributeValues"]


@pytest.mark.parametrize(
    ("low", "high", "expression", "values"),
    [
        ("A#1", None, "#pk = :pk AND #sk >= :low", {":low": {"S": "A#1"}}),
        (None, "A#9", "#pk = :pk AND #sk <= :high", {":high": {"S": "A#9"}}),
    ],
)
def test_one_end_is_a_comparison(
    low: str | None, high: str | None, expression: str, values: dict[str, Any]
) -> None:
    request = query_request(T, KeyCondition(TABLE, "P", low, high), forward=True)
    assert request["KeyConditionExpression"] == expression
    assert request["ExpressionAttributeValues"] == {":pk": {"S": "P"}, **values}
    assert request["ExpressionAttributeNames"] == {"#pk": "PK", "#sk": "SK"}


def test_no_sort_bound_names_only_the_partition_key() -> None:
    request = query_request(T, KeyCondition(GSI3, "OPEN"), forward=True)
    assert request["KeyConditionExpression"] == "#pk = :pk"
    # DynamoDB refuses a name that the expressions do not use.
    assert request["ExpressionAttributeNames"] == {"#pk": "GSI3PK"}
    assert request["ExpressionAttributeValues"] == {":pk": {"S": "OPEN"}}
    assert request["IndexName"] == "GSI3"


def test_the_table_itself_has_no_index_name() -> None:
    request = query_request(T, KeyCondition(TABLE, "P"), forward=True)
    assert "IndexName" not in request
    assert request["TableName"] == T


def test_limit_start_key_and_filter() -> None:
    request = query_request(
        T,
        KeyCondition(GSI1, "P", "A", "B"),
        forward=True,
        limit=21,
        start_key={"PK": "x", "SK": "y", "GSI1PK": "P", "GSI1SK": "A#5"},
        filter=Filter("rating IN (:r1, :r2)", {":r1": 4, ":r2": 5}),
    )
    assert request["Limit"] == 21
    assert request["ExclusiveStartKey"] == {
        "PK": {"S": "x"},
        "SK": {"S": "y"},
        "GSI1PK": {"S": "P"},
        "GSI1SK": {"S": "A#5"},
    }
    assert request["FilterExpression"] == "rating IN (:r1, :r2)"
    assert request["ExpressionAttributeValues"][":r1"] == {"N": "4"}
    assert request["ExpressionAttributeValues"][":r2"] == {"N": "5"}


def test_no_limit_start_key_or_filter_unless_asked() -> None:
    request = query_request(T, KeyCondition(TABLE, "P"), forward=True)
    for absent in ("Limit", "ExclusiveStartKey", "FilterExpression"):
        assert absent not in request
    assert request["ExpressionAttributeValues"] == {":pk": {"S": "P"}}


def test_batch_get_chunks_250_keys_into_three_requests() -> None:
    keys = [{"PK": f"P#{n % 7}", "SK": f"S#{n}"} for n in range(250)]
    requests = batch_get_requests(T, keys)
    sizes = [len(r["RequestItems"][T]["Keys"]) for r in requests]
    assert sizes == [100, 100, 50]
    assert all(size <= BATCH_GET_LIMIT for size in sizes)
    sent = [from_attributes(k) for r in requests for k in r["RequestItems"][T]["Keys"]]
    assert sent == keys
    assert all(r["ReturnConsumedCapacity"] == "TOTAL" for r in requests)
    assert all(list(r["RequestItems"]) == [T] for r in requests)


def test_batch_get_sends_each_key_once() -> None:
    # DynamoDB refuses a BatchGetItem that names a key twice.
    keys = [{"PK": "P", "SK": f"S#{n % 120}"} for n in range(300)]
    requests = batch_get_requests(T, keys)
    sent = [from_attributes(k) for r in requests for k in r["RequestItems"][T]["Keys"]]
    assert len(sent) == 120
    assert sent == [{"PK": "P", "SK": f"S#{n}"} for n in range(120)]
    assert [len(r["RequestItems"][T]["Keys"]) for r in requests] == [100, 20]


def test_batch_get_of_nothing_sends_nothing() -> None:
    assert batch_get_requests(T, []) == []


def test_update_aliases_reserved_words_and_builds_set_remove_and_condition() -> None:
    request = update_request(
        T,
        {"PK": "ORDER#1", "SK": "ORDER#1"},
        set_values={"status": "SHIPPED", "updatedAt": "2021-01-01T00:00:00.000Z"},
        remove=["GSI3PK", "GSI3SK"],
        condition="#status = :current",
        condition_values={":current": "PLACED"},
    )
    assert request["TableName"] == T
    assert request["Key"] == {"PK": {"S": "ORDER#1"}, "SK": {"S": "ORDER#1"}}
    assert request["UpdateExpression"] == (
        "SET #status = :v0, #updatedAt = :v1 REMOVE #GSI3PK, #GSI3SK"
    )
    assert request["ConditionExpression"] == "attribute_exists(#pk) AND (#status = :current)"
    assert request["ExpressionAttributeNames"] == {
        "#pk": "PK",
        "#status": "status",
        "#updatedAt": "updatedAt",
        "#GSI3PK": "GSI3PK",
        "#GSI3SK": "GSI3SK",
    }
    assert request["ExpressionAttributeValues"] == {
        ":current": {"S": "PLACED"},
        ":v0": {"S": "SHIPPED"},
        ":v1": {"S": "2021-01-01T00:00:00.000Z"},
    }
    assert request["ReturnValues"] == "ALL_NEW"
    assert request["ReturnConsumedCapacity"] == "TOTAL"


def test_update_without_condition_or_removals_only_requires_existence() -> None:
    request = update_request(T, {"PK": "a", "SK": "b"}, set_values={"count": 3})
    assert request["UpdateExpression"] == "SET #count = :v0"
    assert request["ConditionExpression"] == "attribute_exists(#pk)"
    assert request["ExpressionAttributeNames"] == {"#pk": "PK", "#count": "count"}
    assert request["ExpressionAttributeValues"] == {":v0": {"N": "3"}}


def test_put_must_be_new_is_conditional_on_the_partition_key() -> None:
    item = {"PK": "C#a", "SK": "C#a", "name": "Alice", "n": 2}
    assert put_request(T, item, new_on=TABLE) == {
        "TableName": T,
        "Item": {"PK": {"S": "C#a"}, "SK": {"S": "C#a"}, "name": {"S": "Alice"}, "n": {"N": "2"}},
        "ConditionExpression": "attribute_not_exists(#pk)",
        "ExpressionAttributeNames": {"#pk": "PK"},
    }


def test_plain_put_is_unconditional() -> None:
    request = put_request(T, {"PK": "a", "SK": "b"})
    assert request == {"TableName": T, "Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}}


@pytest.mark.parametrize(
    ("exists", "function"), [(True, "attribute_exists"), (False, "attribute_not_exists")]
)
def test_condition_check(exists: bool, function: str) -> None:
    assert condition_check(T, {"PK": "C#a", "SK": "C#a"}, exists=exists) == {
        "ConditionCheck": {
            "TableName": T,
            "Key": {"PK": {"S": "C#a"}, "SK": {"S": "C#a"}},
            "ConditionExpression": f"{function}(#pk)",
            "ExpressionAttributeNames": {"#pk": "PK"},
        }
    }


def test_attributes_round_trip() -> None:
    item: dict[str, Any] = {
        "PK": "P",
        "int": 42,
        "negative": -7,
        "big": 10**18,
        "zero": 0,
        "float": 0.1,
        "float_whole": 2.5,
        "text": "héllo #/~",
        "empty_list": [],
        "list": [1, "two", 3.25, [4, {"five": 5}]],
        "map": {"a": {"b": [True, None]}, "c": 1.5},
        "yes": True,
        "no": False,
        "nothing": None,
    }
    wire = to_attributes(item)
    assert wire["int"] == {"N": "42"}
    assert wire["float"] == {"N": "0.1"}
    assert wire["yes"] == {"BOOL": True}
    assert wire["nothing"] == {"NULL": True}
    assert wire["list"]["L"][0] == {"N": "1"}
    back = from_attributes(wire)
    assert back == item
    assert type(back["int"]) is int
    assert type(back["big"]) is int
    assert type(back["float"]) is float
    assert type(back["map"]["c"]) is float
    assert type(back["list"][3][1]["five"]) is int
    assert back["yes"] is True
    assert back["nothing"] is None


def test_a_float_with_an_integral_value_comes_back_as_an_int() -> None:
    # DynamoDB has one number type; 3.0 and 3 are the same number on the wire.
    assert from_attributes(to_attributes({"x": 3.0})) == {"x": 3}


# Every attribute value DynamoDB can send, numbers as it writes them (up to 38 digits, any
# exponent it allows, signs, trailing zeros).
_numbers = st.one_of(
    st.integers(-(10**38) + 1, 10**38 - 1).map(str),
    st.decimals(allow_nan=False, allow_infinity=False, places=None)
    .filter(lambda d: len(d.as_tuple().digits) <= 38 and (d.is_zero() or -130 < d.adjusted() < 126))
    .map(str),
    st.sampled_from(["0", "-0", "1.0", "1E+3", "-2.50", "1e-3", "100.000"]),
)
_attributes = st.recursive(
    st.one_of(
        st.builds(lambda s: {"S": s}, st.text(max_size=20)),
        st.builds(lambda n: {"N": n}, _numbers),
        st.builds(lambda b: {"BOOL": b}, st.booleans()),
        st.just({"NULL": True}),
        st.builds(lambda b: {"B": b}, st.binary(max_size=8)),
        st.builds(lambda s: {"SS": sorted(s)}, st.sets(st.text(max_size=5), min_size=1)),
        st.builds(lambda s: {"NS": sorted(s)}, st.sets(_numbers, min_size=1, max_size=4)),
    ),
    lambda inner: st.one_of(
        st.builds(lambda v: {"L": v}, st.lists(inner, max_size=4)),
        st.builds(lambda v: {"M": v}, st.dictionaries(st.text(max_size=5), inner, max_size=4)),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(item=st.dictionaries(st.text(max_size=8), _attributes, max_size=6))
def test_items_decode_as_boto3_reads_them(item: dict[str, Any]) -> None:
    """The direct decoder agrees with boto3's deserializer followed by the number rule."""
    expected = {name: _from_wire(TypeDeserializer().deserialize(v)) for name, v in item.items()}
    decoded = from_attributes(item)
    assert decoded == expected
    assert _types(decoded) == _types(expected)


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value)
