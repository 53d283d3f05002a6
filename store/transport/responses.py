"""DynamoDB's answers to reads and writes of items, read without botocore's shape walk.

Botocore reads a JSON response by walking its output shape value by value: for every
attribute of every item, a handler looked up by name, then each of the ten members of the
typed-value structure tried in turn. On a page of items that walk is most of a call's
CPU. Here the body is read by orjson and the output shape is walked once per operation,
into a plan: converters that do only what botocore's walk would change — binaries (`B`,
`BS`) base64-decoded to bytes, timestamps parsed, members the model lacks and null members
dropped. The answer is the dict botocore's parser returns for the same response.

Only the success answers of `LEAN_OPERATIONS` take this path, and only through the
parser's body-reading step (`_do_parse`): botocore's `parse` still adds the
ResponseMetadata around it (status, headers; the endpoint adds RetryAttempts), and error
answers, other operations, retries and the `x-amz-crc32` check (aiobotocore's retry
handler hashes the raw body itself, `aiobotocore/retries/special.py`) are untouched. A
body the plan is not sure to read as botocore would — one orjson refuses, a value of
another type than the model says, an integer too large for orjson (it gives a float where
`json` gives an int) — is read by botocore instead, which then decides as it always did.

It is switched on per session: the session's `response_parser_factory` component is the
one aiobotocore's endpoint asks for a parser for every response. This module is the only
code that knows botocore's parser; `tests/store/test_lean_sdk.py` checks what it relies on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import aioboto3
import orjson
from aiobotocore.parsers import AioJSONParser, AioResponseParserFactory
from aiobotocore.session import AioSession
from botocore.model import ListShape, MapShape, Shape, StructureShape
from botocore.parsers import ResponseParser

# The calls that read or write items, DynamoDB's and its stream's.
LEAN_OPERATIONS = frozenset(
    {
        "GetItem",
        "BatchGetItem",
        "Query",
        "Scan",
        "TransactGetItems",
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "TransactWriteItems",
        "BatchWriteItem",
        "GetRecords",
    }
)

Convert = Callable[[Any], Any]

# orjson reads an integer literal beyond 64 bits as a float, `json` as an int.
_FLOAT_LIMIT = 2.0**63
_SCALARS = frozenset({"string", "integer", "long", "boolean", "double", "float"})
# DynamoDB's typed value (a structure of ten optional members in the model).
_ATTRIBUTE_MEMBERS = {
    "S": "string",
    "N": "string",
    "B": "blob",
    "SS": "list",
    "NS": "list",
    "BS": "list",
    "M": "map",
    "L": "list",
    "NULL": "boolean",
    "BOOL": "boolean",
}


class _Unsure(Exception):
    """The plan might read this response otherwise than botocore: botocore reads it."""


class Unsupported(Exception):
    """A shape the plans do not cover: botocore reads every answer of its operation."""


def session() -> aioboto3.Session:
    """A session whose clients read the answers of `LEAN_OPERATIONS` with plans."""
    core = AioSession()
    core.register_component("response_parser_factory", LeanParserFactory())
    return aioboto3.Session(botocore_session=core)


class LeanParserFactory(AioResponseParserFactory):
    """Botocore's parsers, but for the JSON protocol one that reads with plans."""

    def __init__(self) -> None:
        super().__init__()
        self._json: LeanJSONParser | None = None

    def set_parser_defaults(self, **kwargs: Any) -> None:
        super().set_parser_defaults(**kwargs)
        self._json = None

    def create_parser(self, protocol_name: str) -> ResponseParser:
        if protocol_name != "json":
            return super().create_parser(protocol_name)
        # One for the session, unlike botocore's one per response: a JSON parser keeps no
        # state of a response, and this one keeps the plans of the operations it has read.
        if self._json is None:
            self._json = LeanJSONParser(**self._defaults)  # type: ignore[attr-defined]
        return self._json


class LeanJSONParser(AioJSONParser):
    """Botocore's parser of the JSON protocol, reading the success answers of
    `LEAN_OPERATIONS` with plans (`read`) and everything else as botocore does."""

    def __init__(self, **defaults: Any) -> None:
        super().__init__(**defaults)
        # By the id of the output shape, kept alive beside its plan so the id stays its.
        self._plans: dict[int, tuple[Shape, Convert | None]] = {}

    async def _do_parse(self, response: Mapping[str, Any], shape: Shape | None) -> Any:
        parsed = self.read(response, shape)
        if parsed is None:
            return await super()._do_parse(response, shape)  # type: ignore[misc]
        self._inject_response_metadata(parsed, response["headers"])  # type: ignore[attr-defined]
        return parsed

    def read(self, response: Mapping[str, Any], shape: Shape | None) -> dict[str, Any] | None:
        """The answer's members as botocore reads them, or None for botocore to read."""
        if (
            shape is None
            or response["status_code"] >= 300
            or response["context"].get("operation_name") not in LEAN_OPERATIONS
        ):
            return None
        plan = self._plan(shape)
        body = response["body"]
        if plan is None or not isinstance(body, bytes):
            return None
        try:
            data = orjson.loads(body) if body else {}
            if type(data) is not dict:
                return None
            parsed: dict[str, Any] = plan(data)
        except (_Unsure, ValueError, TypeError):
            # orjson's refusal (a ValueError), a value botocore's readers may refuse.
            return None
        return parsed

    def _plan(self, shape: Shape) -> Convert | None:
        known = self._plans.get(id(shape))
        if known is not None:
            return known[1]
        # Botocore's readers of blobs and timestamps, as the factory's defaults made them.
        blob: Convert = self._blob_parser  # type: ignore[attr-defined]
        timestamp: Convert = self._timestamp_parser  # type: ignore[attr-defined]
        found: Convert | None
        try:
            found = plan(shape, blob=blob, timestamp=timestamp)
        except Unsupported:
            found = None
        self._plans[id(shape)] = (shape, found)
        return found


def plan(shape: Shape, *, blob: Convert, timestamp: Convert) -> Convert:
    """The converter of `shape`'s values; Unsupported when the plans do not cover it."""
    return _Planner(blob, timestamp).plan(shape)


class _Planner:
    """Converters of one service's shapes, each doing what botocore's `BaseJSONParser`
    does with a value of that shape (and raising `_Unsure` where botocore might fail or
    differ), in place where the value is a list or map."""

    def __init__(self, blob: Convert, timestamp: Convert) -> None:
        self._blob = blob
        self._timestamp = timestamp
        self._built: dict[str, Convert] = {}
        self._building: set[str] = set()

    def plan(self, shape: Shape) -> Convert:
        if shape.event_stream_name:
            raise Unsupported(f"{shape.name} is an event stream")
        return self._convert(shape)

    def _convert(self, shape: Shape) -> Convert:
        # By name: one service's shape names are unique, and what a JSON reader does with
        # a value depends on its shape, never on the traits of the member holding it.
        built = self._built.get(shape.name)
        if built is not None:
            return built
        if shape.name in self._building:
            raise Unsupported(f"{shape.name} contains itself")
        self._building.add(shape.name)
        try:
            if _is_attribute_value(shape):
                assert isinstance(shape, StructureShape)
                return self._attribute_value(shape)
            convert = self._build(shape)
        finally:
            self._building.discard(shape.name)
        self._built[shape.name] = convert
        return convert

    def _build(self, shape: Shape) -> Convert:
        kind = shape.type_name
        if kind in _SCALARS:
            return _scalar
        if kind == "blob":
            return self._blob
        if kind == "timestamp":
            timestamp = self._timestamp
            return lambda value: timestamp(_scalar(value))
        if isinstance(shape, ListShape):
            return _list(self._convert(shape.member))
        if isinstance(shape, MapShape):
            if shape.key.type_name != "string":
                raise Unsupported(f"{shape.name} has keys of type {shape.key.type_name}")
            value = self._convert(shape.value)
            if _is_attribute_value(shape.value):
                return _attribute_map(value)  # an item: most of every answer's values
            return _map(value)
        if isinstance(shape, StructureShape):
            return self._structure(shape)
        raise Unsupported(f"{shape.name} is of type {kind}")

    def _structure(self, shape: StructureShape) -> Convert:
        if shape.is_document_type or shape.is_tagged_union:
            raise Unsupported(f"{shape.name} is a document or a union")
        members = [
            (member.serialization.get("name", name), name, self._convert(member))
            for name, member in shape.members.items()
        ]

        def structure(value: Any) -> Any:
            # BaseJSONParser._handle_structure: the model's members, null ones left out.
            if type(value) is not dict:
                raise _Unsure
            read = {}
            for wire, name, convert in members:
                raw = value.get(wire)
                if raw is not None:
                    read[name] = convert(raw)
            return read

        return structure

    def _attribute_value(self, shape: StructureShape) -> Convert:
        """A typed value: the usual one (one known type, of the right JSON type) checked
        and converted in place; anything else read as the structure it is in the model."""
        blob = self._blob
        general: list[Convert] = []

        def attribute(value: Any) -> Any:
            if type(value) is dict and len(value) == 1:
                ((kind, inner),) = value.items()
                if kind == "S" or kind == "N":
                    if type(inner) is str:
                        return value
                elif kind == "M":
                    if type(inner) is dict:
                        members(inner)
                        return value
                elif kind == "L":
                    if type(inner) is list:
                        for index, member in enumerate(inner):
                            read = attribute(member)
                            if read is not member:
                                inner[index] = read
                        return value
                elif kind == "BOOL" or kind == "NULL":
                    if type(inner) is bool:
                        return value
                elif kind == "SS" or kind == "NS":
                    if type(inner) is list and all(type(text) is str for text in inner):
                        return value
                elif kind == "B":
                    if type(inner) is str:
                        value[kind] = blob(inner)
                        return value
                elif (
                    kind == "BS"
                    and type(inner) is list
                    and all(type(text) is str for text in inner)
                ):
                    value[kind] = [blob(text) for text in inner]
                    return value
            return general[0](value)

        members = _attribute_map(attribute)
        # Registered before its members are built: `M` and `L` hold typed values again.
        self._built[shape.name] = attribute
        general.append(self._structure(shape))
        return attribute


def _is_attribute_value(shape: Shape) -> bool:
    if not isinstance(shape, StructureShape) or shape.is_tagged_union:
        return False
    members = shape.members
    if {name: member.type_name for name, member in members.items()} != _ATTRIBUTE_MEMBERS:
        return False
    if any(member.serialization.get("name", name) != name for name, member in members.items()):
        return False
    strings, numbers, binaries = members["SS"], members["NS"], members["BS"]
    nested, listed = members["M"], members["L"]
    return (
        isinstance(strings, ListShape)
        and strings.member.type_name == "string"
        and isinstance(numbers, ListShape)
        and numbers.member.type_name == "string"
        and isinstance(binaries, ListShape)
        and binaries.member.type_name == "blob"
        and isinstance(nested, MapShape)
        and nested.key.type_name == "string"
        and nested.value.name == shape.name
        and isinstance(listed, ListShape)
        and listed.member.name == shape.name
    )


def _scalar(value: Any) -> Any:
    if type(value) is float and not -_FLOAT_LIMIT < value < _FLOAT_LIMIT:
        raise _Unsure
    return value


def _members(
    kind: type[Any], entries: Callable[[Any], Iterable[tuple[Any, Any]]]
) -> Callable[[Convert], Convert]:
    """The converter of a `kind` container (a list or a map) whose members `convert`
    reads; `entries` gives each member's place. Members are replaced in place, and only
    those that change: most do not."""

    def of(convert: Convert) -> Convert:
        def read(value: Any) -> Any:
            if type(value) is not kind:
                raise _Unsure
            for place, item in entries(value):
                converted = convert(item)
                if converted is not item:
                    value[place] = converted
            return value

        return read

    return of


_list = _members(list, enumerate)
_map = _members(dict, dict.items)


def _attribute_map(attribute: Convert) -> Convert:
    """`_map(attribute)` for a map of typed values (an item, a key), its strings and
    numbers checked in the loop itself: they are most values, and need no conversion."""

    def read(value: Any) -> Any:
        if type(value) is not dict:
            raise _Unsure
        for name, member in value.items():
            if type(member) is dict and len(member) == 1:
                text = member.get("S")
                if text is None:
                    text = member.get("N")
                if type(text) is str:
                    continue
            converted = attribute(member)
            if converted is not member:
                value[name] = converted
        return value

    return read
