"""`store.transport.responses` reads every answer as botocore's own parser does: random
answers of each operation, serialized as DynamoDB sends them, read both ways and compared
(types included). Pure: no network."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from aiobotocore.parsers import AioResponseParserFactory
from botocore.awsrequest import HeadersDict
from botocore.model import ListShape, MapShape, Shape, StructureShape
from botocore.session import Session
from hypothesis import given, settings
from hypothesis import strategies as st

from store.transport.responses import LEAN_OPERATIONS, LeanJSONParser, LeanParserFactory

# The service models clients are made from.
_MODELS = {name: Session().get_service_model(name) for name in ("dynamodb", "dynamodbstreams")}
# Each operation of `LEAN_OPERATIONS` with the model of the service that has it.
_OPERATIONS = {
    operation: _MODELS["dynamodbstreams" if operation == "GetRecords" else "dynamodb"]
    .operation_model(operation)
    .output_shape
    for operation in sorted(LEAN_OPERATIONS)
}


def _shape(operation: str) -> Shape:
    shape = _OPERATIONS[operation]
    assert shape is not None
    return shape


def _lean() -> LeanJSONParser:
    parser = LeanParserFactory().create_parser("json")
    assert isinstance(parser, LeanJSONParser)
    return parser


_PLAIN = AioResponseParserFactory().create_parser("json")


def _answer(operation: str, body: bytes, status: int = 200) -> dict[str, Any]:
    """The response dict aiobotocore's endpoint gives its parser."""
    headers = {
        "x-amzn-RequestId": "7PQ2VDNC1ERBGP4T0OVD0N1T1BVV4KQNSO5AEMVJF66Q9ASUAAJG",
        "Content-Type": "application/x-amz-json-1.0",
        "Content-Length": str(len(body)),
    }
    return {
        "status_code": status,
        "headers": HeadersDict(headers),
        "body": body,
        "context": {"operation_name": operation},
    }


def _read(parser: Any, operation: str, body: bytes, status: int = 200) -> Any:
    """What `parser` makes of the answer (a fresh response dict each time), or the type of
    the exception it raised."""
    try:
        parsed = asyncio.run(parser.parse(_answer(operation, body, status), _shape(operation)))
    except Exception as exc:
        return type(exc)
    return typed(parsed)


def typed(value: Any) -> Any:
    """`value` with each leaf's type beside it: 1, 1.0 and True are three answers."""
    if isinstance(value, dict):
        return {key: typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [typed(item) for item in value]
    return (type(value).__name__, value)


def _assert_read_alike(operation: str, body: bytes, status: int = 200) -> None:
    plain = _read(_PLAIN, operation, body, status)
    assert _read(_lean(), operation, body, status) == plain


# ---- answers as DynamoDB sends them ------------------------------------------------------

_BASE64 = st.binary(max_size=24).map(lambda raw: base64.b64encode(raw).decode())
_NUMBERS = st.one_of(
    st.integers(-(10**38), 10**38).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)
_NAMES = st.text(min_size=1, max_size=8)


def _attribute_values() -> st.SearchStrategy[dict[str, Any]]:
    """DynamoDB's typed values of every type, nested in maps and lists."""
    leaves = st.one_of(
        st.text(max_size=16).map(lambda text: {"S": text}),
        _NUMBERS.map(lambda number: {"N": number}),
        _BASE64.map(lambda raw: {"B": raw}),
        st.lists(st.text(max_size=8), min_size=1, max_size=4, unique=True).map(
            lambda texts: {"SS": texts}
        ),
        st.lists(_NUMBERS, min_size=1, max_size=4, unique=True).map(lambda ns: {"NS": ns}),
        st.lists(_BASE64, min_size=1, max_size=4, unique=True).map(lambda bs: {"BS": bs}),
        st.just({"NULL": True}),
        st.booleans().map(lambda flag: {"BOOL": flag}),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.dictionaries(_NAMES, inner, max_size=4).map(lambda members: {"M": members}),
            st.lists(inner, max_size=4).map(lambda values: {"L": values}),
        ),
        max_leaves=12,
    )


def _values(shape: Shape) -> st.SearchStrategy[Any]:
    """Values of `shape` as DynamoDB writes them in JSON: every member of a structure
    present or not, typed values of every type."""
    if shape.name == "AttributeValue":
        return _attribute_values()
    if isinstance(shape, StructureShape):
        optional = {
            member.serialization.get("name", name): _values(member)
            for name, member in shape.members.items()
        }
        return st.fixed_dictionaries({}, optional=optional)
    if isinstance(shape, ListShape):
        return st.lists(_values(shape.member), max_size=3)
    if isinstance(shape, MapShape):
        return st.dictionaries(_NAMES, _values(shape.value), max_size=3)
    scalars: dict[str, st.SearchStrategy[Any]] = {
        "string": st.text(max_size=12),
        "integer": st.integers(-(2**31), 2**31 - 1),
        "long": st.integers(-(2**63), 2**63 - 1),
        "boolean": st.booleans(),
        # Capacity units: halves, and any double DynamoDB might add.
        "double": st.one_of(
            st.integers(0, 10**6).map(lambda n: n / 2),
            st.floats(-1e15, 1e15, allow_nan=False),
        ),
        "blob": _BASE64,
        # Stream records give epoch seconds.
        "timestamp": st.one_of(st.integers(0, 4 * 10**9), st.floats(0, 4e9)),
    }
    return scalars[shape.type_name]


_ANSWERS = {operation: _values(_shape(operation)) for operation in _OPERATIONS}


def _body(document: Any, ascii_only: bool) -> bytes:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=ascii_only).encode()


@settings(max_examples=300)
@given(st.data())
def test_answers_as_dynamodb_sends_them_are_read_alike_without_botocore(
    data: st.DataObject,
) -> None:
    operation = data.draw(st.sampled_from(sorted(_OPERATIONS)), label="operation")
    document = data.draw(_ANSWERS[operation], label="answer")
    body = _body(document, data.draw(st.booleans(), label="ascii"))
    assert _lean().read(_answer(operation, body), _shape(operation)) is not None, (
        "the lean reading handed an answer as DynamoDB sends it to botocore"
    )
    _assert_read_alike(operation, body)


# ---- answers DynamoDB does not send: the lean reading hands them to botocore ------------


def _containers(value: Any) -> list[Any]:
    """Every dict and list in `value`, itself included."""
    found: list[Any] = []
    if isinstance(value, dict | list):
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            found.extend(_containers(item))
    return found


# Values that botocore's `json` and orjson read differently, or that the model does not
# expect where they land.
_ODD_VALUES = st.sampled_from(
    [None, 2**70, -(2**70), 1e30, -0.0, "text", 7, True, [], {}, [None], {"S": None}]
)


_TYPES = {"S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"}


def _mutated(data: st.DataObject, document: Any) -> bytes:
    containers = _containers(document)
    # Typed values are most of an answer and have a reading of their own: half the time one
    # of them, when there is one.
    attributes = [c for c in containers if isinstance(c, dict) and len(c) == 1 and set(c) <= _TYPES]
    if attributes and data.draw(st.booleans(), label="a typed value"):
        containers = attributes
    target = data.draw(st.sampled_from(containers), label="container")
    value = data.draw(_ODD_VALUES, label="value")
    if isinstance(target, dict):
        key = data.draw(st.sampled_from([*target, "Unknown", "S", "B"]), label="key")
        target[key] = value
    elif target:
        target[data.draw(st.integers(0, len(target) - 1), label="index")] = value
    else:
        target.append(value)
    return _body(document, ascii_only=False)


_BODY_EDITS: list[Callable[[bytes], bytes]] = [
    lambda body: body[: len(body) // 2],
    lambda body: b"\xef\xbb\xbf" + body,
    lambda body: body + b"x",
    lambda body: b" ",
    lambda body: b"null",
    lambda body: b"[]",
    lambda body: body.replace(b"}", b',"n":NaN}', 1),
    lambda body: body.replace(b"}", b',"S":"\\ud800"}', 1),
]


@settings(max_examples=300)
@given(st.data())
def test_odd_answers_are_read_as_botocore_reads_them(data: st.DataObject) -> None:
    operation = data.draw(st.sampled_from(sorted(_OPERATIONS)), label="operation")
    document = data.draw(_ANSWERS[operation], label="answer")
    if data.draw(st.booleans(), label="edit the body"):
        body = data.draw(st.sampled_from(_BODY_EDITS), label="edit")(_body(document, False))
    else:
        body = _mutated(data, document)
    _assert_read_alike(operation, body)


# Typed values DynamoDB does not send, each read inside an item and inside a map.
_ODD_TYPED = [
    {"BOOL": None},
    {"NULL": 2**70},
    {"BOOL": "yes"},
    {"S": 1},
    {"S": None},
    {"N": 2**70},
    {"M": []},
    {"M": None},
    {"L": {}},
    {"L": [None]},
    {"B": 7},
    {"B": "not base64!"},
    {"BS": ["AA==", None]},
    {"BS": "AA=="},
    {"SS": "abc"},
    {"NS": ["1", 2**70]},
    {"S": "a", "N": "1"},
    {"S": "a", "Unknown": 1},
    {},
    {"Unknown": "1"},
    None,
    "S",
    [],
]


@pytest.mark.parametrize("value", _ODD_TYPED, ids=repr)
def test_odd_typed_values_are_read_as_botocore_reads_them(value: Any) -> None:
    item = {"PK": {"S": "a"}, "odd": value, "m": {"M": {"odd": value, "b": {"B": "AA=="}}}}
    _assert_read_alike("GetItem", _body({"Item": item}, ascii_only=True))
    _assert_read_alike("Query", _body({"Items": [item, item], "Count": 2}, ascii_only=True))


# ---- examples --------------------------------------------------------------------------


def test_binaries_come_back_as_bytes_wherever_they_are() -> None:
    raw = base64.b64encode(b"\x00\xff").decode()
    item = {
        "PK": {"S": "a"},
        "b": {"B": raw},
        "bs": {"BS": [raw]},
        "m": {"M": {"l": {"L": [{"B": raw}, {"N": "1"}]}}},
    }
    body = _body({"Item": item}, ascii_only=True)
    read = _lean().read(_answer("GetItem", body), _shape("GetItem"))
    assert read == {
        "Item": {
            "PK": {"S": "a"},
            "b": {"B": b"\x00\xff"},
            "bs": {"BS": [b"\x00\xff"]},
            "m": {"M": {"l": {"L": [{"B": b"\x00\xff"}, {"N": "1"}]}}},
        }
    }
    _assert_read_alike("GetItem", body)


def test_the_metadata_is_botocores() -> None:
    body = b'{"Count":0,"ScannedCount":0,"Items":[]}'
    parsed = asyncio.run(_lean().parse(_answer("Query", body), _shape("Query")))
    assert parsed == {
        "Items": [],
        "Count": 0,
        "ScannedCount": 0,
        "ResponseMetadata": {
            "RequestId": "7PQ2VDNC1ERBGP4T0OVD0N1T1BVV4KQNSO5AEMVJF66Q9ASUAAJG",
            "HTTPStatusCode": 200,
            "HTTPHeaders": {
                "x-amzn-requestid": "7PQ2VDNC1ERBGP4T0OVD0N1T1BVV4KQNSO5AEMVJF66Q9ASUAAJG",
                "content-type": "application/x-amz-json-1.0",
                "content-length": str(len(body)),
            },
        },
    }


@pytest.mark.parametrize(
    ("operation", "body", "status"),
    [
        # An error answer.
        ("Query", b'{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException"}', 400),
        # An operation of another kind.
        ("DescribeTable", b'{"Table":{"TableName":"t","ItemCount":3}}', 200),
        # A count past 64 bits: orjson would make it a float.
        ("Query", b'{"Count":18446744073709551616,"Items":[]}', 200),
        # A number too large for a double: json reads infinity, orjson refuses.
        ("Query", b'{"ConsumedCapacity":{"CapacityUnits":1e400}}', 200),
    ],
)
def test_botocore_reads_what_is_not_the_lean_readings(
    operation: str, body: bytes, status: int
) -> None:
    model = _MODELS["dynamodb"].operation_model(operation)
    assert model.output_shape is not None
    assert _lean().read(_answer(operation, body, status), model.output_shape) is None
    lean = asyncio.run(_lean().parse(_answer(operation, body, status), model.output_shape))
    plain = asyncio.run(_PLAIN.parse(_answer(operation, body, status), model.output_shape))
    assert typed(lean) == typed(plain)


def test_a_count_past_64_bits_stays_an_integer() -> None:
    body = b'{"Count":18446744073709551616,"Items":[]}'
    parsed = asyncio.run(_lean().parse(_answer("Query", body), _shape("Query")))
    assert parsed["Count"] == 2**64 and isinstance(parsed["Count"], int)
