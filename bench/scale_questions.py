"""bench.scale's three questions: the GraphQL the gateway is asked, how it is asked, and
the Scan baseline.

Each question reads its answer two ways into the same `Answer`: from the gateway's
response, and from the items a Scan + FilterExpression over the whole table matched. A
Scan cannot stop early: "the newest 20 orders of customer X" needs every match before
sorting, so the baseline pages through LastEvaluatedKey to the end.

The Scan is a parallel one, in segments (`TotalSegments`), as any reader of a large table
would run it and as `dynagate verify` does. On DynamoDB Local it must be: each page of a
segment there costs time in proportion to the items left after its start key (it reads
them all, then keeps 1 MB), so one segment of n items takes O(n^2). Measured here: a
single-segment Scan of 10^5 items took 26 s, the same in 16 segments 1.8 s. DynamoDB
itself reads a page in the same time wherever it starts; `bench.scale` keeps segments of
about 10^4 items, where DynamoDB Local's pages cost nearly the same at any position, so
that the baseline grows with the table rather than with the emulator's quirk.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from bench.harness import http_client
from bench.scale_load import CUSTOMER_ID, PRODUCT_ID, Target
from store.requests import Item, from_attributes, to_attributes

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient
else:
    DynamoDBClient = Any

PAGE = 20
MARKER_LIMIT = 100
LANGUAGE, RATINGS = "en", (4, 5)


@dataclass(frozen=True)
class Answer:
    """What two servers must agree on: the parent's name (if any), every node's fields
    (but times and cursors, which are formatted or signed differently), and the flag
    saying there is more (`hasNextPage`, `truncated`)."""

    name: str | None
    nodes: tuple[tuple[Any, ...], ...]
    more: bool

    @property
    def ids(self) -> list[str]:
        return [str(node[0]) for node in self.nodes]


@dataclass(frozen=True)
class ScanFilter:
    expression: str
    names: Mapping[str, str]
    values: Mapping[str, Any]


@dataclass(frozen=True)
class Question:
    name: str
    title: str
    graphql: str
    from_gateway: Callable[[Any], Answer]  # `data` of the response
    scan: ScanFilter
    from_scan: Callable[[list[Item]], Answer]  # the items the Scan matched, in scan order


def questions(target: Target) -> list[Question]:
    return [_orders(), _comments(), _markers(target)]


def _newest_page(
    fields: tuple[str, str],
    types: tuple[str, str],
    node: Callable[[Mapping[str, Any]], tuple[Any, ...]],
    time: str = "placedAt",
) -> tuple[Callable[[Any], Answer], Callable[[list[Item]], Answer]]:
    """Both readings of a parent's newest `PAGE` children: from the gateway's `data`
    (`parent { name list { edges pageInfo } }`) and from the items a Scan matched."""
    parent_field, list_field = fields
    parent_type, child_type = types

    def from_gateway(data: Any) -> Answer:
        parent, page = data[parent_field], data[parent_field][list_field]
        nodes = tuple(node(edge["node"]) for edge in page["edges"])
        return Answer(parent["name"], nodes, page["pageInfo"]["hasNextPage"])

    def from_scan(items: list[Item]) -> Answer:
        name = _only(i["name"] for i in items if i["type"] == parent_type)
        children = sorted(
            (i for i in items if i["type"] == child_type),
            key=lambda i: (i[time], i["id"]),
            reverse=True,
        )
        return Answer(name, tuple(node(c) for c in children[:PAGE]), len(children) > PAGE)

    return from_gateway, from_scan


# ---- 1. a customer's newest orders -------------------------------------------------------


def _orders() -> Question:
    graphql = (
        f'{{ customer(id: "{CUSTOMER_ID}") {{ name orders(first: {PAGE}) {{ edges {{ cursor'
        " node { id status placedAt totalCents items { sku quantity unitPriceCents } } }"
        " pageInfo { hasNextPage endCursor } } } }"
    )

    def node(order: Mapping[str, Any]) -> tuple[Any, ...]:
        lines = tuple((i["sku"], i["quantity"], i["unitPriceCents"]) for i in order["items"])
        return (order["id"], order["status"], order["totalCents"], lines)

    from_gateway, from_scan = _newest_page(("customer", "orders"), ("CUSTOMER", "ORDER"), node)

    scan = ScanFilter(
        "(#type = :customer AND #id = :cid) OR (#type = :order AND #customerId = :cid)",
        {"#type": "type", "#id": "id", "#customerId": "customerId"},
        {":customer": "CUSTOMER", ":order": "ORDER", ":cid": CUSTOMER_ID},
    )
    return Question("orders", "Orders page", graphql, from_gateway, scan, from_scan)


# ---- 2. a product's comments in one language with one of two ratings ---------------------


def _comments() -> Question:
    ratings = ", ".join(map(str, RATINGS))
    graphql = (
        f'{{ product(id: "{PRODUCT_ID}") {{ name comments(language: "{LANGUAGE}",'
        f" ratings: [{ratings}], first: {PAGE}) {{ edges {{ cursor node {{ id language rating"
        " body createdAt } } pageInfo { hasNextPage endCursor } } } }"
    )

    def node(comment: Mapping[str, Any]) -> tuple[Any, ...]:
        return (comment["id"], comment["language"], comment["rating"], comment["body"])

    from_gateway, from_scan = _newest_page(
        ("product", "comments"), ("PRODUCT", "COMMENT"), node, time="createdAt"
    )

    # The primary comment items: a Scan that matched the copies would find each comment
    # several times over.
    rating_values = {f":r{r}": r for r in RATINGS}
    scan = ScanFilter(
        "(#type = :product AND #id = :pid) OR (#type = :comment AND #productId = :pid"
        f" AND #language = :language AND #rating IN ({', '.join(rating_values)}))",
        {
            "#type": "type",
            "#id": "id",
            "#productId": "productId",
            "#language": "language",
            "#rating": "rating",
        },
        {
            ":product": "PRODUCT",
            ":comment": "COMMENT",
            ":pid": PRODUCT_ID,
            ":language": LANGUAGE,
            **rating_values,
        },
    )
    return Question("comments", "Filtered comments page", graphql, from_gateway, scan, from_scan)


# ---- 3. the markers in a map view --------------------------------------------------------


def _markers(target: Target) -> Question:
    view = target.view
    box = f"north: {view.north!r}, south: {view.south!r}, east: {view.east!r}, west: {view.west!r}"
    graphql = (
        f"{{ markers(viewport: {{{box}}}, limit: {MARKER_LIMIT})"
        " { markers { id lat lon label } truncated } }"
    )

    def node(marker: Mapping[str, Any]) -> tuple[Any, ...]:
        return (marker["id"], float(marker["lat"]), float(marker["lon"]), marker["label"])

    def from_gateway(data: Any) -> Answer:
        found = data["markers"]
        return Answer(None, tuple(node(m) for m in found["markers"]), found["truncated"])

    def from_scan(items: list[Item]) -> Answer:
        # The gateway reads its key ranges in key order: by geohash, then id.
        markers = sorted(items, key=lambda i: (i["geohash"], i["id"]))
        nodes = tuple(node(m) for m in markers[:MARKER_LIMIT])
        return Answer(None, nodes, len(markers) > MARKER_LIMIT)

    scan = ScanFilter(
        "#type = :marker AND #lat BETWEEN :south AND :north AND #lon BETWEEN :west AND :east",
        {"#type": "type", "#lat": "lat", "#lon": "lon"},
        {
            ":marker": "MARKER",
            ":south": view.south,
            ":north": view.north,
            ":west": view.west,
            ":east": view.east,
        },
    )
    return Question("markers", "Markers view", graphql, from_gateway, scan, from_scan)


def _only(values: Any) -> str:
    found = list(values)
    if len(found) != 1:
        raise AssertionError(f"the Scan matched {len(found)} parent items, expected 1")
    return str(found[0])


# ---- the gateway -------------------------------------------------------------------------


class Mismatch(Exception):
    """The gateway and the Scan answered a question differently."""


@dataclass
class Asked:
    """One question's requests to the gateway at one size."""

    latencies_ms: list[float]
    answer: Answer | None = None
    cost: dict[str, Any] | None = None


async def ask(http: httpx.AsyncClient, url: str, question: Question) -> tuple[float, Any]:
    """One request: (milliseconds, the response body); RuntimeError on any error."""
    body = json.dumps({"query": question.graphql}).encode()
    sent = time.perf_counter()
    response = await http.post(url, content=body, headers={"content-type": "application/json"})
    elapsed = (time.perf_counter() - sent) * 1000
    answer: Any = response.json()
    if response.status_code != 200 or answer.get("errors"):
        raise RuntimeError(f"{question.name}: the gateway answered {response.status_code} {answer}")
    return elapsed, answer


async def ask_gateway(
    url: str, asked: Sequence[Question], warmup: int, samples: int, warm_seconds: float
) -> dict[str, Asked]:
    """`samples` sequential requests of each question, the questions taking turns; every
    answer must be the first. Warm-up: `warmup` rounds, and more until `warm_seconds` have
    passed. One request at a time, each answer checked: a latency sample, not a load."""
    out = {q.name: Asked([]) for q in asked}
    async with http_client() as http:
        warm_until = time.monotonic() + warm_seconds
        rounds = 0
        while rounds < warmup or time.monotonic() < warm_until:
            await _ask_all(http, url, asked, out, measured=False)
            rounds += 1
        for _ in range(samples):
            await _ask_all(http, url, asked, out, measured=True)
    return out


async def _ask_all(
    http: httpx.AsyncClient,
    url: str,
    asked: Sequence[Question],
    out: dict[str, Asked],
    *,
    measured: bool,
) -> None:
    for question in asked:
        ms, body = await ask(http, url, question)
        record = out[question.name]
        answer = question.from_gateway(body["data"])
        if record.answer is None:
            record.answer, record.cost = answer, body["extensions"]["cost"]
        elif answer != record.answer:
            raise Mismatch(f"{question.name}: the gateway's answer changed between requests")
        if measured:
            record.latencies_ms.append(ms)


# ---- the Scan ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ScanRun:
    ms: float
    segments: int
    calls: int
    scanned: int
    rcu: float
    answer: Answer


# Segments read at once: the machine's two cores are busy enough with fewer.
SCAN_PARALLEL = 4


async def scan(
    client: DynamoDBClient,
    table: str,
    question: Question,
    segments: int,
    progress: Callable[[int, int], None] | None = None,
) -> ScanRun:
    """A parallel Scan of the whole table in `segments`, each page after page to its end,
    keeping what the filter matches; then the answer from every match.

    `progress(calls, scanned)` is called after every page.
    """
    base: dict[str, Any] = {
        "TableName": table,
        "FilterExpression": question.scan.expression,
        "ExpressionAttributeNames": dict(question.scan.names),
        "ExpressionAttributeValues": to_attributes(question.scan.values),
        "ReturnConsumedCapacity": "TOTAL",
    }
    if segments > 1:
        base["TotalSegments"] = segments
    matched: list[Item] = []
    calls = scanned = 0
    rcu = 0.0
    gate = asyncio.Semaphore(SCAN_PARALLEL)

    async def read(segment: int) -> None:
        nonlocal calls, scanned, rcu
        request = {**base, "Segment": segment} if segments > 1 else dict(base)
        async with gate:
            while True:
                response = await client.scan(**request)
                calls += 1
                scanned += response["ScannedCount"]
                rcu += response.get("ConsumedCapacity", {}).get("CapacityUnits", 0.0)
                matched.extend(from_attributes(i) for i in response.get("Items", []))
                if progress is not None:
                    progress(calls, scanned)
                last = response.get("LastEvaluatedKey")
                if not last:
                    return
                request["ExclusiveStartKey"] = last

    started = time.perf_counter()
    await asyncio.gather(*(read(s) for s in range(segments)))
    answer = question.from_scan(matched)
    ms = (time.perf_counter() - started) * 1000
    return ScanRun(ms, segments, calls, scanned, rcu, answer)


def describe(questions_: Sequence[Question]) -> dict[str, dict[str, str]]:
    """The questions as results.json records them."""
    return {
        q.name: {"title": q.title, "graphql": q.graphql, "scan_filter": q.scan.expression}
        for q in questions_
    }
