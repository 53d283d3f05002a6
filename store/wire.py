"""DynamoDB's typed wire format and plain Python values, both ways: every item read or
written crosses here (`store/requests.py` builds the requests around them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

Item = dict[str, Any]

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def to_attributes(item: Mapping[str, Any]) -> dict[str, Any]:
    return {name: _serializer.serialize(_to_wire(value)) for name, value in item.items()}


def from_attributes(attributes: Mapping[str, Any]) -> Item:
    """Plain values of DynamoDB's typed attributes: a number is an int when whole, else
    a float; sets and binaries are as boto3 reads them."""
    # Most values are strings and whole numbers: read here, without a call each.
    plain: Item = {}
    for name, value in attributes.items():
        text = value.get("S")
        if text is not None:
            plain[name] = text
            continue
        digits = value.get("N")
        if digits is not None:
            plain[name] = _number(digits)
            continue
        plain[name] = _plain(value)
    return plain


def _plain(attribute: Mapping[str, Any]) -> Any:
    # Every read decodes every attribute of every item: the common types here, directly
    # (boto3's deserializer dispatches by name, then numbers go through Decimal).
    for kind, raw in attribute.items():
        if kind == "S":
            return raw
        if kind == "N":
            return _number(raw)
        if kind == "M":
            return from_attributes(raw)
        if kind == "L":
            return [_plain(value) for value in raw]
        break
    return _from_wire(_deserializer.deserialize(attribute))


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return _decimal(Decimal(text))


def _decimal(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _to_wire(value: Any) -> Any:
    if isinstance(value, float):
        return Decimal(repr(value))
    return _members(value, _to_wire)


def _from_wire(value: Any) -> Any:
    if isinstance(value, Decimal):
        return _decimal(value)
    return _members(value, _from_wire)


def _members(value: Any, convert: Callable[[Any], Any]) -> Any:
    """A list, map or set of `convert`ed members; any other value as it is."""
    if isinstance(value, list):
        return [convert(v) for v in value]
    if isinstance(value, dict):
        return {k: convert(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return {convert(v) for v in value}
    return value
