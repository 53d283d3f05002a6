"""Safe retries (docs/http.md#safe-retries): an Idempotency-Key makes a mutation happen once per
caller and key; its record is written in the mutation's own transaction."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from errors.vocabulary import BadUserInput
from keys.idempotency import checked_key, fingerprint, record_key
from keys.table import TABLE
from store.requests import from_attributes, to_attributes
from tests.client import Api, settings_for
from tests.documents import CREATE_CUSTOMER, PLACE_ORDER, SET_ORDER_STATUS
from tests.faults import FaultProxy, without_backoff
from tests.identity import SECURED, as_user
from tests.table import scan_all

ALICE = {"input": {"id": "alice", "name": "Alice", "email": "a@x.io"}}
LINE = {"sku": "A", "quantity": 1, "unitPriceCents": 5}
ORDER = {"input": {"customerId": "alice", "items": [LINE]}}


async def send(
    api: Api, query: str, variables: dict[str, Any], key: str | None = None
) -> tuple[int, dict[str, Any], str | None]:
    headers = dict(api.headers)
    if key is not None:
        headers["Idempotency-Key"] = key
    response = await api.http.post(
        "/graphql", json={"query": query, "variables": variables}, headers=headers
    )
    return response.status_code, response.json(), response.headers.get("Idempotent-Replayed")


def code(body: dict[str, Any]) -> str | None:
    errors = body.get("errors") or [{}]
    return errors[0].get("extensions", {}).get("code")


async def of_type(client: Any, table: str, kind: str) -> list[dict[str, Any]]:
    return [item for item in await scan_all(client, table) if item.get("type") == kind]


def test_a_key_is_1_to_128_safe_characters() -> None:
    for good in ("a", "A-z_0.9:x", "k" * 128, "0b6e1d8c-7a1f-4c3e-9d55-2f0c1b9a8e77"):
        assert checked_key(good) == good
    for bad in ("", "k" * 129, "has space", "é", "a/b", "a\nb"):
        with pytest.raises(BadUserInput, match="Idempotency-Key: use 1 to 128"):
            checked_key(bad)


def test_the_fingerprint_is_the_request_whatever_the_order_of_variables() -> None:
    one = fingerprint("mutation { a }", None, {"x": 1, "y": [1, 2]})
    assert one == fingerprint("mutation { a }", None, {"y": [1, 2], "x": 1})
    assert one != fingerprint("mutation { a }", None, {"x": 2, "y": [1, 2]})
    assert one != fingerprint("mutation { a }", "A", {"x": 1, "y": [1, 2]})
    assert one != fingerprint("mutation { b }", None, {"x": 1, "y": [1, 2]})
    assert record_key(TABLE, "user:ada", "k") != record_key(TABLE, "user:grace", "k")


async def test_a_malformed_key_is_400_and_nothing_runs(api: Api, client: Any, table: str) -> None:
    for key in ("", "x" * 129, "no spaces"):
        status, body, _ = await send(api, CREATE_CUSTOMER, ALICE, key)
        assert status == 400 and code(body) == "BAD_USER_INPUT", body
        assert "Idempotency-Key" in body["errors"][0]["message"]
    twice = await api.http.post(
        "/graphql",
        json={"query": CREATE_CUSTOMER, "variables": ALICE},
        headers=[("Idempotency-Key", "a"), ("Idempotency-Key", "b")],
    )
    assert twice.status_code == 400
    assert await of_type(client, table, "CUSTOMER") == []


async def test_a_repeat_gets_the_first_answer_without_running_again(
    api: Api, client: Any, table: str
) -> None:
    await send(api, CREATE_CUSTOMER, ALICE)
    status, first, replayed = await send(api, PLACE_ORDER, ORDER, "order-1")
    assert status == 200 and "errors" not in first and replayed is None, first
    again_status, again, replayed = await send(api, PLACE_ORDER, ORDER, "order-1")
    assert again_status == 200 and replayed == "true"
    # The same order (a new one would have a new id), from one read of the key's record.
    assert again["data"] == first["data"]
    assert again["extensions"]["cost"]["requests"] == 1
    assert len(await of_type(client, table, "ORDER")) == 1
    # The record: written with the order, kept a day (DynamoDB's time to live), answered.
    (record,) = await of_type(client, table, "IDEMPOTENCY")
    assert abs(int(record["expiresAt"]) - (time.time() + 86_400)) < 60
    assert '"placeOrder"' in record["answer"]
    # Another key runs again.
    _, other, _ = await send(api, PLACE_ORDER, ORDER, "order-2")
    assert other["data"]["placeOrder"]["id"] != first["data"]["placeOrder"]["id"]


async def test_the_same_key_with_another_request_is_conflict(
    api: Api, client: Any, table: str
) -> None:
    await send(api, CREATE_CUSTOMER, ALICE)
    await send(api, PLACE_ORDER, ORDER, "k")
    other_variables = {"input": {**ORDER["input"], "items": [LINE, LINE]}}
    for query, variables in ((PLACE_ORDER, other_variables), (CREATE_CUSTOMER, ALICE)):
        status, body, _ = await send(api, query, variables, "k")
        assert status == 200 and code(body) == "CONFLICT", body
        assert "another request" in body["errors"][0]["message"]
    assert len(await of_type(client, table, "ORDER")) == 1


async def test_keys_are_each_callers_own(endpoint: str, table: str, client: Any) -> None:
    async with Api.serving(settings_for(endpoint, table, **SECURED)) as api:
        admin = as_user(api, "root", admin=True)
        for name in ("ada", "grace"):
            customer = {"input": {"id": name, "name": name, "email": f"{name}@x.io"}}
            await send(admin, CREATE_CUSTOMER, customer)
            own = {"input": {"customerId": name, "items": [LINE]}}
            _, body, replayed = await send(as_user(api, name), PLACE_ORDER, own, "same")
            assert "errors" not in body and replayed is None, body
    assert len(await of_type(client, table, "ORDER")) == 2


async def test_a_refused_mutation_leaves_no_record_so_a_retry_runs(
    api: Api, client: Any, table: str
) -> None:
    _, refused, _ = await send(api, PLACE_ORDER, ORDER, "k")  # no such customer yet
    assert code(refused) == "NOT_FOUND"
    assert await of_type(client, table, "IDEMPOTENCY") == []
    await send(api, CREATE_CUSTOMER, ALICE)
    _, placed, replayed = await send(api, PLACE_ORDER, ORDER, "k")
    assert "errors" not in placed and replayed is None


async def test_queries_run_as_always_with_a_key(api: Api) -> None:
    query = '{ customer(id: "nobody") { id } }'
    for _ in range(2):
        _, body, replayed = await send(api, query, {}, "k")
        assert body["data"] == {"customer": None} and replayed is None


async def test_queries_ignore_the_header_whatever_it_holds(api: Api) -> None:
    query = '{ customer(id: "nobody") { id } }'
    for key in ("", "x" * 129, "no spaces", "a/b"):
        status, body, replayed = await send(api, query, {}, key)
        assert status == 200 and body["data"] == {"customer": None}, body
        assert "errors" not in body and replayed is None
    response = await api.http.get(
        "/graphql",
        params={"query": query},
        headers={**api.headers, "Idempotency-Key": "not a key"},
    )
    assert response.status_code == 200 and response.json()["data"] == {"customer": None}


async def test_an_expired_record_is_none(api: Api, client: Any, table: str) -> None:
    await send(api, CREATE_CUSTOMER, ALICE)
    _, first, _ = await send(api, PLACE_ORDER, ORDER, "k")
    (record,) = await of_type(client, table, "IDEMPOTENCY")
    expired = {**record, "expiresAt": int(time.time()) - 1}
    await client.put_item(TableName=table, Item=to_attributes(expired))
    _, second, replayed = await send(api, PLACE_ORDER, ORDER, "k")
    assert replayed is None
    assert second["data"]["placeOrder"]["id"] != first["data"]["placeOrder"]["id"]


async def test_concurrent_repeats_run_once(api: Api, client: Any, table: str) -> None:
    await send(api, CREATE_CUSTOMER, ALICE)
    answers = await asyncio.gather(*(send(api, PLACE_ORDER, ORDER, "k") for _ in range(6)))
    assert len(await of_type(client, table, "ORDER")) == 1
    ids = {body["data"]["placeOrder"]["id"] for _, body, _ in answers if not body.get("errors")}
    assert len(ids) == 1
    for _, body, _ in answers:  # the others: the same order, or told to retry
        assert not body.get("errors") or code(body) == "CONFLICT", body


@pytest.fixture
async def faulty_api(
    proxy: FaultProxy, table: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Api]:
    """The gateway through the fault proxy, its SDK retrying at once."""
    without_backoff(monkeypatch)
    async with Api.serving(settings_for(proxy.url, table)) as running:
        yield running


async def test_with_every_write_answer_lost_a_retry_gets_the_first_answer(
    api: Api, faulty_api: Api, proxy: FaultProxy, client: Any, table: str
) -> None:
    """The measured case: each create answered UNAVAILABLE although it was done, and a
    status move's retry BAD_USER_INPUT for the move the first call made."""
    await send(api, CREATE_CUSTOMER, ALICE)
    _, placed, _ = await send(api, PLACE_ORDER, ORDER)
    order_id = placed["data"]["placeOrder"]["id"]
    for operation in ("PutItem", "UpdateItem", "TransactWriteItems"):
        proxy.inject(operation, "lose")
    bob = {"input": {"id": "bob", "name": "Bob", "email": "b@x.io"}}
    ship = {"id": order_id, "status": "SHIPPED"}
    for query, variables, key in ((CREATE_CUSTOMER, bob, "c"), (SET_ORDER_STATUS, ship, "s")):
        _, first, _ = await send(faulty_api, query, variables, key)
        assert "errors" not in first, first
        _, again, replayed = await send(faulty_api, query, variables, key)
        assert replayed == "true" and again["data"] == first["data"]
    customers = await of_type(client, table, "CUSTOMER")
    assert sorted(c["id"] for c in customers) == ["alice", "bob"]
    (order,) = await of_type(client, table, "ORDER")
    assert order["status"] == "SHIPPED"
    records = await of_type(client, table, "IDEMPOTENCY")
    assert len(records) == 2 and all("answer" in r for r in records)
    assert all(from_attributes(to_attributes(r))["fingerprint"] for r in records)


async def test_an_answer_that_could_not_be_kept_is_said_so(
    faulty_api: Api, proxy: FaultProxy, client: Any, table: str
) -> None:
    """The mutation is done, but every write of its answer fails: a retry is told to wait
    while the first request may still keep it, and after that that it was done."""
    proxy.inject("UpdateItem", "throttle")  # the answer's write; the create is a transaction
    _, first, _ = await send(faulty_api, CREATE_CUSTOMER, ALICE, "k")
    assert "errors" not in first, first
    proxy.clear()
    _, early, _ = await send(faulty_api, CREATE_CUSTOMER, ALICE, "k")
    assert code(early) == "CONFLICT" and "retry shortly" in early["errors"][0]["message"]
    (record,) = await of_type(client, table, "IDEMPOTENCY")
    assert "answer" not in record
    past = {**record, "writtenAt": time.time() - 3600}
    await client.put_item(TableName=table, Item=to_attributes(past))
    _, late, _ = await send(faulty_api, CREATE_CUSTOMER, ALICE, "k")
    assert code(late) == "CONFLICT"
    assert "was done, but its answer could not be kept" in late["errors"][0]["message"]
    assert [c["id"] for c in await of_type(client, table, "CUSTOMER")] == ["alice"]


async def test_a_refused_operation_reads_no_record(endpoint: str, table: str, client: Any) -> None:
    async with Api.serving(settings_for(endpoint, table, max_requests=1)) as api:
        _, refused, _ = await send(api, CREATE_CUSTOMER, ALICE, "k")
    assert code(refused) == "QUERY_TOO_COMPLEX"
    assert refused["extensions"]["cost"]["requests"] == 0


async def test_the_cost_counts_every_call_the_key_made(api: Api) -> None:
    """The record's read before, the transaction, the item read back, the answer kept."""
    await send(api, CREATE_CUSTOMER, ALICE)
    _, placed, _ = await send(api, PLACE_ORDER, ORDER)
    before = await _calls(api)
    ship = {"id": placed["data"]["placeOrder"]["id"], "status": "SHIPPED"}
    _, moved, _ = await send(api, SET_ORDER_STATUS, ship, "k")
    assert "errors" not in moved, moved
    made = await _calls(api) - before
    assert moved["extensions"]["cost"]["requests"] == made == 5


async def _calls(api: Api) -> int:
    text = (await api.http.get("/metrics")).text
    return int(
        sum(
            float(line.split()[-1])
            for line in text.splitlines()
            if line.startswith("dynagate_dynamodb_requests_total{")
        )
    )
