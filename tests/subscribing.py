"""What the subscription tests share: documents, stream records made by hand, and waiting
for what a socket does (their gateways on a real port are fixtures of `conftest.py`)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from store.stream.reader import StreamRecord
from tests.demo_repos import issue_key

ISSUES = """subscription ($state: IssueState) {
  issueChanges(owner: "Ada", name: "gateway", state: $state) {
    kind number issue { number title state }
  }
}"""
TICKETS = 'subscription { ticketChanges(queueId: "q1") { kind id } }'
ORDERS = "subscription ($c: ID!) { orderChanges(customerId: $c) { kind id } }"


def issue_item(number: int, state: str = "OPEN", title: str = "t") -> dict[str, Any]:
    return {
        **issue_key("Ada", "gateway", number),
        "number": number,
        "title": title,
        "state": state,
        "createdAt": "2024-01-01T00:00:00.000Z",
        "updatedAt": "2024-01-01T00:00:00.000Z",
    }


def record(old: dict[str, Any] | None, new: dict[str, Any] | None) -> StreamRecord:
    item = new if new is not None else old
    assert item is not None
    keys = {"PK": item["PK"], "SK": item["SK"]}
    event = "INSERT" if old is None else "REMOVE" if new is None else "MODIFY"
    return StreamRecord(event, keys, old, new, "1", "shard-1", time.time())  # type: ignore[arg-type]


def code_of(message: dict[str, Any]) -> str:
    """The code of a subscription that ended with errors: the protocol's `error` message,
    or a `next` whose payload holds the errors."""
    payload = message["payload"]
    errors = payload if message["type"] == "error" else payload["errors"]
    code: str = errors[0]["extensions"]["code"]
    return code


async def until(condition: Any, within: float = 5.0) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.01)


async def close_code(client: Any) -> int:
    """The code the server closes the socket with (messages before it are skipped)."""
    with pytest.raises(Exception):  # noqa: B017 (the socket's close, whatever the library calls it)
        for _ in range(10):
            await client.receive(within=5)
    code: int = client.socket.close_code
    return code
