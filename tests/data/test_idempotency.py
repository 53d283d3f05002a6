"""The record of an Idempotency-Key (`data/idempotency.py`), called straight against DynamoDB
Local: a request whose key another request wrote first is told so, in the words of
docs/http.md#safe-retries, and writes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from data.idempotency import find_record, new_intent
from errors.vocabulary import Code, Conflict
from keys.table import TABLE
from store.client import Store
from store.requests import put_request
from tests.table import scan_all


async def test_a_repeat_racing_the_first_request_hears_it_is_being_answered(
    client: Any, table: str
) -> None:
    first = Store(client, table, intent=new_intent(table, "ada", "k", "fingerprint"))
    await first.put(put_request(table, {"PK": "A#1", "SK": "A#1"}, new_on=TABLE))
    assert first.intent is not None and first.intent.landed
    repeat = Store(client, table, intent=new_intent(table, "ada", "k", "fingerprint"))
    with pytest.raises(Conflict) as refused:
        await repeat.put(put_request(table, {"PK": "A#2", "SK": "A#2"}, new_on=TABLE))
    assert refused.value.extensions == {"code": Code.CONFLICT}
    assert str(refused.value) == (
        "a request with this Idempotency-Key is being answered; retry shortly"
    )
    assert {i["PK"] for i in await scan_all(client, table)} == {
        "A#1",
        first.intent.witness.key["PK"],
    }
    record = await find_record(Store(client, table), "ada", "k")
    assert record is not None and record.fingerprint == "fingerprint" and record.answer is None
