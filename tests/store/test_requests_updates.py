"""Update, transaction and filtered-query builders of `store.requests`, and the store's
refill of a filtered Query.

The builders are compared as dicts without a network; a few requests are then sent to
DynamoDB Local, which enforces rules a dict comparison cannot see (no empty expression
maps, no ReturnValues inside a transaction, reserved words only through aliases).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest
from botocore.exceptions import ClientError
from hypothesis import given
from hypothesis import strategies as st

from keys.conditions import KeyCondition
from keys.table import GSI3, TABLE
from store.client import Store
from store.errors import TransactionCanceled
from store.requests import (
    Filter,
    put_request,
    query_request,
    to_attributes,
    transaction_delete,
    transaction_update,
    update_request,
)
from tests.keys.strategies import FAST
from tests.table import scan_all

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient

T = "tbl"
KEY = {"PK": "ORG#acme", "SK": "ORG#acme"}
WIRE_KEY = {"PK": {"S": "ORG#acme"}, "SK": {"S": "ORG#acme"}}


# ---- update_request ----------------------------------------------------------------------


def test_add_values_are_numbered_after_the_set_values() -> None:
    request = update_request(
        T,
        KEY,
        set_values={"status": "OPEN", "updatedAt": "2021-01-01T00:00:00.000Z"},
        add={"starCount": 1, "teamCount": -1},
        remove=["GSI3PK"],
        condition="#teamCount < :most",
        condition_values={":most": 100},
    )
    assert request["UpdateExpression"] == (
        "SET #status = :v0, #updatedAt = :v1 ADD #starCount :v2, #teamCount :v3 REMOVE #GSI3PK"
    )
    assert request["ExpressionAttributeNames"] == {
        "#pk": "PK",
        "#status": "status",
        "#updatedAt": "updatedAt",
        "#starCount": "starCount",
        "#teamCount": "teamCount",
        "#GSI3PK": "GSI3PK",
    }
    assert request["ExpressionAttributeValues"] == {
        ":most": {"N": "100"},
        ":v0": {"S": "OPEN"},
        ":v1": {"S": "2021-01-01T00:00:00.000Z"},
        ":v2": {"N": "1"},
        ":v3": {"N": "-1"},
    }
    assert request["ConditionExpression"] == "attribute_exists(#pk) AND (#teamCount < :most)"


def test_an_update_that_only_adds() -> None:
    assert update_request(T, KEY, add={"starCount": -1}) == {
        "TableName": T,
        "Key": WIRE_KEY,
        "UpdateExpression": "ADD #starCount :v0",
        "ConditionExpression": "attribute_exists(#pk)",
        "ExpressionAttributeNames": {"#pk": "PK", "#starCount": "starCount"},
        "ExpressionAttributeValues": {":v0": {"N": "-1"}},
        "ReturnValues": "ALL_NEW",
        "ReturnConsumedCapacity": "TOTAL",
    }


def test_an_update_that_only_removes() -> None:
    request = update_request(T, KEY, remove=GSI3.attributes)
    assert request["UpdateExpression"] == "REMOVE #GSI3PK, #GSI3SK"
    assert request["ConditionExpression"] == "attribute_exists(#pk)"
    assert request["ExpressionAttributeNames"] == {
        "#pk": "PK",
        "#GSI3PK": "GSI3PK",
        "#GSI3SK": "GSI3SK",
    }
    # DynamoDB refuses an empty ExpressionAttributeValues ("must not be empty"): with no
    # value to pass, the map must be left out.
    assert request.get("ExpressionAttributeValues") != {}, "an empty ExpressionAttributeValues"
    with_condition = update_request(
        T, KEY, remove=["x"], condition="#x = :old", condition_values={":old": 1}
    )
    assert with_condition["ExpressionAttributeValues"] == {":old": {"N": "1"}}


@pytest.mark.parametrize(
    "nothing",
    [{}, {"set_values": {}}, {"add": {}, "remove": []}, {"condition": "#pk = :x"}],
)
def test_an_update_of_nothing_is_a_value_error(nothing: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        update_request(T, KEY, **nothing)


# `pk` is left out: `#pk` is the builder's own alias of the partition key.
names = st.from_regex(r"[a-z][A-Za-z0-9]{0,8}", fullmatch=True).filter(lambda n: n != "pk")


@FAST
@given(
    st.dictionaries(names, st.text(max_size=5), max_size=4),
    st.dictionaries(names, st.integers(-5, 5), max_size=4),
    st.lists(names, max_size=3, unique=True),
)
def test_every_placeholder_is_defined_and_every_definition_used(
    set_values: dict[str, str], add: dict[str, int], remove: list[str]
) -> None:
    # An attribute is changed by one clause only (DynamoDB refuses overlapping paths).
    add = {k: v for k, v in add.items() if k not in set_values}
    remove = [n for n in remove if n not in set_values and n not in add]
    if not (set_values or add or remove):
        with pytest.raises(ValueError):
            update_request(T, KEY, set_values=set_values, add=add, remove=remove)
        return
    request = update_request(T, KEY, set_values=set_values, add=add, remove=remove)
    text = request["UpdateExpression"] + " " + request["ConditionExpression"]
    assert set(re.findall(r"#\w+", text)) == set(request["ExpressionAttributeNames"])
    assert all(request["ExpressionAttributeNames"][f"#{n}"] == n for n in [*set_values, *add])
    values = request.get("ExpressionAttributeValues", {})
    assert set(re.findall(r":\w+", text)) == set(values)
    assert list(values) == [f":v{i}" for i in range(len(set_values) + len(add))]
    assert [values[f":v{i}"] for i in range(len(set_values))] == list(
        to_attributes(set_values).values()
    )


# ---- transactions ------------------------------------------------------------------------


def test_transaction_update_drops_what_transactions_refuse_and_keeps_the_rest() -> None:
    request = update_request(
        T, KEY, add={"teamCount": 1}, condition="#teamCount < :most", condition_values={":most": 9}
    )
    action = transaction_update({**request, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})
    kept = {k: v for k, v in request.items() if k not in {"ReturnValues", "ReturnConsumedCapacity"}}
    assert action == {"Update": {**kept, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}
    assert set(kept) == {
        "TableName",
        "Key",
        "UpdateExpression",
        "ConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    }
    assert request["ReturnValues"] == "ALL_NEW"  # the request itself is left as it was


def test_transaction_delete() -> None:
    assert transaction_delete(T, KEY) == {"Delete": {"TableName": T, "Key": WIRE_KEY}}
    assert transaction_delete(T, KEY, must_exist=True) == {
        "Delete": {
            "TableName": T,
            "Key": WIRE_KEY,
            "ConditionExpression": "attribute_exists(#pk)",
            "ExpressionAttributeNames": {"#pk": "PK"},
        }
    }


# ---- query_request with filter names -----------------------------------------------------


def test_filter_names_join_the_key_names() -> None:
    condition = KeyCondition.prefix(TABLE, "REPO#a#b", "ISSUE#")
    request = query_request(
        T,
        condition,
        forward=False,
        filter=Filter(
            "#state = :state OR #type = :repo",
            {":state": "OPEN", ":repo": "REPO"},
            {"#state": "state", "#type": "type"},
        ),
    )
    assert request["ExpressionAttributeNames"] == {
        "#pk": "PK",
        "#sk": "SK",
        "#state": "state",
        "#type": "type",
    }
    assert request["FilterExpression"] == "#state = :state OR #type = :repo"
    assert request["ExpressionAttributeValues"][":repo"] == {"S": "REPO"}
    unfiltered = query_request(T, condition, forward=True)
    assert unfiltered["ExpressionAttributeNames"] == {"#pk": "PK", "#sk": "SK"}
    bare = query_request(
        T,
        KeyCondition(TABLE, "P"),
        forward=True,
        filter=Filter("#s = :s", {":s": 1}, {"#s": "status"}),
    )
    assert bare["ExpressionAttributeNames"] == {"#pk": "PK", "#s": "status"}


# ---- against DynamoDB Local --------------------------------------------------------------


async def test_the_built_updates_are_accepted_by_dynamodb(
    client: DynamoDBClient, table: str
) -> None:
    store = Store(client, table)
    await store.put(put_request(table, {**KEY, "teamCount": 1, "GSI3PK": "a", "GSI3SK": "b"}))
    added = await store.update(update_request(table, KEY, add={"teamCount": 2}))
    assert added["teamCount"] == 3
    member = {"PK": "ORG#acme", "SK": "USER#bob"}
    await store.put(put_request(table, member))
    await store.transact(
        [
            transaction_update(update_request(table, KEY, add={"teamCount": -1})),
            transaction_delete(table, member, must_exist=True),
        ]
    )
    with pytest.raises(TransactionCanceled) as raised:
        await store.transact(
            [
                transaction_update(update_request(table, KEY, add={"teamCount": -1})),
                transaction_delete(table, member, must_exist=True),
            ]
        )
    assert raised.value.reasons == ["None", "ConditionalCheckFailed"]
    assert await scan_all(client, table) == [{**KEY, "teamCount": 2, "GSI3PK": "a", "GSI3SK": "b"}]


async def test_an_update_that_only_removes_is_accepted_by_dynamodb(
    client: DynamoDBClient, table: str
) -> None:
    store = Store(client, table)
    await store.put(put_request(table, {**KEY, "teamCount": 1, "GSI3PK": "a", "GSI3SK": "b"}))
    try:
        removed = await store.update(update_request(table, KEY, remove=GSI3.attributes))
    except ClientError as exc:
        pytest.fail(f"DynamoDB refused a remove-only update_request: {exc}")
    assert removed == {**KEY, "teamCount": 1}


MATCH = {"#status": "status"}  # a reserved word: it only works through the alias


async def _fill(client: DynamoDBClient, table: str, partition: str, matches: set[int]) -> None:
    items = [
        {"PK": partition, "SK": f"S#{n:03d}", "status": "HIT" if n in matches else "MISS"}
        for n in range(200)
    ]
    for start in range(0, len(items), 25):
        chunk = items[start : start + 25]
        await client.batch_write_item(
            RequestItems={table: [{"PutRequest": {"Item": to_attributes(i)}} for i in chunk]}
        )


async def _hits(
    store: Store, partition: str, forward: bool, start: dict[str, str] | None = None
) -> tuple[list[str], dict[str, str] | None]:
    result = await store.query(
        KeyCondition(TABLE, partition),
        forward=forward,
        limit=2,
        start_key=start,
        filter=Filter("#status = :hit", {":hit": "HIT"}, MATCH),
    )
    return [i["SK"] for i in result.items], result.last_key


@pytest.mark.parametrize("forward", [True, False])
async def test_a_filtered_query_refills_until_the_limit_in_few_requests(
    client: DynamoDBClient, table: str, forward: bool
) -> None:
    spread = {17, 101, 188}
    await _fill(client, table, "F", spread)
    order = sorted(f"S#{n:03d}" for n in spread)
    if not forward:
        order.reverse()
    store = Store(client, table)
    found, last_key = await _hits(store, "F", forward)
    assert found == order[:2]
    assert store.cost.requests < 10, store.cost.as_dict()
    assert store.cost.items_returned == 2
    # Where to go on: at or past the second match, short of the third, so nothing is lost.
    assert last_key is not None and last_key["PK"] == "F"
    low, high = sorted([order[1], order[2]])
    assert low <= last_key["SK"] < high if forward else low < last_key["SK"] <= high
    rest, end = await _hits(store, "F", forward, last_key)
    assert (rest, end) == ([order[2]], None)


async def test_matches_past_the_limit_are_dropped_and_the_page_ends_at_the_last_kept(
    client: DynamoDBClient, table: str
) -> None:
    # Three neighbours: the refill that finds the first finds all three.
    await _fill(client, table, "G", {17, 18, 19})
    store = Store(client, table)
    found, last_key = await _hits(store, "G", True)
    assert found == ["S#017", "S#018"]
    assert last_key == {"PK": "G", "SK": "S#018"}
    assert await _hits(store, "G", True, last_key) == (["S#019"], None)
