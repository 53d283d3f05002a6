"""What replicas hear through Redis, without Redis: a record survives the trip, and a batch
read again after a takeover is delivered once (`gateway/replicas/fanout.py`)."""

from __future__ import annotations

from typing import Any

import orjson

from gateway.replicas.fanout import ChangeFanout
from store.stream.records import StreamRecord, decoded, encoded


def record(sequence: int, shard: str = "s1", **new: Any) -> StreamRecord:
    item = {"PK": "A", "SK": "B", **new}
    return StreamRecord("MODIFY", {"PK": "A", "SK": "B"}, None, item, str(sequence), shard, 1.5)


def test_a_record_survives_the_trip() -> None:
    sent = StreamRecord(
        "MODIFY",
        {"PK": "P", "SK": "S"},
        {"PK": "P", "SK": "S", "n": 1, "price": 2.5, "tags": ["a", 3], "deep": {"x": None}},
        {
            "PK": "P",
            "SK": "S",
            "n": 2,
            "ok": True,
            "note": "é",
            "raw": b"\x00\xff",
            "deep": [{"b": b"1"}],
        },
        "4900000000000000000001",
        "shardId-1",
        1_700_000_000.0,
    )
    assert decoded(orjson.loads(orjson.dumps(encoded(sent)))) == sent


def test_a_batch_read_again_is_delivered_once() -> None:
    heard: list[str] = []
    fanout = ChangeFanout(None, lambda records: heard.extend(r.sequence for r in records))  # type: ignore[arg-type]

    def entry(*records: StreamRecord) -> dict[bytes, bytes]:
        return {b"records": orjson.dumps([encoded(r) for r in records])}

    fanout._hand(entry(record(10), record(11)))
    fanout._hand(entry(record(11), record(12)))  # the next reader read 11 again
    fanout._hand(entry(record(5, shard="s2")))  # shards are apart
    fanout._hand({b"records": b"not json"})  # skipped, said in the log
    assert heard == ["10", "11", "12", "5"]


def test_a_documents_registration_is_handed_to_its_listeners_alone() -> None:
    """An entry announcing a persisted document reaches the documents, not the change feed."""
    delivered: list[StreamRecord] = []
    heard: list[tuple[str, bool]] = []
    fanout = ChangeFanout(None, delivered.extend, documents=[lambda *a: heard.append(a)])  # type: ignore[arg-type]
    fanout._hand({b"document": orjson.dumps({"sha256": "ab" * 32, "trusted": True})})
    assert heard == [("ab" * 32, True)] and delivered == []
