"""What a cached read depends on, and what a change touches: pure, no I/O.

A read depends on the partition it asked (a Query) and on every item it returned or asked
for (a GetItem, or one key of a BatchGetItem). A change touches the item and every
partition its new image is in. That is enough for an exact cache, without the old image:
an item that leaves a range changes an answer only if the answer held it, and then the
answer depends on the item itself; an item that enters a range, or moves within it, is in
that range's partition afterwards. (The stream's records carry both images: both are
touched.) An item a filtered read evaluated without returning it may leave the range too:
the answer still holds exactly the items that match within its range, and the next page
starts where it stopped.

A write inside a transaction returns no image. An update's new partitions on an index are
then unknown: every read of that index depends on the index as a whole (`whole_index`),
touched when the update sets or removes one of the index's keys; a filtered read of it
(whose filter may now match the item) depends on `filtered_index`, touched when the update
changes anything.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from keys.conditions import KeyCondition
from keys.table import Index
from store.cache.memory import Dependency
from store.requests import from_attributes


def partition(index: Index, value: str) -> Dependency:
    """A partition of the table (named "") or of an index."""
    return (index.name or "", value)


def item(partition_key: str, sort_key: str) -> Dependency:
    return ("item", partition_key, sort_key)


def whole_index(index: Index) -> Dependency:
    # "*" is no index's name (DynamoDB allows letters, digits, '_', '-' and '.').
    return ("*", index.name or "")


def filtered_index(index: Index) -> Dependency:
    return ("?", index.name or "")


def of_query(
    condition: KeyCondition, items: Iterable[Mapping[str, Any]], table: Index, *, filtered: bool
) -> set[Dependency]:
    """What a Query's answer depends on: its partition, and each item it holds (their keys
    on `table`, the layout's)."""
    index = condition.index
    found = {partition(index, condition.partition)}
    found |= {item(str(i[table.partition_key]), str(i[table.sort_key])) for i in items}
    if index.name is not None:
        found.add(whole_index(index))
        if filtered:
            found.add(filtered_index(index))
    return found


def of_image(image: Mapping[str, Any], table: Index, indexes: Iterable[Index]) -> set[Dependency]:
    """The item an image is of, and the partitions it is in: the table's, and each index's
    whose keys it holds (an item without them is not in that sparse index)."""
    found: set[Dependency] = set()
    if table.partition_key in image and table.sort_key in image:
        pk, sk = str(image[table.partition_key]), str(image[table.sort_key])
        found |= {partition(table, pk), item(pk, sk)}
    for index in indexes:
        value = image.get(index.partition_key)
        if index.name is not None and value is not None and index.sort_key in image:
            found.add(partition(index, str(value)))
    return found


def of_record(
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any] | None,
    table: Index,
    indexes: Collection[Index],
) -> set[Dependency]:
    """What a change read from the stream touched: both its images."""
    found: set[Dependency] = set()
    for image in (old, new):
        if image is not None:
            found |= of_image(image, table, indexes)
    return found


def of_write(
    action: str,
    request: Mapping[str, Any],
    table: Index,
    indexes: Collection[Index],
    new_image: Mapping[str, Any] | None = None,
) -> set[Dependency]:
    """What a write touched: `action` is its operation ("PutItem", "UpdateItem",
    "DeleteItem") or a transaction's action ("Put", "Update", "Delete", "ConditionCheck");
    `new_image` an update's answer (ReturnValues ALL_NEW), None when it has none."""
    if action in ("PutItem", "Put"):
        return of_image(from_attributes(request["Item"]), table, indexes)
    if action == "ConditionCheck":
        return set()
    key = from_attributes(request["Key"])
    pk, sk = str(key[table.partition_key]), str(key[table.sort_key])
    found = {item(pk, sk), partition(table, pk)}
    if action in ("DeleteItem", "Delete"):
        return found
    if new_image is not None:
        return found | of_image(new_image, table, indexes)
    touched = updated_attributes(request)
    for index in indexes:
        if index.name is None:
            continue
        if touched & set(index.attributes):
            found.add(whole_index(index))
        if touched:
            found.add(filtered_index(index))
    return found


def of_transaction(
    actions: Iterable[Mapping[str, Any]], table: Index, indexes: Collection[Index]
) -> set[Dependency]:
    found: set[Dependency] = set()
    for action in actions:
        for kind, request in action.items():
            found |= of_write(kind, request, table, indexes)
    return found


_ALIAS = re.compile(r"#[A-Za-z0-9_]+")
_WORD = re.compile(r"(?<![#:A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*")
# The words of an update expression that name no attribute.
_VERBS = frozenset({"SET", "REMOVE", "ADD", "DELETE", "if_not_exists", "list_append", "and", "AND"})


def updated_attributes(request: Mapping[str, Any]) -> set[str]:
    """The attributes an UpdateExpression names (aliased or not): those it may change,
    and a few it only reads (more is safe)."""
    expression = str(request.get("UpdateExpression", ""))
    names = request.get("ExpressionAttributeNames") or {}
    found = {str(names.get(alias, alias)) for alias in _ALIAS.findall(expression)}
    found |= {word for word in _WORD.findall(expression) if word not in _VERBS}
    return found
