"""What `store.transport.responses` relies on in aiobotocore and botocore, checked through a
whole client call with a canned answer (no network). A failure here means an upgrade moved
something the lean reading hooks into: its message says what;
`store/transport/responses.py` is the one place to mend."""

from __future__ import annotations

import inspect
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiobotocore.awsrequest import AioAWSResponse
from aiobotocore.parsers import AioJSONParser, AioResponseParserFactory
from aiobotocore.session import AioSession
from botocore.parsers import BaseJSONParser
from botocore.session import Session

from store.client import DynamoDBClient
from store.transport import responses as lean
from store.transport.connection import open_client
from tests.faults import without_backoff

# Nothing listens there: every answer below is handed over by a `before-send` handler.
_NOWHERE = "http://127.0.0.1:9"
_BODY = (
    b'{"Count":1,"ScannedCount":1,"Items":[{"PK":{"S":"a"},"b":{"B":"AP8="},'
    b'"m":{"M":{"bs":{"BS":["AA=="]},"n":{"N":"1.5"}}}}],'
    b'"ConsumedCapacity":{"TableName":"t","CapacityUnits":0.5}}'
)


class _Raw:
    """The body of a canned answer, read as aiobotocore reads aiohttp's."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    async def read(self) -> bytes:
        return self._body


def _answer(body: bytes, crc32: int | None = None) -> AioAWSResponse:
    headers = {
        "x-amzn-requestid": "R1",
        "content-type": "application/x-amz-json-1.0",
        "content-length": str(len(body)),
        "x-amz-crc32": str(zlib.crc32(body) if crc32 is None else crc32),
    }
    return AioAWSResponse(_NOWHERE, 200, headers, _Raw(body))


@asynccontextmanager
async def _client(answers: list[AioAWSResponse], *, lean: bool) -> AsyncIterator[DynamoDBClient]:
    """A client whose calls hear `answers`, one a call, the last one again and again."""
    async with open_client(_NOWHERE, "us-east-1", local=True, env={}, lean=lean) as client:

        def send(**_: Any) -> AioAWSResponse:
            return answers.pop(0) if len(answers) > 1 else answers[0]

        client.meta.events.register("before-send.dynamodb", send)
        yield client


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any] | None]:
    """What each lean reading gave (None: handed to botocore)."""
    seen: list[dict[str, Any] | None] = []
    original = lean.LeanJSONParser.read

    def read(self: lean.LeanJSONParser, response: Any, shape: Any) -> dict[str, Any] | None:
        seen.append(original(self, response, shape))
        return seen[-1]

    monkeypatch.setattr(lean.LeanJSONParser, "read", read)
    return seen


async def test_a_client_of_the_lean_session_reads_its_answers_lean(
    reads: list[dict[str, Any] | None],
) -> None:
    async with _client([_answer(_BODY)], lean=True) as client:
        got = await client.query(TableName="t", KeyConditionExpression="PK = :a")
    assert reads, (
        "the lean parser was not asked: aiobotocore no longer takes the session's"
        " `response_parser_factory` component (aiobotocore/session.py, create_client), its"
        " endpoint no longer asks it for each answer's parser (aiobotocore/endpoint.py,"
        " _do_get_response), or the parser's `parse` no longer calls `_do_parse`"
    )
    assert reads[0] is not None, "the lean parser handed a plain Query answer to botocore"
    assert got["Items"][0]["b"] == {"B": b"\x00\xff"}
    assert got["Items"][0]["m"]["M"]["bs"] == {"BS": [b"\x00"]}
    async with _client([_answer(_BODY)], lean=False) as client:
        assert got == await client.query(TableName="t", KeyConditionExpression="PK = :a")
    assert len(reads) == 1, "a client opened with lean=False read lean"


async def test_a_wrong_crc32_is_retried_by_botocore_before_any_reading_counts(
    monkeypatch: pytest.MonkeyPatch, reads: list[dict[str, Any] | None]
) -> None:
    """The retry handler hashes the raw body itself (aiobotocore/retries/special.py,
    AioRetryDDBChecksumError, on `needs-retry` after the parse): whatever the parser read
    of a damaged answer is dropped and the call is sent again."""
    without_backoff(monkeypatch)
    answers = [_answer(_BODY, crc32=1), _answer(_BODY)]
    async with _client(answers, lean=True) as client:
        got = await client.query(TableName="t", KeyConditionExpression="PK = :a")
    assert got["ResponseMetadata"]["RetryAttempts"] == 1
    assert got["Count"] == 1
    assert len(reads) == 2


def test_the_parser_internals_it_overrides_or_calls_are_there() -> None:
    do_parse = getattr(AioJSONParser, "_do_parse", None)
    assert do_parse is not None and inspect.iscoroutinefunction(do_parse), (
        "aiobotocore's AioJSONParser has no coroutine `_do_parse` any more: LeanJSONParser"
        " overrides it to read the body"
    )
    assert list(inspect.signature(do_parse).parameters) == ["self", "response", "shape"], (
        "AioJSONParser._do_parse takes other arguments than (response, shape)"
    )
    assert callable(getattr(BaseJSONParser, "_inject_response_metadata", None)), (
        "botocore's BaseJSONParser has no `_inject_response_metadata` (the RequestId)"
    )
    parser = AioResponseParserFactory().create_parser("json")
    for name in ("_blob_parser", "_timestamp_parser"):
        assert callable(getattr(parser, name, None)), f"botocore's parsers have no `{name}`"
    assert isinstance(getattr(AioResponseParserFactory(), "_defaults", None), dict), (
        "botocore's ResponseParserFactory keeps no `_defaults` for the parsers it makes"
    )
    assert isinstance(
        AioSession().get_component("response_parser_factory"), AioResponseParserFactory
    ), "aiobotocore's session has no `response_parser_factory` component to replace"


@pytest.mark.parametrize("operation", sorted(lean.LEAN_OPERATIONS))
def test_every_lean_operation_has_a_plan(operation: str) -> None:
    service = "dynamodbstreams" if operation == "GetRecords" else "dynamodb"
    shape = Session().get_service_model(service).operation_model(operation).output_shape
    assert shape is not None
    try:
        lean.plan(shape, blob=bytes, timestamp=str)
    except lean.Unsupported as exc:
        pytest.fail(
            f"botocore's model of {service} {operation} changed so that"
            f" store/transport/responses.py cannot read it ({exc}): botocore reads every answer"
            " of it again, slowly"
        )
