"""Read capacity of one filtered comments page: our copy list against the seed's filter."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from bench.comments_model import POSTED_AT, body, product
from bench.comments_sizes import item_size, read_units, write_units
from bench.comments_writes import reported
from data.comments import comment_items, new_comment
from keys.comments import product_comments
from keys.conditions import KeyCondition
from keys.table import GSI1, TABLE
from store.requests import Filter, Item, from_attributes, put_request, query_request, to_attributes

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient
else:
    DynamoDBClient = Any

WANTED = WANTED_LANGUAGE, WANTED_RATING = "fr", 2
PAGE = 21  # a page of 20 plus one to know there is a next page, as the paginator asks
FILTER = "#language = :l AND #rating = :r"
_FILTER = Filter(
    FILTER,
    {":l": WANTED_LANGUAGE, ":r": WANTED_RATING},
    {"#language": "language", "#rating": "rating"},
)
_LANGUAGES = ("en", "fr", "de", "es", "it")
_BATCH = 25
_CONCURRENCY = 16


@dataclass(frozen=True)
class Dataset:
    product_id: str
    comments: list[Item]  # comment records, oldest first
    items: list[Item]  # every primary item and copy

    def listing(self, condition: KeyCondition) -> list[int]:
        """Sizes of the entries of one GSI1 list, newest first (as the queries read it)."""
        entries = [i for i in self.items if i.get(GSI1.partition_key) == condition.partition]
        entries.sort(key=lambda i: str(i[GSI1.sort_key]), reverse=True)
        return [item_size(i) for i in entries]


def dataset(product_id: str, count: int, matching_every: int, body_length: int) -> Dataset:
    """`count` comments a minute apart; every `matching_every`-th is fr/2, no other is."""
    rng = random.Random(3)
    comments = []
    for n in range(count):
        language, rating = WANTED
        while n % matching_every != matching_every // 2 and (language, rating) == WANTED:
            language, rating = rng.choice(_LANGUAGES), rng.randint(1, 5)
        at = POSTED_AT + timedelta(minutes=n)
        comments.append(new_comment(product_id, language, rating, body(body_length), at, at))
    items = [product(product_id)] + [i for c in comments for i in comment_items(c)]
    return Dataset(product_id, comments, items)


async def load(client: DynamoDBClient, table: str, data: Dataset) -> dict[str, float]:
    """BatchWriteItem every item; Local's reported WCU beside the documented model's."""
    batches = [data.items[i : i + _BATCH] for i in range(0, len(data.items), _BATCH)]
    gate = asyncio.Semaphore(_CONCURRENCY)
    totals = {"table": 0.0, "indexes": 0.0, "total": 0.0}

    async def write(batch: list[Item]) -> None:
        pending: Any = {table: [{"PutRequest": {"Item": to_attributes(i)}} for i in batch]}
        async with gate:
            while pending:
                response = await client.batch_write_item(
                    RequestItems=pending, ReturnConsumedCapacity="INDEXES"
                )
                for name, value in reported(response).items():
                    totals[name] += value
                pending = response.get("UnprocessedItems") or None

    await asyncio.gather(*(write(b) for b in batches))
    sizes = [(item_size(i), GSI1.partition_key in i) for i in data.items]
    modelled_table = sum(write_units(s) for s, _ in sizes)
    modelled_index = sum(write_units(s) for s, indexed in sizes if indexed)
    return {
        "items": len(data.items),
        "requests": len(batches),
        "local_table_wcu": totals["table"],
        "local_gsi1_wcu": totals["indexes"],
        "model_table_wcu": modelled_table,
        "model_gsi1_wcu": modelled_index,
    }


@dataclass
class Run:
    """One logical read: the Query calls it took and what they cost."""

    requests: int = 0
    rcu: float = 0.0
    model_rcu: float = 0.0
    scanned: int = 0
    returned: int = 0
    limits: list[int | None] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "rcu": self.rcu,
            "model_rcu": self.model_rcu,
            "scanned": self.scanned,
            "returned": self.returned,
            "limits": self.limits,
        }


async def read(
    client: DynamoDBClient,
    table: str,
    condition: KeyCondition,
    sizes: Sequence[int],
    *,
    filtered: bool,
    refill_limit: bool,
) -> Run:
    """Query `condition` newest first until PAGE matches or the end.

    `refill_limit` asks each call for the matches still wanted (what Store.query does), else
    each call reads up to DynamoDB's 1 MB page. `sizes` are the list's entries newest first,
    for the modelled RCU of each call.
    """
    run, start = Run(), None
    matches: list[Item] = []
    while True:
        limit = PAGE - len(matches) if refill_limit else None
        request = query_request(
            table,
            condition,
            forward=False,
            limit=limit,
            start_key=start,
            filter=_FILTER if filtered else None,
        )
        response = await client.query(**request)
        page = [from_attributes(i) for i in response.get("Items", [])]
        scanned = int(response.get("ScannedCount", 0))
        run.limits.append(limit)
        run.requests += 1
        run.rcu += float(response["ConsumedCapacity"]["CapacityUnits"])
        run.model_rcu += read_units(sum(sizes[run.scanned : run.scanned + scanned]))
        run.scanned += scanned
        run.returned += len(page)
        matches.extend(page)
        last = response.get("LastEvaluatedKey")
        start = None if last is None else {k: str(v) for k, v in from_attributes(last).items()}
        if start is None or len(matches) >= PAGE:
            return run


async def compare(client: DynamoDBClient, table: str, data: Dataset) -> dict[str, Any]:
    """(i) our copy list `fr`/{2}; (ii) the all-comments list with a filter, refilled."""
    ours_condition = product_comments(data.product_id, WANTED_LANGUAGE, frozenset({WANTED_RATING}))
    all_condition = product_comments(data.product_id)
    ours = await read(
        client,
        table,
        ours_condition,
        data.listing(ours_condition),
        filtered=False,
        refill_limit=True,
    )
    every = data.listing(all_condition)
    refill = await read(client, table, all_condition, every, filtered=True, refill_limit=True)
    pages = await read(client, table, all_condition, every, filtered=True, refill_limit=False)
    return {
        "ours": {"partition": ours_condition.partition, **ours.as_dict()},
        "seed_filter_refill": {"partition": all_condition.partition, **refill.as_dict()},
        "seed_filter_1mb_pages": {"partition": all_condition.partition, **pages.as_dict()},
        "rcu_ratio_refill": refill.rcu / ours.rcu,
        "rcu_ratio_1mb_pages": pages.rcu / ours.rcu,
    }


async def read_rule_check(client: DynamoDBClient, table: str) -> list[dict[str, Any]]:
    """Simple Queries of known sizes: does Local charge 0.5 RCU per 4 KB (eventual)?"""
    cases = [(1, 100), (1, 4_000), (1, 4_100), (10, 1_000), (3, 3_000), (1, 12_000)]
    results = []
    for count, length in cases:
        pk = f"READCHECK#{count}x{length}"
        items = [{"PK": pk, "SK": f"{n:04d}", "v": "x" * length} for n in range(count)]
        for item in items:
            await client.put_item(**put_request(table, item))
        request = query_request(table, KeyCondition(TABLE, pk), forward=True)
        response = await client.query(**request)
        total = sum(item_size(i) for i in items)
        results.append(
            {
                "items": count,
                "bytes": total,
                "local_rcu": float(response["ConsumedCapacity"]["CapacityUnits"]),
                "model_rcu": read_units(total),
            }
        )
    return results
