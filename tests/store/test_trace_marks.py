"""The trace a write leaves on its item for the events it causes (`store/trace_marks.py`):
pure, and checked against what DynamoDB Local accepts in `tests/gateway/test_traces.py`."""

from __future__ import annotations

from typing import Any

from keys.table import TABLE
from store.requests import put_request, transaction_put, update_request
from store.trace_marks import (
    TRACE_ATTRIBUTE,
    cause_of,
    marked_actions,
    marked_put,
    marked_update,
)

CAUSE = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
KEY = {"PK": "C#ada", "SK": "C#ada"}


def update(**given: Any) -> dict[str, Any]:
    return update_request("t", KEY, **given)


def test_a_conditional_put_carries_the_cause_and_an_untraced_one_none() -> None:
    put = put_request("t", {**KEY, "name": "Ada"}, new_on=TABLE)
    assert marked_put(put, CAUSE)["Item"][TRACE_ATTRIBUTE] == {"S": CAUSE}
    carried = marked_put(put, CAUSE)
    assert TRACE_ATTRIBUTE not in marked_put(carried, None)["Item"]
    assert TRACE_ATTRIBUTE not in put["Item"]  # the caller's request is left as it was


def test_an_unconditional_put_is_left_exactly_as_it_is() -> None:
    copy = put_request("t", {**KEY, "name": "Ada"})
    assert marked_put(copy, CAUSE) is copy


def test_an_update_sets_the_cause_first_in_its_set_clause() -> None:
    request = update(set_values={"status": "SHIPPED"}, remove=["gsi3pk"])
    marked = marked_update(request, CAUSE)
    assert marked["UpdateExpression"] == (
        "SET #dynagateTrace = :dynagateTrace, #status = :v0 REMOVE #gsi3pk"
    )
    assert marked["ExpressionAttributeNames"]["#dynagateTrace"] == TRACE_ATTRIBUTE
    assert marked["ExpressionAttributeValues"][":dynagateTrace"] == {"S": CAUSE}
    assert marked_update(marked, CAUSE) is marked  # once only
    assert "#dynagateTrace" not in request["ExpressionAttributeNames"]


def test_an_untraced_update_removes_what_an_earlier_write_left() -> None:
    both = update(set_values={"status": "SHIPPED"}, remove=["gsi3pk"])
    assert marked_update(both, None)["UpdateExpression"] == (
        "SET #status = :v0 REMOVE #dynagateTrace, #gsi3pk"
    )
    sets = update(set_values={"status": "SHIPPED"})
    assert marked_update(sets, None)["UpdateExpression"] == (
        "SET #status = :v0 REMOVE #dynagateTrace"
    )


def test_an_update_without_a_set_clause_gets_one() -> None:
    adds = update(add={"count": 1})
    assert marked_update(adds, CAUSE)["UpdateExpression"] == (
        "ADD #count :v0 SET #dynagateTrace = :dynagateTrace"
    )


def test_placeholders_and_lower_case_keywords_are_told_apart() -> None:
    request = {
        "UpdateExpression": "add #set :set set #a = :remove",
        "ConditionExpression": "attribute_exists(#pk)",
        "ExpressionAttributeNames": {"#set": "set", "#a": "a"},
        "ExpressionAttributeValues": {":set": {"N": "1"}, ":remove": {"S": "x"}},
    }
    assert marked_update(request, CAUSE)["UpdateExpression"] == (
        "add #set :set set #dynagateTrace = :dynagateTrace, #a = :remove"
    )
    assert marked_update(request, None)["UpdateExpression"] == (
        "add #set :set set #a = :remove REMOVE #dynagateTrace"
    )


def test_a_transaction_marks_its_conditional_puts_and_updates_only() -> None:
    actions = [
        transaction_put("t", {**KEY, "name": "Ada"}, new_on=TABLE),
        transaction_put("t", {"PK": "C#ada", "SK": "COPY#1"}),
        {"Update": update(set_values={"status": "SHIPPED"})},
        {"Delete": {"TableName": "t", "Key": KEY}},
    ]
    marked = marked_actions(actions, CAUSE)
    assert marked[0]["Put"]["Item"][TRACE_ATTRIBUTE] == {"S": CAUSE}
    assert marked[1] == actions[1]
    assert ":dynagateTrace" in marked[2]["Update"]["ExpressionAttributeValues"]
    assert marked[3] == actions[3]


def test_the_cause_is_read_from_an_image() -> None:
    assert cause_of({**KEY, TRACE_ATTRIBUTE: CAUSE}) == CAUSE
    assert cause_of(KEY) is None
    assert cause_of(None) is None
    assert cause_of({TRACE_ATTRIBUTE: 7}) is None
