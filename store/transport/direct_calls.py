"""The calls that read and write items, sent without botocore's event system.

botocore makes a call by emitting a dozen events around it — parameters, endpoint rules,
request building, signing, retry headers, before and after sending, parsing — each a
lookup and a walk over its handlers: with the serialising and signing, about a fifth of
the gateway's CPU under load, paid again for every call of a request. Here a call of
`DIRECT_OPERATIONS` is sent from a plan made once per operation and table:

- the first call goes through botocore whole, and the request botocore sends is recorded:
  its URL and the headers that are the same on every call (X-Amz-Target, Content-Type,
  User-Agent). The plan is kept only if `store.transport.sigv4` signs that very request to the same
  Authorization header as botocore did, so what follows is botocore's request, signed as
  botocore signs it;
- later calls serialise their parameters with orjson (bytes base64-encoded, an absent
  idempotency token filled with a new UUID, as botocore does), sign, and send through the
  client's HTTP session (its pool, timeouts and connection errors);
- the answer is read by the session's parser (`store.transport.responses`), and its
  x-amz-crc32 checked.

botocore keeps what is not on the fast path: anything but a whole success — an error
answer, a lost or timed-out connection, a checksum that does not match — goes to botocore's
retry handler (its policy, quota and backoff, through its `needs-retry` event), and an
error is raised as botocore raises it; the `after-call` events are emitted as botocore
emits them, so the observers of calls (metrics) and the retry quota see every call; the
credentials are the client's, refreshed by botocore. Parameters botocore would refuse
before sending are refused by DynamoDB instead (a ValidationException): the store sends
only requests it built. The endpoint's methods used here are private to aiobotocore;
`tests/store/test_direct_calls.py` fails by name when an upgrade moves one.
"""

from __future__ import annotations

import base64
import logging
import os
import uuid
import zlib
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

import orjson
from aiobotocore.endpoint import convert_to_response_dict
from botocore import xform_name
from botocore.awsrequest import AWSPreparedRequest
from botocore.handlers import add_recursion_detection_header
from botocore.model import OperationModel

from store.transport.responses import LEAN_OPERATIONS
from store.transport.sigv4 import Credentials, Signer, canonical_host

logger = logging.getLogger("dynagate.store")

# The table's calls among those whose answers `store.transport.responses` reads (GetRecords is the
# stream's, of another client).
DIRECT_OPERATIONS = LEAN_OPERATIONS - {"GetRecords"}
# Headers that differ from call to call; every other header of botocore's request is fixed.
_PER_CALL = frozenset(
    {
        "x-amz-date",
        "authorization",
        "x-amz-security-token",
        "amz-sdk-invocation-id",
        "amz-sdk-request",
        "content-length",
        # Set in AWS Lambda from the invocation's environment: added again per call.
        "x-amzn-trace-id",
    }
)
# The requests botocore sends while a plan is being made (per task: calls run at once).
_recorded: ContextVar[list[AWSPreparedRequest] | None] = ContextVar(
    "dynagate_recorded_requests", default=None
)


@dataclass(frozen=True)
class Plan:
    """How to send one operation to one table: botocore's request, less what changes."""

    url: str
    fixed: dict[str, str]
    signer: Signer
    # Members botocore fills with a new UUID when absent (a transaction's token).
    tokens: tuple[str, ...]


def send_directly(client: Any) -> None:
    """Send `client`'s calls of `DIRECT_OPERATIONS` from plans (the table's client)."""
    direct = DirectCalls(client)
    service = client.meta.service_model.service_id.hyphenize()
    client.meta.events.register(
        f"before-send.{service}", _record, unique_id="dynagate-direct-calls-record"
    )
    for operation in DIRECT_OPERATIONS:
        name = xform_name(operation)
        setattr(client, name, direct.method(operation, getattr(client, name)))


def _record(request: AWSPreparedRequest, **_: Any) -> None:
    recording = _recorded.get()
    if recording is not None:
        recording.append(request)


class DirectCalls:
    """The plans of one client, and its calls made from them."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._model = client.meta.service_model
        self._service = self._model.service_id.hyphenize()
        endpoint = client._endpoint
        self._endpoint = endpoint
        self._http = endpoint.http_session
        self._parser = endpoint._response_parser_factory.create_parser(
            self._model.resolved_protocol
        )
        # (operation, table) -> its plan; absent until a call of botocore's made one.
        self._plans: dict[tuple[str, Any], Plan] = {}
        self._operations: dict[str, OperationModel] = {}
        self._warned = False

    def method(
        self, operation: str, botocore_method: Callable[..., Awaitable[Any]]
    ) -> Callable[..., Awaitable[Any]]:
        """The client method `operation` (`query`, …), sending from plans."""

        async def call(**params: Any) -> Any:
            key = (operation, params.get("TableName"))
            plan = self._plans.get(key)
            if plan is None:
                return await self._planning(key, botocore_method, params)
            credentials = await self._credentials()
            body = None if credentials is None else _body(plan, params)
            if body is None:
                return await botocore_method(**params)
            assert credentials is not None
            return await self._send(operation, plan, body, credentials)

        call.__name__ = call.__qualname__ = xform_name(operation)
        return call

    async def _planning(
        self,
        key: tuple[str, Any],
        botocore_method: Callable[..., Awaitable[Any]],
        params: Mapping[str, Any],
    ) -> Any:
        """Call through botocore, making the plan from the request it sends."""
        sent: list[AWSPreparedRequest] = []
        token = _recorded.set(sent)
        try:
            return await botocore_method(**params)
        finally:
            _recorded.reset(token)
            if sent:
                plan = await self._plan(key[0], sent[0])
                if plan is not None:
                    self._plans[key] = plan

    async def _plan(self, operation: str, request: AWSPreparedRequest) -> Plan | None:
        headers = {name: _text(value) for name, value in request.headers.items()}
        authorization = headers.get("Authorization", "")
        credentials = await self._credentials()
        scope = _scope(authorization)
        if (
            credentials is None
            or scope is None
            or request.method != "POST"
            or not request.url.endswith("/")
            or "?" in request.url
            or not isinstance(request.body, bytes)
        ):
            self._unplanned(operation, "the request is not a signed POST to /")
            return None
        region, service = scope
        fixed = {name: value for name, value in headers.items() if name.lower() not in _PER_CALL}
        signer = Signer(canonical_host(request.url), region, service)
        sent_at = datetime.strptime(headers["X-Amz-Date"], "%Y%m%dT%H%M%SZ")
        mine = signer.headers(fixed, request.body, credentials, sent_at)
        if mine["Authorization"] != authorization:
            self._unplanned(operation, "its signature differs from botocore's")
            return None
        shape = self._operation(operation).input_shape
        tokens = tuple(
            name
            for name, member in (shape.members.items() if shape is not None else ())
            if member.metadata.get("idempotencyToken")
        )
        return Plan(request.url, fixed, signer, tokens)

    def _unplanned(self, operation: str, why: str) -> None:
        if not self._warned:
            self._warned = True
            logger.warning("%s calls go through botocore whole: %s", operation, why)
        return None

    async def _credentials(self) -> Credentials | None:
        held = self._client._request_signer._credentials
        if held is None:
            return None
        frozen: Credentials = await held.get_frozen_credentials()  # a ReadOnlyCredentials
        return frozen

    def _operation(self, name: str) -> OperationModel:
        known = self._operations.get(name)
        if known is None:
            known = self._operations[name] = self._model.operation_model(name)
        return known

    async def _send(self, name: str, plan: Plan, body: bytes, credentials: Credentials) -> Any:
        operation = self._operation(name)
        config = self._client.meta.config
        context: dict[str, Any] = {"client_region": self._client.meta.region_name}
        context["client_config"] = config
        request_dict = {"context": context}
        attempts = 1
        self._endpoint._update_retries_context(context, attempts)
        while True:
            fixed = plan.fixed
            if "AWS_LAMBDA_FUNCTION_NAME" in os.environ:
                fixed = {**fixed}
                add_recursion_detection_header({"headers": fixed})  # as before-call adds it
            headers = plan.signer.headers(fixed, body, credentials, datetime.now(UTC))
            headers.update(_retry_headers(context))
            headers["Content-Length"] = str(len(body))
            # A plain dict: the HTTP session reads the headers with `items()` only.
            request = AWSPreparedRequest("POST", plan.url, cast(Any, headers), body, False)
            exception: Exception | None = None
            answer: tuple[Any, dict[str, Any]] | None = None
            whole = False
            try:
                http = await self._http.send(request)
                response = await convert_to_response_dict(http, operation)
                whole = http.status_code < 300 and _whole(http.headers, response["body"])
                parsed = await self._parser.parse(response, operation.output_shape)
                if http.status_code >= 300:  # an error's own members, as the endpoint adds
                    await self._endpoint._add_modeled_error_fields(
                        response, parsed, operation, self._parser
                    )
                answer = (http, parsed)
            except Exception as caught:  # as botocore's endpoint: the attempt's outcome
                exception = caught
            if answer is not None and whole:
                break
            if not await self._endpoint._needs_retry(
                attempts, operation, request_dict, answer, exception
            ):
                break
            attempts += 1
            self._endpoint._update_retries_context(context, attempts, answer)
            credentials = await self._credentials() or credentials
        return await self._answer(name, operation, context, attempts, answer, exception)

    async def _answer(
        self,
        name: str,
        operation: OperationModel,
        context: dict[str, Any],
        attempts: int,
        answer: tuple[Any, dict[str, Any]] | None,
        exception: Exception | None,
    ) -> Any:
        events = self._client.meta.events
        if answer is None:
            assert exception is not None
            await events.emit(
                f"after-call-error.{self._service}.{name}", exception=exception, context=context
            )
            raise exception
        http, parsed = answer
        metadata = parsed.get("ResponseMetadata")
        if metadata is not None:
            metadata["RetryAttempts"] = attempts - 1
        await events.emit(
            f"after-call.{self._service}.{name}",
            http_response=http,
            parsed=parsed,
            model=operation,
            context=context,
        )
        if http.status_code >= 300:
            code = (parsed.get("Error") or {}).get("Code")
            raise self._client.exceptions.from_code(code)(parsed, name)
        return parsed


def _body(plan: Plan, params: Mapping[str, Any]) -> bytes | None:
    """The JSON body botocore would send (as a value: botocore's has spaces), or None for
    parameters orjson reads otherwise than botocore's serialiser."""
    if plan.tokens:
        params = {**{token: str(uuid.uuid4()) for token in plan.tokens}, **params}
    try:
        return orjson.dumps(params, default=_blob)
    except TypeError:  # an integer beyond 64 bits, a key that is not a string, …
        return None


def _blob(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    raise TypeError


def _whole(headers: Mapping[str, str], body: Any) -> bool:
    """Whether the body is the one DynamoDB sent: its CRC32 is the one the header states.
    (A mismatch is botocore's retry handler's to judge: it retries such an answer.)"""
    stated = headers.get("x-amz-crc32")
    if stated is None:
        return True
    try:
        return isinstance(body, bytes) and zlib.crc32(body) == int(stated)
    except ValueError:
        return False


def _retry_headers(context: Mapping[str, Any]) -> dict[str, str]:
    """botocore's `add_retry_headers`, from the same retries context."""
    retries = context["retries"]
    return {
        "amz-sdk-invocation-id": retries["invocation-id"],
        "amz-sdk-request": "; ".join(
            f"{key}={retries[key]}" for key in ("ttl", "attempt", "max") if key in retries
        ),
    }


def _scope(authorization: str) -> tuple[str, str] | None:
    """The region and service of a SigV4 Authorization header's credential scope."""
    prefix = "AWS4-HMAC-SHA256 Credential="
    if not authorization.startswith(prefix):
        return None
    parts = authorization[len(prefix) :].split(",", 1)[0].split("/")
    if len(parts) != 5 or parts[4] != "aws4_request":
        return None
    return parts[2], parts[3]


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
