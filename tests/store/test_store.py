"""The store: cost accounting, error mapping and paging, against DynamoDB Local."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, cast

import pytest
from botocore.exceptions import ClientError

from errors.vocabulary import Unavailable
from keys.conditions import KeyCondition
from keys.table import TABLE
from store import client as store_module
from store.client import Store
from store.cost import Cost
from store.errors import BoundExceeded, ConditionFailed, TransactionCanceled
from store.requests import Filter, condition_check, put_request, to_attributes
from tests.table import scan_all

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


# ---- Cost.record: pure


def test_a_dict_of_consumed_capacity_counts_as_read_or_write() -> None:
    cost = Cost()
    cost.record("GetItem", {"ConsumedCapacity": {"TableName": "t", "CapacityUnits": 1.5}})
    cost.record("PutItem", {"ConsumedCapacity": {"TableName": "t", "CapacityUnits": 2.0}})
    assert cost.requests == 2
    assert cost.read_capacity_units == 1.5
    assert cost.write_capacity_units == 2.0


def test_a_list_of_consumed_capacity_is_summed() -> None:
    cost = Cost()
    response = {
        "ConsumedCapacity": [
            {"TableName": "t", "CapacityUnits": 3.0},
            {"TableName": "u", "CapacityUnits": 0.5},
        ]
    }
    cost.record("Query", response, returned=4)
    cost.record("PutItem", response)
    assert cost.requests == 2
    assert cost.read_capacity_units == 3.5
    assert cost.write_capacity_units == 3.5


def test_read_and_write_units_given_apart_are_taken_as_given() -> None:
    # A transaction's ConditionCheck and Put can report both kinds in one entry.
    cost = Cost()
    cost.record(
        "write",
        {
            "ConsumedCapacity": [
                {"CapacityUnits": 5.0, "ReadCapacityUnits": 1.0, "WriteCapacityUnits": 4.0}
            ]
        },
    )
    cost.record("Query", {"ConsumedCapacity": {"CapacityUnits": 2.0, "ReadCapacityUnits": 2.0}})
    assert cost.read_capacity_units == 3.0
    assert cost.write_capacity_units == 4.0


def test_a_response_without_capacity_is_still_a_request() -> None:
    cost = Cost()
    cost.record("GetItem", {})
    cost.record("PutItem", {"ConsumedCapacity": []})
    cost.record("GetItem", {"ConsumedCapacity": None})
    assert cost.as_dict() == {
        "requests": 3,
        "readCapacityUnits": 0.0,
        "writeCapacityUnits": 0.0,
        "itemsScanned": 0,
        "itemsReturned": 0,
        "operations": {"GetItem": 2, "PutItem": 1},
    }


def test_scanned_and_returned_items() -> None:
    cost = Cost()
    cost.record("Query", {}, scanned=10, returned=3)  # a filtered Query
    cost.record("GetItem", {}, returned=4)  # a point read: what it returned is what it read
    cost.record("GetItem", {}, scanned=0, returned=0)
    assert cost.items_scanned == 14
    assert cost.items_returned == 7


def test_as_dict_uses_the_contract_names_and_rounds() -> None:
    cost = Cost()
    for _ in range(3):
        cost.record("GetItem", {"ConsumedCapacity": {"CapacityUnits": 0.1}}, scanned=2, returned=1)
    assert cost.as_dict() == {
        "requests": 3,
        "readCapacityUnits": 0.3,
        "writeCapacityUnits": 0.0,
        "itemsScanned": 6,
        "itemsReturned": 3,
        "operations": {"GetItem": 3},
    }


def test_operations_are_named_and_counted_as_requests_are() -> None:
    cost = Cost()
    for operation in ("Query", "BatchGetItem", "Query", "TransactWriteItems"):
        cost.record(operation, {})
    batch = Cost()
    batch.record("Query", {})
    batch.record("UpdateItem", {})
    cost.add(batch)
    assert cost.as_dict()["operations"] == {
        "BatchGetItem": 1,
        "Query": 3,
        "TransactWriteItems": 1,
        "UpdateItem": 1,
    }
    assert sum(cost.operations.values()) == cost.requests == 6


# ---- error mapping without a server


class _Failing:
    """A client whose every call fails with one botocore ClientError."""

    def __init__(self, code: str, **extra: Any) -> None:
        self.response: Any = {"Error": {"Code": code, "Message": "AWS says no"}, **extra}

    async def query(self, **request: Any) -> dict[str, Any]:
        raise ClientError(self.response, "Query")

    async def put_item(self, **request: Any) -> dict[str, Any]:
        raise ClientError(self.response, "PutItem")


@pytest.mark.parametrize(
    "code",
    [
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
    ],
)
async def test_throttling_past_retries_is_unavailable(code: str) -> None:
    store = Store(cast("DynamoDBClient", _Failing(code)), "t")
    with pytest.raises(Unavailable) as raised:
        await store.query(KeyCondition(TABLE, "P"), forward=True)
    assert "AWS says no" not in str(raised.value)
    assert store.cost.requests == 1


async def test_an_unexpected_client_error_is_not_disguised() -> None:
    store = Store(cast("DynamoDBClient", _Failing("ValidationException")), "t")
    with pytest.raises(ClientError):
        await store.put(put_request("t", {"PK": "a", "SK": "b"}))


class _Unprocessing:
    """BatchGetItem that leaves the last key unprocessed `times` times."""

    def __init__(self, times: int) -> None:
        self.times = times
        self.calls: list[int] = []

    async def batch_get_item(self, **request: Any) -> dict[str, Any]:
        keys = request["RequestItems"]["t"]["Keys"]
        self.calls.append(len(keys))
        done, rest = (keys[:-1], keys[-1:]) if self.times > 0 and len(keys) > 0 else (keys, [])
        self.times -= 1
        response: dict[str, Any] = {
            "Responses": {"t": [{**k, "v": {"N": "1"}} for k in done]},
            "ConsumedCapacity": [{"TableName": "t", "CapacityUnits": 0.5 * len(done)}],
        }
        if rest:
            response["UnprocessedKeys"] = {"t": {"Keys": rest}}
        return response


async def test_unprocessed_keys_are_asked_again() -> None:
    client = _Unprocessing(times=2)
    store = Store(cast("DynamoDBClient", client), "t")
    keys = [{"PK": "P", "SK": f"S#{n}"} for n in range(5)]
    items = await store.get_many(keys)
    assert sorted(i["SK"] for i in items) == [k["SK"] for k in keys]
    assert client.calls == [5, 1, 1]
    assert store.cost.requests == 3
    assert store.cost.items_returned == 5
    assert store.cost.read_capacity_units == 2.5


async def test_keys_left_unprocessed_past_retries_are_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(store_module, "_UNPROCESSED_RETRIES", 3)
    client = _Unprocessing(times=100)
    with pytest.raises(Unavailable):
        await Store(cast("DynamoDBClient", client), "t").get_many([{"PK": "P", "SK": "S"}])
    assert len(client.calls) == 3


# ---- against DynamoDB Local


async def _put_all(client: DynamoDBClient, table: str, items: list[dict[str, Any]]) -> None:
    for start in range(0, len(items), 25):
        chunk = items[start : start + 25]
        await client.batch_write_item(
            RequestItems={table: [{"PutRequest": {"Item": to_attributes(i)}} for i in chunk]}
        )


async def test_a_conditional_put_on_an_existing_item_is_condition_failed(
    client: DynamoDBClient, table: str
) -> None:
    store = Store(client, table)
    item = {"PK": "C#a", "SK": "C#a", "name": "first"}
    await store.put(put_request(table, item, new_on=TABLE))
    with pytest.raises(ConditionFailed):
        await store.put(put_request(table, {**item, "name": "second"}, new_on=TABLE))
    assert [i["name"] for i in await scan_all(client, table)] == ["first"]
    assert store.cost.requests == 2
    assert store.cost.write_capacity_units >= 1.0


async def test_a_cancelled_transaction_has_one_reason_per_action(
    client: DynamoDBClient, table: str
) -> None:
    store = Store(client, table)
    await store.put(put_request(table, {"PK": "C#exists", "SK": "C#exists"}))
    actions = [
        condition_check(table, {"PK": "C#exists", "SK": "C#exists"}, exists=True),
        condition_check(table, {"PK": "C#missing", "SK": "C#missing"}, exists=True),
        {"Put": put_request(table, {"PK": "O#1", "SK": "O#1"}, new_on=TABLE)},
    ]
    with pytest.raises(TransactionCanceled) as raised:
        await store.transact(actions)
    assert raised.value.reasons == ["None", "ConditionalCheckFailed", "None"]
    # Nothing of a cancelled transaction was written.
    assert [i["PK"] for i in await scan_all(client, table)] == ["C#exists"]
    assert store.cost.requests == 2


async def test_a_transaction_that_goes_through_reports_write_capacity(
    client: DynamoDBClient, table: str
) -> None:
    store = Store(client, table)
    await store.transact(
        [
            {"Put": put_request(table, {"PK": "A", "SK": "A"}, new_on=TABLE)},
            {"Put": put_request(table, {"PK": "B", "SK": "B"}, new_on=TABLE)},
        ]
    )
    assert store.cost.requests == 1
    # Transactional writes cost two units per item of up to 1 KB.
    assert store.cost.write_capacity_units == 4.0
    assert store.cost.read_capacity_units == 0.0


async def test_a_missing_table_is_unavailable(client: DynamoDBClient) -> None:
    store = Store(client, "no-such-table")
    with pytest.raises(Unavailable) as raised:
        await store.query(KeyCondition(TABLE, "P"), forward=True)
    assert "no-such-table" not in str(raised.value)
    with pytest.raises(Unavailable):
        await store.get_many([{"PK": "P", "SK": "S"}])


@pytest.fixture
async def big_partition(client: DynamoDBClient, table: str) -> list[str]:
    """30 items of ~50 KB in one partition: about 1.5 MB, more than one Query page."""
    blob = "x" * 50_000
    sort_keys = [f"S#{n:02d}" for n in range(30)]
    await asyncio.gather(
        *(
            client.put_item(
                TableName=table, Item=to_attributes({"PK": "BIG", "SK": sk, "blob": blob})
            )
            for sk in sort_keys
        )
    )
    return sort_keys


async def test_query_without_limit_follows_past_the_1_mb_page(
    client: DynamoDBClient, table: str, big_partition: list[str]
) -> None:
    store = Store(client, table)
    result = await store.query(KeyCondition(TABLE, "BIG"), forward=True)
    assert [i["SK"] for i in result.items] == big_partition
    assert result.last_key is None
    assert store.cost.requests >= 2
    assert store.cost.items_returned == store.cost.items_scanned == 30
    # ~50 KB per item at 4 KB per half unit: well over one page worth.
    assert store.cost.read_capacity_units > 128


async def test_query_stops_at_the_limit_and_says_where(
    client: DynamoDBClient, table: str, big_partition: list[str]
) -> None:
    store = Store(client, table)
    first = await store.query(KeyCondition(TABLE, "BIG"), forward=False, limit=5)
    assert [i["SK"] for i in first.items] == big_partition[::-1][:5]
    assert first.last_key == {"PK": "BIG", "SK": big_partition[-5]}
    assert store.cost.requests == 1
    rest = await store.query(
        KeyCondition(TABLE, "BIG"), forward=False, limit=100, start_key=first.last_key
    )
    assert [i["SK"] for i in rest.items] == big_partition[::-1][5:]
    assert rest.last_key is None


async def test_a_limit_past_the_first_page_is_filled_from_the_next(
    client: DynamoDBClient, table: str, big_partition: list[str]
) -> None:
    store = Store(client, table)
    result = await store.query(KeyCondition(TABLE, "BIG"), forward=True, limit=25)
    assert [i["SK"] for i in result.items] == big_partition[:25]
    assert result.last_key == {"PK": "BIG", "SK": big_partition[24]}
    assert store.cost.requests == 2


async def test_a_filter_counts_scanned_and_returned_items_apart(
    client: DynamoDBClient, table: str
) -> None:
    await _put_all(
        client,
        table,
        [{"PK": "F", "SK": f"S#{n}", "parity": "odd" if n % 2 else "even"} for n in range(10)],
    )
    store = Store(client, table)
    result = await store.query(
        KeyCondition(TABLE, "F"),
        forward=True,
        filter=Filter("parity = :p", {":p": "odd"}),
    )
    assert [i["SK"] for i in result.items] == [f"S#{n}" for n in range(1, 10, 2)]
    assert store.cost.items_scanned == 10
    assert store.cost.items_returned == 5


async def test_get_many_150_keys_is_two_batch_calls(client: DynamoDBClient, table: str) -> None:
    keys = [{"PK": f"P#{n % 40}", "SK": f"S#{n}"} for n in range(150)]
    items = [{**k, "n": n} for n, k in enumerate(keys)]
    await _put_all(client, table, items)
    store = Store(client, table)
    found = await store.get_many(keys)
    assert sorted(found, key=lambda i: i["n"]) == items
    assert store.cost.requests == 2
    assert store.cost.items_returned == store.cost.items_scanned == 150
    assert store.cost.read_capacity_units == 75.0  # eventually consistent: 0.5 per item


async def test_get_many_skips_missing_keys_and_repeats(client: DynamoDBClient, table: str) -> None:
    await _put_all(client, table, [{"PK": "P", "SK": "S#1"}, {"PK": "P", "SK": "S#2"}])
    store = Store(client, table)
    keys = [{"PK": "P", "SK": s} for s in ("S#1", "S#2", "S#1", "S#3")]
    found = await store.get_many(keys)
    assert sorted(i["SK"] for i in found) == ["S#1", "S#2"]
    assert store.cost.requests == 1
    assert await store.get_many([]) == []
    assert store.cost.requests == 1


async def test_a_store_never_makes_more_calls_than_its_budget(
    client: DynamoDBClient, table: str
) -> None:
    store = Store(client, table, budget=2)
    for n in range(2):
        assert await store.get({"PK": f"P#{n}", "SK": "S"}) is None
    with pytest.raises(BoundExceeded):
        await store.get({"PK": "P#3", "SK": "S"})
    assert store.cost.requests == 2
    assert store.cost.past_bound == 1
