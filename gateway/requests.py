"""Pure builders of DynamoDB request parameters (testable without a network).

Items cross this boundary as plain Python values; `to_attributes` / `from_attributes`
convert to and from DynamoDB's typed wire format.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

from keys.conditions import KeyCondition
from keys.table import TABLE

Item = dict[str, Any]
Key = dict[str, str]
BATCH_GET_LIMIT = 100

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def to_attributes(item: Mapping[str, Any]) -> dict[str, Any]:
    return {name: _serializer.serialize(_to_wire(value)) for name, value in item.items()}


def from_attributes(attributes: Mapping[str, Any]) -> Item:
    return {name: _from_wire(_deserializer.deserialize(v)) for name, v in attributes.items()}


def _to_wire(value: Any) -> Any:
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, list):
        return [_to_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_wire(v) for k, v in value.items()}
    return value


def _from_wire(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return [_from_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: _from_wire(v) for k, v in value.items()}
    return value


def query_request(
    table: str,
    condition: KeyCondition,
    *,
    forward: bool,
    limit: int | None = None,
    start_key: Key | None = None,
    filter_expression: str | None = None,
    filter_values: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    index = condition.index
    names = {"#pk": index.partition_key, "#sk": index.sort_key}
    values: dict[str, Any] = {":pk": condition.partition}
    expression = "#pk = :pk"
    if condition.begins_with is not None:
        expression += " AND begins_with(#sk, :prefix)"
        values[":prefix"] = condition.begins_with
    elif condition.low is not None and condition.high is not None:
        expression += " AND #sk BETWEEN :low AND :high"
        values.update({":low": condition.low, ":high": condition.high})
    elif condition.low is not None:
        expression += " AND #sk >= :low"
        values[":low"] = condition.low
    elif condition.high is not None:
        expression += " AND #sk <= :high"
        values[":high"] = condition.high
    else:
        del names["#sk"]
    if filter_expression is not None:
        values.update(filter_values or {})
    request: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": expression,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": to_attributes(values),
        "ScanIndexForward": forward,
        "ReturnConsumedCapacity": "TOTAL",
    }
    if index.name is not None:
        request["IndexName"] = index.name
    if limit is not None:
        request["Limit"] = limit
    if start_key is not None:
        request["ExclusiveStartKey"] = to_attributes(start_key)
    if filter_expression is not None:
        request["FilterExpression"] = filter_expression
    return request


def batch_get_requests(table: str, keys: Sequence[Key]) -> list[dict[str, Any]]:
    """One BatchGetItem request per 100 distinct keys."""
    distinct = list({(k[TABLE.partition_key], k[TABLE.sort_key]): k for k in keys}.values())
    return [
        {
            "RequestItems": {
                table: {"Keys": [to_attributes(k) for k in distinct[i : i + BATCH_GET_LIMIT]]}
            },
            "ReturnConsumedCapacity": "TOTAL",
        }
        for i in range(0, len(distinct), BATCH_GET_LIMIT)
    ]


def get_request(table: str, key: Key, *, consistent: bool = False) -> dict[str, Any]:
    return {
        "TableName": table,
        "Key": to_attributes(key),
        "ConsistentRead": consistent,
        "ReturnConsumedCapacity": "TOTAL",
    }


def put_request(
    table: str, item: Mapping[str, Any], *, must_be_new: bool = False
) -> dict[str, Any]:
    request: dict[str, Any] = {"TableName": table, "Item": to_attributes(item)}
    if must_be_new:
        request["ConditionExpression"] = "attribute_not_exists(#pk)"
        request["ExpressionAttributeNames"] = {"#pk": TABLE.partition_key}
    return request


def update_request(
    table: str,
    key: Key,
    *,
    set_values: Mapping[str, Any],
    remove: Iterable[str] = (),
    condition: str | None = None,
    condition_values: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An UpdateItem that sets and removes attributes, guarded by `condition`.

    Attribute names are aliased as `#<name>` so reserved words such as `status` are safe;
    `condition` may use `#<name>` for any name in `set_values` or `remove`, and `#pk`.
    """
    names = {"#pk": TABLE.partition_key}
    values: dict[str, Any] = dict(condition_values or {})
    assignments = []
    for position, (name, value) in enumerate(set_values.items()):
        names[f"#{name}"] = name
        values[f":v{position}"] = value
        assignments.append(f"#{name} = :v{position}")
    removals = []
    for name in remove:
        names[f"#{name}"] = name
        removals.append(f"#{name}")
    expression = "SET " + ", ".join(assignments)
    if removals:
        expression += " REMOVE " + ", ".join(removals)
    request: dict[str, Any] = {
        "TableName": table,
        "Key": to_attributes(key),
        "UpdateExpression": expression,
        "ConditionExpression": "attribute_exists(#pk)"
        + ("" if condition is None else f" AND ({condition})"),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": to_attributes(values),
        "ReturnValues": "ALL_NEW",
        "ReturnConsumedCapacity": "TOTAL",
    }
    return request


def condition_check(table: str, key: Key, *, exists: bool) -> dict[str, Any]:
    """A TransactWriteItems ConditionCheck that `key` exists (or does not)."""
    function = "attribute_exists" if exists else "attribute_not_exists"
    return {
        "ConditionCheck": {
            "TableName": table,
            "Key": to_attributes(key),
            "ConditionExpression": f"{function}(#pk)",
            "ExpressionAttributeNames": {"#pk": TABLE.partition_key},
        }
    }
