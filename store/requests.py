"""Pure builders of DynamoDB request parameters (testable without a network).

Items cross this boundary as plain Python values; `to_attributes` / `from_attributes`
(`store/wire.py`) convert to and from DynamoDB's typed wire format.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from keys.conditions import KeyCondition
from keys.table import Index
from store.wire import _from_wire as _from_wire
from store.wire import from_attributes as from_attributes
from store.wire import to_attributes as to_attributes

Item = dict[str, Any]
Key = dict[str, str]
BATCH_GET_LIMIT = 100
# The token of the call that last wrote an item with a `token`. Botocore resends a write
# whose answer was lost; when the first attempt was applied, the resend fails its condition,
# and the token on the stored item that comes back with the refusal says it was this call.
WRITE_TOKEN = "writeToken"


def page_key(item: Item, attributes: Iterable[str]) -> Key:
    """The key of `item` as a LastEvaluatedKey / ExclusiveStartKey: its `attributes` (the
    layout's `page_key_attributes` of the index read)."""
    return {a: str(item[a]) for a in attributes}  # a number key's digits, as cursors hold keys


def _typed(index: Index, attribute: str, value: Any) -> Any:
    """A key value as its attribute is typed: the digits of a number key (`N`) as a number
    (keys, bounds and cursors carry every key as text)."""
    if value is None or attribute not in index.attributes or index.type_of(attribute) != "N":
        return value
    return int(value)


@dataclass(frozen=True)
class Filter:
    """A FilterExpression, for the few collections a seed justifies one on."""

    expression: str
    values: Mapping[str, Any]
    names: Mapping[str, str] = field(default_factory=dict)
    # Whether the parent item passes too. DynamoDB filters cannot name key attributes, so
    # only the caller can say; a page whose filter would drop it is read without it.
    passes_parent: bool = False
    # The filter of a read the parent is not part of, where passing it is looser than asked.
    apart: Filter | None = None


def query_request(
    table: str,
    condition: KeyCondition,
    *,
    forward: bool,
    limit: int | None = None,
    start_key: Key | None = None,
    filter: Filter | None = None,
) -> dict[str, Any]:
    """A Query over `condition`; a filter may alias attribute names other than `#pk`/`#sk`."""
    index = condition.index
    names = {"#pk": index.partition_key, "#sk": index.sort_key}
    values: dict[str, Any] = {":pk": _typed(index, index.partition_key, condition.partition)}
    expression = "#pk = :pk"
    low, high = (_typed(index, index.sort_key, b) for b in (condition.low, condition.high))
    if condition.begins_with is not None:
        expression += " AND begins_with(#sk, :prefix)"
        values[":prefix"] = condition.begins_with
    elif low is not None and high is not None:
        expression += " AND #sk BETWEEN :low AND :high"
        values.update({":low": low, ":high": high})
    elif low is not None:
        expression += " AND #sk >= :low"
        values[":low"] = low
    elif high is not None:
        expression += " AND #sk <= :high"
        values[":high"] = high
    else:
        del names["#sk"]
    if filter is not None:
        values.update(filter.values)
        names.update(filter.names)
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
        typed = {name: _typed(index, name, value) for name, value in start_key.items()}
        request["ExclusiveStartKey"] = to_attributes(typed)
    if filter is not None:
        request["FilterExpression"] = filter.expression
    return request


def batch_get_requests(table: str, keys: Sequence[Key]) -> list[dict[str, Any]]:
    """One BatchGetItem request per 100 distinct keys."""
    distinct = list({tuple(sorted(k.items())): k for k in keys}.values())
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
    table: str, item: Mapping[str, Any], *, new_on: Index | None = None, token: str | None = None
) -> dict[str, Any]:
    """A PutItem; `new_on` (the table's layout) makes it refuse to replace an item of the
    same key; with a `token`, the item carries it (`WRITE_TOKEN`) and a failed condition
    brings the stored item back."""
    stored = item if token is None else {**item, WRITE_TOKEN: token}
    request: dict[str, Any] = {"TableName": table, "Item": to_attributes(stored)}
    if new_on is not None:
        request.update(_existence(primary_key(item, new_on), exists=False))
    if token is not None:
        request["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return request


def transaction_put(
    table: str, item: Mapping[str, Any], *, new_on: Index | None = None
) -> dict[str, Any]:
    """A `put_request` as a TransactWriteItems action."""
    return {"Put": put_request(table, item, new_on=new_on)}


def scan_request(
    table: str,
    segment: int,
    segments: int,
    *,
    partition_prefix: tuple[str, str] | None = None,
    start: Mapping[str, Any] | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """One page of one segment of a parallel, consistent Scan, keeping the partitions that
    start with `partition_prefix` (the partition key's name, and the prefix) if given
    (admin tools only: a Scan is never on the request path). `start` is the previous
    page's LastEvaluatedKey as DynamoDB returned it; `limit` the most items the page
    evaluates."""
    request: dict[str, Any] = {
        "TableName": table,
        "Segment": segment,
        "TotalSegments": segments,
        "ConsistentRead": True,
    }
    if partition_prefix is not None:
        partition_key, prefix = partition_prefix
        request["FilterExpression"] = "begins_with(#pk, :prefix)"
        request["ExpressionAttributeNames"] = {"#pk": partition_key}
        request["ExpressionAttributeValues"] = to_attributes({":prefix": prefix})
    if limit is not None:
        request["Limit"] = limit
    if start is not None:
        request["ExclusiveStartKey"] = dict(start)
    return request


def update_request(
    table: str,
    key: Key,
    *,
    set_values: Mapping[str, Any] | None = None,
    add: Mapping[str, int] | None = None,
    remove: Iterable[str] = (),
    condition: str | None = None,
    condition_values: Mapping[str, Any] | None = None,
    expect: Mapping[str, Any] | None = None,
    absent: Iterable[str] = (),
    old_on_failure: bool = False,
    token: str | None = None,
) -> dict[str, Any]:
    """An UpdateItem that sets, adds to and removes attributes, guarded by `condition`;
    `expect` adds that the stored item holds those values (an author, say), `absent` that
    it lacks those attributes;
    `old_on_failure` asks DynamoDB for the stored item when the condition fails. A `token`
    is set on the item (`WRITE_TOKEN`) and implies `old_on_failure`.

    Attribute names are aliased as `#<name>` so reserved words such as `status` are safe;
    `condition` may use `#<name>` for any name in `set_values`, `add` or `remove`, and `#pk`.
    The item must exist: an update never creates one.
    """
    names = {"#pk": _present(key)}
    values: dict[str, Any] = dict(condition_values or {})
    sets = {**(set_values or {}), **({} if token is None else {WRITE_TOKEN: token})}
    clauses = []
    position = 0
    for verb, changes in (("SET", sets), ("ADD", add or {})):
        parts = []
        for name, value in changes.items():
            names[f"#{name}"] = name
            values[f":v{position}"] = value
            parts.append(f"#{name} = :v{position}" if verb == "SET" else f"#{name} :v{position}")
            position += 1
        if parts:
            clauses.append(f"{verb} " + ", ".join(parts))
    removals = []
    for name in remove:
        names[f"#{name}"] = name
        removals.append(f"#{name}")
    if removals:
        clauses.append("REMOVE " + ", ".join(removals))
    if not clauses:
        raise ValueError("an update needs something to set, add or remove")
    conditions = ["attribute_exists(#pk)"] + ([] if condition is None else [f"({condition})"])
    if expect:
        expression, expected_names, equal = _equalities(expect)
        conditions.append(expression)
        names.update(expected_names)
        values.update(equal)
    for name in absent:
        names[f"#{name}"] = name
        conditions.append(f"attribute_not_exists(#{name})")
    request: dict[str, Any] = {
        "TableName": table,
        "Key": to_attributes(key),
        "UpdateExpression": " ".join(clauses),
        "ConditionExpression": " AND ".join(conditions),
        "ExpressionAttributeNames": names,
        "ReturnValues": "ALL_NEW",
        "ReturnConsumedCapacity": "TOTAL",
    }
    if values:  # DynamoDB refuses an empty map (an update that only removes)
        request["ExpressionAttributeValues"] = to_attributes(values)
    if old_on_failure or token is not None:
        request["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return request


def transaction_update(request: Mapping[str, Any]) -> dict[str, Any]:
    """An `update_request` as a TransactWriteItems action (which returns nothing)."""
    unsupported = {"ReturnValues", "ReturnConsumedCapacity"}
    return {"Update": {k: v for k, v in request.items() if k not in unsupported}}


def transaction_delete(table: str, key: Key, *, must_exist: bool = False) -> dict[str, Any]:
    delete: dict[str, Any] = {"TableName": table, "Key": to_attributes(key)}
    if must_exist:
        delete.update(_existence(key, exists=True))
    return {"Delete": delete}


def expecting(
    action: Mapping[str, Any],
    values: Mapping[str, Any],
    *,
    absent: Iterable[str] = (),
    old_on_failure: bool = False,
) -> dict[str, Any]:
    """A transaction's Put, Delete or ConditionCheck `action` that applies only while the
    stored item holds `values` (an optimistic lock on `version`, an author) and lacks the
    attributes `absent`, on top of any condition it has; `old_on_failure` brings the
    stored item back with a refusal."""
    ((kind, body),) = action.items()
    terms: list[str] = []
    names: dict[str, str] = {}
    equal: dict[str, Any] = {}
    if values:
        expression, names, equal = _equalities(values)
        terms.append(expression)
    for name in absent:
        names[f"#{name}"] = name
        terms.append(f"attribute_not_exists(#{name})")
    if not terms:
        raise ValueError("a condition needs at least one attribute to compare")
    if "ConditionExpression" in body:
        terms.insert(0, f"({body['ConditionExpression']})")
    changed = {
        **body,
        "ConditionExpression": " AND ".join(terms),
        "ExpressionAttributeNames": {**body.get("ExpressionAttributeNames", {}), **names},
    }
    values_given = {**body.get("ExpressionAttributeValues", {}), **to_attributes(equal)}
    if values_given:
        changed["ExpressionAttributeValues"] = values_given
    if old_on_failure:
        changed["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return {kind: changed}


def also_holding(
    action: Mapping[str, Any],
    condition: str,
    names: Mapping[str, str],
    values: Mapping[str, Any],
    *,
    old_on_failure: bool = False,
) -> dict[str, Any]:
    """A transaction's `action` that applies only where `condition` (with its `names` and
    `values`) holds too, on top of any condition it has."""
    ((kind, body),) = action.items()
    terms = [f"({body['ConditionExpression']})"] if "ConditionExpression" in body else []
    changed = {
        **body,
        "ConditionExpression": " AND ".join([*terms, f"({condition})"]),
        "ExpressionAttributeNames": {**body.get("ExpressionAttributeNames", {}), **names},
        "ExpressionAttributeValues": {
            **body.get("ExpressionAttributeValues", {}),
            **to_attributes(values),
        },
    }
    if old_on_failure:
        changed["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return {kind: changed}


def expecting_version(action: Mapping[str, Any], version: int) -> dict[str, Any]:
    """A transaction's Put or Delete `action` that applies only while the stored item's
    `version` is `version` (an optimistic lock)."""
    return expecting(action, {"version": version})


def _equalities(values: Mapping[str, Any]) -> tuple[str, dict[str, str], dict[str, Any]]:
    """`#a = :expect_a AND …` for `values`, with its names and values."""
    if not values:
        raise ValueError("a condition needs at least one attribute to compare")
    names = {f"#{name}": name for name in values}
    equal = {f":expect_{name}": value for name, value in values.items()}
    expression = " AND ".join(f"#{name} = :expect_{name}" for name in values)
    return expression, names, equal


def counter_update(table: str, key: Key, attribute: str, delta: int) -> dict[str, Any]:
    """A TransactWriteItems action adding `delta` to a counter, creating the item if need be."""
    return {
        "Update": {
            "TableName": table,
            "Key": to_attributes(key),
            "UpdateExpression": "ADD #count :delta",
            "ExpressionAttributeNames": {"#count": attribute},
            "ExpressionAttributeValues": to_attributes({":delta": delta}),
        }
    }


def primary_key(item: Mapping[str, Any], table: Index) -> Key:
    """The key on `table` of a stored item."""
    return {a: item[a] for a in table.attributes}


def condition_check(table: str, key: Key, *, exists: bool) -> dict[str, Any]:
    """A TransactWriteItems ConditionCheck that `key` exists (or does not); `expecting`
    adds what the item must hold."""
    return {
        "ConditionCheck": {"TableName": table, "Key": to_attributes(key), **_existence(key, exists)}
    }


def _existence(key: Key, exists: bool) -> dict[str, Any]:
    """The condition that the item of `key` is there (or not)."""
    function = "attribute_exists" if exists else "attribute_not_exists"
    return {
        "ConditionExpression": f"{function}(#pk)",
        "ExpressionAttributeNames": {"#pk": _present(key)},
    }


def _present(key: Key) -> str:
    """An attribute every item of `key` holds: its partition key, as a key names it first
    (any of a key's attributes exists exactly when the item does)."""
    return next(iter(key))
