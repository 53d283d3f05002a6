"""Every subscription and kind end to end: writes made through the gateway's mutations, or
straight to the table with boto3, reach a real WebSocket client through DynamoDB Local's
stream; one entity change is one event, whatever items the write touched."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import boto3
import httpx
import pytest

from demo.model.tickets import TICKET
from store.transport.connection import LOCAL_CREDENTIALS
from tests.client import settings_for
from tests.faults import FaultProxy
from tests.live import LiveClient, Served, connected, events, listening, mutate, served

pytestmark = pytest.mark.streamed

VIEW = {"north": 51.6, "south": 51.4, "east": 0.0, "west": -0.3}


@pytest.fixture
async def gateway(endpoint: str, table: str) -> AsyncIterator[Served]:
    async with served(settings_for(endpoint, table)) as running:
        yield running


async def quiet(client: LiveClient, ident: str) -> None:
    """Nothing more arrives for `ident` within a second."""
    with pytest.raises(TimeoutError):
        await client.next_for(ident, within=1.0)


async def test_markers_enter_and_leave_the_viewport(gateway: Served) -> None:
    async with listening(
        gateway,
        "subscription ($v: Viewport!) { markerChanges(viewport: $v) {"
        " kind id marker { id label lat lon } } }",
        v=VIEW,
    ) as (client, [ident]):
        outside = await mutate(
            gateway,
            'mutation { addMarker(input: {lat: 48.85, lon: 2.35, label: "Paris"}) { id } }',
        )
        inside = await mutate(
            gateway,
            'mutation { addMarker(input: {lat: 51.5, lon: -0.12, label: "London"}) { id } }',
        )
        marker_id = inside["addMarker"]["id"]
        await mutate(gateway, "mutation ($id: ID!) { removeMarker(id: $id) }", id=marker_id)
        added, removed = await events(client, ident, 2)
        await quiet(client, ident)
    assert added == {
        "kind": "ADDED",
        "id": marker_id,
        "marker": {"id": marker_id, "label": "London", "lat": 51.5, "lon": -0.12},
    }
    assert removed == {"kind": "REMOVED", "id": marker_id, "marker": None}
    assert outside["addMarker"]["id"] != marker_id


async def test_a_comment_is_one_event_not_one_per_copy(gateway: Served) -> None:
    await mutate(gateway, 'mutation { createProduct(input: {id: "lamp", name: "Lamp"}) { id } }')
    async with listening(
        gateway,
        'subscription { commentChanges(productId: "lamp", language: "en", ratings: [4, 5])'
        " { kind id comment { rating body product { name } } } }",
    ) as (client, [ident]):
        post = (
            'mutation ($r: Int!, $l: String!) { postComment(input: {productId: "lamp",'
            ' language: $l, rating: $r, body: "b"}) { id } }'
        )
        await mutate(gateway, post, r=2, l="en")  # filtered out: rating 2
        await mutate(gateway, post, r=5, l="fr")  # filtered out: French
        posted = (await mutate(gateway, post, r=5, l="en"))["postComment"]["id"]
        edit = "mutation ($id: ID!, $r: Int) { editComment(input: {id: $id, rating: $r}) { id } }"
        await mutate(gateway, edit, id=posted, r=4)
        await mutate(gateway, edit, id=posted, r=1)
        found = await events(client, ident, 3)
        await quiet(client, ident)
    assert [(e["kind"], e["id"]) for e in found] == [
        ("ADDED", posted),
        ("CHANGED", posted),
        ("REMOVED", posted),
    ]
    assert found[1]["comment"] == {"rating": 4, "body": "b", "product": {"name": "Lamp"}}
    assert found[2]["comment"]["rating"] == 1  # the new state, no longer matching


async def test_issues_opened_and_closed(gateway: Served) -> None:
    await mutate(gateway, 'mutation { createRepo(input: {owner: "ada", name: "g"}) { name } }')
    async with listening(
        gateway,
        'subscription { issueChanges(owner: "Ada", name: "G", state: OPEN)'
        " { kind number issue { state } } }",
        'subscription { issueChanges(owner: "ada", name: "g") { kind number } }',
    ) as (client, [open_only, every]):
        opened = 'mutation { openIssue(input: {owner: "ada", name: "g", title: "t"}) { number } }'
        number = (await mutate(gateway, opened))["openIssue"]["number"]
        await mutate(
            gateway,
            f'mutation {{ closeIssue(owner: "ada", name: "g", number: {number}) {{ number }} }}',
        )
        assert await events(client, open_only, 2) == [
            {"kind": "ADDED", "number": number, "issue": {"state": "OPEN"}},
            {"kind": "REMOVED", "number": number, "issue": {"state": "CLOSED"}},
        ]
        assert await events(client, every, 2) == [
            {"kind": "ADDED", "number": number},
            {"kind": "CHANGED", "number": number},
        ]


async def test_tickets_and_orders(gateway: Served) -> None:
    await mutate(gateway, 'mutation { createQueue(input: {id: "q1", name: "Q"}) { id } }')
    await mutate(
        gateway,
        'mutation { createCustomer(input: {id: "c1", name: "C", email: "c@example.com"}) { id } }',
    )
    async with listening(
        gateway,
        'subscription { ticketChanges(queueId: "q1") { kind id ticket { status } } }',
        'subscription { orderChanges(customerId: "c1", status: PLACED)'
        " { kind id order { status items { sku } } } }",
    ) as (client, [tickets, placed]):
        ticket = (
            await mutate(
                gateway, 'mutation { openTicket(input: {queueId: "q1", title: "t"}) { id } }'
            )
        )["openTicket"]["id"]
        await mutate(
            gateway,
            "mutation ($id: ID!) { updateTicket(input: {id: $id, status: CLOSED}) { id } }",
            id=ticket,
        )
        order = (
            await mutate(
                gateway,
                'mutation { placeOrder(input: {customerId: "c1", items: [{sku: "S", quantity: 1,'
                " unitPriceCents: 5}]}) { id } }",
            )
        )["placeOrder"]["id"]
        await mutate(
            gateway,
            "mutation ($id: ID!) { setOrderStatus(id: $id, status: SHIPPED) { id } }",
            id=order,
        )
        assert await events(client, tickets, 2) == [
            {"kind": "ADDED", "id": ticket, "ticket": {"status": "OPEN"}},
            {"kind": "CHANGED", "id": ticket, "ticket": {"status": "CLOSED"}},
        ]
        assert await events(client, placed, 2) == [
            {"kind": "ADDED", "id": order, "order": {"status": "PLACED", "items": [{"sku": "S"}]}},
            {
                "kind": "REMOVED",
                "id": order,
                "order": {"status": "SHIPPED", "items": [{"sku": "S"}]},
            },
        ]


async def test_a_write_straight_to_the_table_is_delivered(
    gateway: Served, endpoint: str, table: str
) -> None:
    """Another service writing the table with boto3, not through the gateway."""
    async with listening(
        gateway, 'subscription { ticketChanges(queueId: "elsewhere") { kind id ticket { title } } }'
    ) as (client, [ident]):
        ticket_id = "2VQp3kQxLzVQbYy3w1wYfJk1bQe"
        item = {
            **TICKET.primary_key({"id": ticket_id}),
            "type": "TICKET",
            "id": ticket_id,
            "queueId": "elsewhere",
            "title": "from another service",
            "status": "OPEN",
            "createdAt": "2024-01-01T00:00:00.000Z",
            "updatedAt": "2024-01-01T00:00:00.000Z",
        }

        def put() -> None:
            dynamodb = boto3.resource(
                "dynamodb", endpoint_url=endpoint, region_name="us-east-1", **LOCAL_CREDENTIALS
            )
            dynamodb.Table(table).put_item(Item=item)

        await asyncio.to_thread(put)
        assert await events(client, ident, 1) == [
            {"kind": "ADDED", "id": ticket_id, "ticket": {"title": "from another service"}}
        ]
    async with httpx.AsyncClient() as http:
        text = (await http.get(gateway.url + "/metrics")).text
    lag = next(line for line in text.splitlines() if line.startswith("dynagate_stream_lag"))
    # DynamoDB Local gives a change's time to the minute only.
    assert 0 <= float(lag.split()[1]) < 120, lag
    calls = 'dynagate_dynamodb_requests_total{operation="GetRecords",outcome="ok"}'
    assert any(line.startswith(calls) for line in text.splitlines())


async def test_subscribers_hear_every_change_across_a_stream_outage(
    endpoint: str, table: str, proxy: FaultProxy
) -> None:
    """The gateway reaches DynamoDB through the fault proxy, whose GetRecords fails for a
    while; the changes written meanwhile (straight to the table) arrive after it, once
    each, in order."""
    async with (
        served(settings_for(proxy.url, table)) as gateway,
        connected(gateway) as client,
    ):
        await mutate(gateway, 'mutation { createRepo(input: {owner: "ada", name: "o"}) { name } }')
        ident = await client.subscribe(
            'subscription { issueChanges(owner: "ada", name: "o") { kind issue { title } } }'
        )
        await asyncio.sleep(0.2)
        rule = proxy.inject("GetRecords", "error", count=2)
        async with httpx.AsyncClient() as http:
            for n in range(3):
                opened = (
                    f'mutation {{ openIssue(input: {{owner: "ada", name: "o", title: "{n}"}})'
                    " { number } }"
                )
                # Written through the proxy too: only GetRecords fails.
                answer = await http.post(gateway.url + "/graphql", json={"query": opened})
                assert "errors" not in answer.json()
        found = await events(client, ident, 3)
        await quiet(client, ident)
    assert rule.hits == 2
    assert [e["issue"]["title"] for e in found] == ["0", "1", "2"]
