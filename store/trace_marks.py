"""How a subscription event finds the span of the write that caused it (docs/tracing.md).

DynamoDB's stream carries items, nothing else: so while tracing is on, a traced write
writes its span's W3C traceparent on the item it changes (`TRACE_ATTRIBUTE`, about 70
bytes), and the stream reader finds it in the record's new image. A write that is not
traced removes it, so that no event links to an older write. Only conditional writes are
marked: an entity's own item is always written on a condition, while the unconditional
puts of derived items (a comment's copies) must stay exactly what their entity implies.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

TRACE_ATTRIBUTE = "dynagateTrace"
_ALIAS = "#dynagateTrace"
_VALUE = ":dynagateTrace"
# The clause keywords of an UpdateExpression: reserved words, so never a bare attribute
# name, and never part of a placeholder (`#set`, `:set`).
_CLAUSE = {
    verb: re.compile(rf"(?<![#:\w]){verb}(?!\w)", re.IGNORECASE) for verb in ("SET", "REMOVE")
}


def marked_put(put: Mapping[str, Any], cause: str | None) -> Mapping[str, Any]:
    """A PutItem (or a transaction's Put) whose item carries `cause`, or none."""
    if "ConditionExpression" not in put:
        return put
    item = {k: v for k, v in put["Item"].items() if k != TRACE_ATTRIBUTE}
    if cause is not None:
        item[TRACE_ATTRIBUTE] = {"S": cause}
    return {**put, "Item": item}


def marked_update(update: Mapping[str, Any], cause: str | None) -> Mapping[str, Any]:
    """An UpdateItem (or a transaction's Update) that sets `cause` on the item, or removes
    what an earlier write left there."""
    if "ConditionExpression" not in update:
        return update
    names = dict(update.get("ExpressionAttributeNames") or {})
    if _ALIAS in names:
        return update  # marked already
    names[_ALIAS] = TRACE_ATTRIBUTE
    expression = str(update["UpdateExpression"])
    marked = {**update, "ExpressionAttributeNames": names}
    if cause is None:
        marked["UpdateExpression"] = _in_clause("REMOVE", _ALIAS, expression)
        return marked
    marked["UpdateExpression"] = _in_clause("SET", f"{_ALIAS} = {_VALUE}", expression)
    marked["ExpressionAttributeValues"] = {
        **(update.get("ExpressionAttributeValues") or {}),
        _VALUE: {"S": cause},
    }
    return marked


def marked_actions(actions: Sequence[Mapping[str, Any]], cause: str | None) -> list[dict[str, Any]]:
    """A transaction's actions, each Put and Update marked."""
    marked = []
    for action in actions:
        if "Put" in action:
            action = {**action, "Put": marked_put(action["Put"], cause)}
        elif "Update" in action:
            action = {**action, "Update": marked_update(action["Update"], cause)}
        marked.append(dict(action))
    return marked


def cause_of(image: Mapping[str, Any] | None) -> str | None:
    """The traceparent an item's image carries (plain values), if any."""
    if image is None:
        return None
    cause = image.get(TRACE_ATTRIBUTE)
    return cause if isinstance(cause, str) else None


def _in_clause(verb: str, action: str, expression: str) -> str:
    """`expression` with `action` first in its `verb` clause (one made if it has none)."""
    clause = _CLAUSE[verb].search(expression)
    if clause is None:
        return f"{expression} {verb} {action}"
    end = clause.end()
    return f"{expression[:end]} {action},{expression[end:]}"
