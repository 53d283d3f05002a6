"""Subscriptions over a real WebSocket: events decided from old and new states, bounds,
charges, metrics, logs, a stalled subscriber and dropped sockets (sign-in, rules and limits
are in `test_subscriptions_access.py`).

The changes are handed to the process's feed as the stream reader hands them (records of
`store.stream.reader`), so each test decides exactly what the stream says; the reader itself, and
writes reaching subscribers through DynamoDB's stream, are tested in
`test_subscriptions_stream.py`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from websockets.client import ClientProtocol
from websockets.protocol import State
from websockets.uri import parse_uri

from gateway.live import handler as live
from store.cost import Cost
from tests.client import settings_for
from tests.demo_comments import comment_key
from tests.demo_repos import REPO_TEMPLATE
from tests.live import PROTOCOL, Served, connected, served
from tests.subscribing import ISSUES, code_of, issue_item, record, until

pytestmark = pytest.mark.streamed


async def test_kinds_follow_the_arguments_and_the_states(gateway: Served) -> None:
    feed = gateway.runtime.feed
    async with connected(gateway) as client:
        ident = await client.subscribe(ISSUES, state="OPEN")
        await until(lambda: feed.active == 1)
        one, closed = issue_item(1), issue_item(1, "CLOSED")
        renamed = issue_item(1, title="renamed")
        feed.publish(
            [
                record(None, one),  # ADDED
                # A derived item and another repository's issue: nothing.
                record(None, {**one, "SK": "STAR#ada"}),
                record(None, {**one, "PK": REPO_TEMPLATE.render(owner="Ada", name="other")}),
                record(one, renamed),  # CHANGED
                record(renamed, closed),  # REMOVED, the node its new state
                record(closed, issue_item(1, "CLOSED", "again")),  # neither matches
                record(None, issue_item(2)),  # ADDED
                record(issue_item(2), None),  # REMOVED, deleted: no node
            ]
        )
        events = [
            (await client.next_for(ident))["payload"]["data"]["issueChanges"] for _ in range(5)
        ]
    assert events == [
        {"kind": "ADDED", "number": 1, "issue": {"number": 1, "title": "t", "state": "OPEN"}},
        {
            "kind": "CHANGED",
            "number": 1,
            "issue": {"number": 1, "title": "renamed", "state": "OPEN"},
        },
        {"kind": "REMOVED", "number": 1, "issue": {"number": 1, "title": "t", "state": "CLOSED"}},
        {"kind": "ADDED", "number": 2, "issue": {"number": 2, "title": "t", "state": "OPEN"}},
        {"kind": "REMOVED", "number": 2, "issue": None},
    ]


async def test_frames_are_text_and_the_server_pings(
    gateway: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "PING_SECONDS", 0.05)
    async with connected(gateway) as client:
        ident = await client.subscribe(ISSUES)
        await until(lambda: gateway.runtime.feed.active == 1)
        await asyncio.sleep(0.3)
        gateway.runtime.feed.publish([record(None, issue_item(3))])
        message = await client.next_for(ident)
    assert message["type"] == "next"
    assert client.pings >= 2


async def test_a_dropped_socket_leaves_no_subscription_behind(gateway: Served) -> None:
    feed = gateway.runtime.feed
    async with connected(gateway):
        pass  # the first socket starts the stream reader, which stays
    await until(lambda: not gateway.graphql.sockets.open)
    baseline = len(asyncio.all_tasks())
    for _ in range(3):
        async with connected(gateway) as client:
            await client.subscribe(ISSUES)
            await client.subscribe(ISSUES, state="CLOSED")
            await until(lambda: feed.active == 2)
            assert len(asyncio.all_tasks()) > baseline
        await until(lambda: feed.active == 0 and not feed.topics)
    await until(lambda: not gateway.graphql.sockets.open)
    # No operation, ping or expiry task of the dropped sockets is left running.
    await until(lambda: len(asyncio.all_tasks()) <= baseline)


async def test_a_subscriber_past_its_buffer_ends_alone(secured: Served) -> None:
    feed = secured.runtime.feed
    async with connected(secured) as slow, connected(secured) as quick:
        slow_id = await slow.subscribe(ISSUES)
        quick_id = await quick.subscribe(ISSUES, state="CLOSED")
        await until(lambda: feed.active == 2)
        # More changes at once than a buffer of 3 holds, for the slow one only.
        feed.publish([record(None, issue_item(n)) for n in range(1, 6)])
        feed.publish([record(None, issue_item(9, "CLOSED"))])
        ended = await slow.next_for(slow_id)
        received = [await quick.next_for(quick_id) for _ in range(1)]
    assert code_of(ended) == "UNAVAILABLE", ended
    assert received[0]["type"] == "next"


DEEP = """subscription {
  commentChanges(productId: "p") {
    comment { product { comments(first: 100) { edges { node {
      product { comments(first: 100) { edges { node { body } } } }
    } } } } }
  }
}"""


async def test_a_selection_over_the_limits_is_refused_at_subscribe(gateway: Served) -> None:
    async with connected(gateway) as client:
        refused = await client.answer(DEEP)
        assert code_of(refused) == "QUERY_TOO_COMPLEX", refused
        await asyncio.sleep(0.1)
        assert gateway.runtime.feed.active == 0


def comment_item(comment_id: str, product_id: str, rating: int) -> dict[str, Any]:
    return {
        **comment_key(comment_id),
        "id": comment_id,
        "productId": product_id,
        "language": "en",
        "rating": rating,
        "body": "b",
        "createdAt": "2024-01-01T00:00:00.000Z",
        "updatedAt": "2024-01-01T00:00:00.000Z",
    }


@pytest.fixture
async def limited(endpoint: str, table: str) -> AsyncIterator[Served]:
    async with served(settings_for(endpoint, table, rate_limit=6.0)) as running:
        yield running


async def test_the_reads_of_events_are_charged_to_the_caller(limited: Served) -> None:
    feed, limiter = limited.runtime.feed, limited.runtime.limiter
    assert limiter is not None
    async with httpx.AsyncClient() as http:
        created = await http.post(
            limited.url + "/graphql",
            json={"query": 'mutation { createProduct(input: {id: "p1", name: "P"}) { id } }'},
        )
    assert "errors" not in created.json()
    before = limiter.retry_after("127.0.0.1"), limiter.budget("127.0.0.1", Cost())["remaining"]
    async with connected(limited) as client:
        ident = await client.subscribe(
            'subscription { commentChanges(productId: "p1") { id comment { product { name } } } }'
        )
        await until(lambda: feed.active == 1)
        ids = ["2VQp3kQxLzVQbYy3w1wYfJk1bQ" + c for c in "abc"]
        feed.publish([record(None, comment_item(i, "p1", 5)) for i in ids])
        got = [await client.next_for(ident) for _ in ids]
        await client.complete(ident)
        await until(lambda: feed.active == 0)
    assert [m["payload"]["data"]["commentChanges"]["comment"] for m in got] == [
        {"product": {"name": "P"}}
    ] * 3
    after = limiter.budget("127.0.0.1", Cost())["remaining"]
    # Three reads of the product (the last charged when the subscription ends), less what
    # the bucket refilled meanwhile (0.1 a second).
    assert before[1] - after >= 3 * 0.5 - 0.5, (before, after)


def metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} is not in /metrics")


async def test_metrics_count_sockets_subscriptions_and_events(secured: Served) -> None:
    feed = secured.runtime.feed

    async def scrape() -> str:
        async with httpx.AsyncClient() as http:
            return (await http.get(secured.url + "/metrics")).text

    async with connected(secured) as slow, connected(secured) as quick:
        slow_id = await slow.subscribe(ISSUES)
        quick_id = await quick.subscribe(ISSUES, state="CLOSED")
        await until(lambda: feed.active == 2)
        text = await scrape()
        assert metric(text, "dynagate_websockets_open") == 2
        assert metric(text, "dynagate_subscriptions_active") == 2
        feed.publish([record(None, issue_item(n)) for n in range(1, 6)])
        feed.publish([record(None, issue_item(9, "CLOSED"))])
        await slow.next_for(slow_id)
        await quick.next_for(quick_id)
    await until(lambda: feed.active == 0)
    text = await scrape()
    # The slow one's buffer of 3 and the change that found it full.
    assert metric(text, 'dynagate_subscription_events_total{outcome="dropped"}') == 4
    assert metric(text, 'dynagate_subscription_events_total{outcome="delivered"}') >= 1
    assert metric(text, "dynagate_websockets_open") == 0
    assert metric(text, "dynagate_subscriptions_active") == 0


async def test_one_log_line_at_the_start_and_the_end_of_a_subscription(
    gateway: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="dynagate")
    async with connected(gateway) as client:
        ident = await client.subscribe("subscription Watch " + ISSUES.removeprefix("subscription "))
        await until(lambda: gateway.runtime.feed.active == 1)
        await client.complete(ident)
        await until(lambda: gateway.runtime.feed.active == 0)
    lines = [r for r in caplog.records if r.getMessage().startswith("subscription")]
    fields = [r.fields for r in lines]  # type: ignore[attr-defined]
    assert [(f["event"], f["operationName"]) for f in fields[:2]] == [
        ("started", "Watch"),
        ("ended", "Watch"),
    ]
    assert fields[0]["requestId"] == fields[1]["requestId"]
    assert len(fields[0]["requestId"]) == 32


async def stalled_subscriber(served: Served, query: str) -> asyncio.StreamWriter:
    """A socket that subscribes, then reads nothing: a small receive window, and reading
    paused past 2 KB (the WebSocket spoken through websockets' sans-I/O client)."""
    small = socket.socket()
    small.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    small.setblocking(False)
    await asyncio.get_running_loop().sock_connect(small, ("127.0.0.1", served.port))
    reader, writer = await asyncio.open_connection(sock=small, limit=1024)
    client = ClientProtocol(parse_uri(served.ws_url), subprotocols=[PROTOCOL])
    client.send_request(client.connect())
    writer.write(b"".join(client.data_to_send()))
    async with asyncio.timeout(5):
        while not client.handshake_exc and client.state is not State.OPEN:
            data = await reader.read(1024)
            assert data, f"the server closed the socket: {client.events_received()}"
            client.receive_data(data)
    assert client.handshake_exc is None, client.handshake_exc
    for message in (
        {"type": "connection_init", "payload": {}},
        {"id": "s", "type": "subscribe", "payload": {"query": query}},
    ):
        client.send_text(json.dumps(message).encode())
    writer.write(b"".join(client.data_to_send()))
    await writer.drain()
    return writer


async def test_a_client_that_stops_reading_ends_alone(
    secured: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that reads nothing fills its socket, then its buffer of 3: its subscription
    ends, and the other subscriber gets every event meanwhile."""
    monkeypatch.setattr(live, "SEND_SECONDS", 1.0)
    feed = secured.runtime.feed
    title = "x" * 16_000
    async with connected(secured) as quick:
        quick_id = await quick.subscribe(ISSUES)
        stalled = await stalled_subscriber(secured, ISSUES)
        try:
            await until(lambda: feed.active == 2)
            received = 0
            for number in range(1, 2001):
                feed.publish([record(None, issue_item(number, title=title))])
                message = await quick.next_for(quick_id)
                assert message["type"] == "next"
                received += 1
                if feed.active == 1:
                    break
            assert feed.active == 1, "the stalled subscriber never fell behind"
            # The quick one goes on as before; the stalled one's send gives up after
            # SEND_SECONDS, and its subscription's task ends.
            feed.publish([record(None, issue_item(5000))])
            assert (await quick.next_for(quick_id))["type"] == "next"
            metrics = secured.runtime.metrics
            assert metrics is not None
            active = "dynagate_subscriptions_active"
            await until(lambda: metrics.registry.get_sample_value(active) == 1, within=10)
        finally:
            stalled.close()
    assert received > 3


async def test_the_stream_is_read_only_once_someone_connects(gateway: Served) -> None:
    """A process no one subscribes to makes no stream calls; the first socket starts the
    reader, at the stream's latest record, before it is acknowledged."""
    await asyncio.sleep(0.3)
    assert gateway.runtime.reading is None
    async with connected(gateway):
        reader = gateway.runtime.reader
        assert reader is not None and reader.ready.is_set()
        assert gateway.runtime.reading is not None


async def test_queries_and_mutations_run_over_the_socket_too(gateway: Served) -> None:
    async with connected(gateway) as client:
        created = await client.answer(
            'mutation { createRepo(input: {owner: "ada", name: "ws"}) { name } }'
        )
        assert created["payload"]["data"] == {"createRepo": {"name": "ws"}}
        read = await client.answer('{ repo(owner: "ada", name: "ws") { name starCount } }')
        assert read["payload"]["data"] == {"repo": {"name": "ws", "starCount": 0}}
        assert read["payload"]["extensions"]["cost"]["requests"] == 1


@pytest.mark.parametrize(
    ("document", "code"),
    [
        ("subscription { issueChanges(", "BAD_USER_INPUT"),
        ("{ __typename }" + "#" * 70_000, "QUERY_TOO_COMPLEX"),
        ("{ " + "__typename " * 6_000 + "}", "QUERY_TOO_COMPLEX"),
    ],
    ids=["syntax", "size", "tokens"],
)
async def test_a_document_the_parser_refuses_says_why(
    gateway: Served, document: str, code: str
) -> None:
    async with connected(gateway) as client:
        refused = await client.answer(document)
        assert code_of(refused) == code, refused
        # The socket goes on serving.
        read = await client.answer("{ __typename }")
        assert read["payload"]["data"] == {"__typename": "Query"}
