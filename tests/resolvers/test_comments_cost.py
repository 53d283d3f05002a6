"""Cost targets of the comments access patterns (seed 003, QP4), read from `extensions.cost`.

One product with 1,000 comments, written straight to the table with the pure builders of
`data.comments` (33 items each, BatchWriteItem) so the seed takes seconds. 1% of
them are French with rating 2: a filtered page must read those and nothing else.

Request counts and items scanned are exact; DynamoDB Local's write units for
TransactWriteItems are not, so no write figure is asserted beyond "some".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from store.client import Store
from store.requests import Item
from tests.client import Api
from tests.demo_comments import comment_items, new_comment
from tests.documents import DELETE_COMMENT, EDIT_COMMENT
from tests.resolvers.comments_helpers import (
    Posted,
    assert_consistent,
    create_product,
    newest_first,
    post,
)
from tests.table import bulk_client, bulk_write

COUNT = 1_000
LANGUAGES = ("en", "de", "fr", "es")
# Every (language, rating) but French 2, which only the chosen 1% have.
OTHERS = [(lang, r) for lang in LANGUAGES for r in range(1, 6) if (lang, r) != ("fr", 2)]
PAGE = """query ($id: ID!, $language: String, $ratings: [Int!], $first: Int, $after: String) {
  product(id: $id) { name comments(language: $language, ratings: $ratings, first: $first,
                                   after: $after) {
    edges { node { id language rating } } pageInfo { hasNextPage endCursor } } } }"""


@dataclass
class Seeded:
    api: Api
    comments: list[Posted]


def distribution(n: int) -> tuple[str, int]:
    """Exactly 10 of 1,000 are ("fr", 2), spread over the timeline; the rest cycle OTHERS."""
    return ("fr", 2) if n % 100 == 37 else OTHERS[n % len(OTHERS)]


@pytest.fixture(scope="module")
async def seeded(app: Api, endpoint: str, shared_table: str) -> Seeded:
    await create_product(app, "p42", "Product 42")
    start = datetime(2020, 11, 9, 12, tzinfo=UTC)
    items: list[Item] = []
    comments: list[Posted] = []
    for n in range(COUNT):
        language, rating = distribution(n)
        created = start + timedelta(minutes=n, milliseconds=n % 7)
        comment = new_comment("p42", language, rating, f"comment {n}", created, created)
        items += comment_items(comment)
        comments.append(
            Posted(comment["id"], language, rating, comment["body"], comment["createdAt"])
        )
    async with bulk_client(endpoint) as client:
        await bulk_write(client, shared_table, items)
        listed = await client.query(
            TableName=shared_table,
            IndexName="GSI1",
            KeyConditionExpression="GSI1PK = :pk",
            ExpressionAttributeValues={":pk": {"S": "PRODUCT#p42#~#31"}},
            Select="COUNT",
        )
    assert (listed["Count"], "LastEvaluatedKey" in listed) == (COUNT, False)
    return Seeded(app, comments)


async def page(api: Api, **arguments: Any) -> tuple[list[str], dict[str, Any], dict[str, Any]]:
    result = await api(PAGE, id="p42", **arguments)
    connection = result.ok()["product"]["comments"]
    return [e["node"]["id"] for e in connection["edges"]], connection["pageInfo"], result.cost


def test_the_seed_has_one_percent_french_twos() -> None:
    chosen = [distribution(n) for n in range(COUNT)]
    assert chosen.count(("fr", 2)) == 10
    assert len(set(chosen)) == 20


async def test_a_one_percent_filter_reads_only_its_ten_comments(seeded: Seeded) -> None:
    ids, info, cost = await page(seeded.api, language="fr", ratings=[2], first=20)
    assert ids == newest_first(seeded.comments, "fr", [2])
    assert len(ids) == 10 and info["hasNextPage"] is False
    # One BatchGetItem for the product, one Query on the list of exactly the matches.
    assert cost["requests"] == 2
    assert cost["itemsScanned"] <= 1 + 21
    assert cost["itemsScanned"] == cost["itemsReturned"] == 1 + 10


@pytest.mark.parametrize(
    ("language", "ratings"),
    [(None, None), ("fr", None), ("EN", None), (None, [1, 3, 5]), ("en", [4, 5]), ("de", [1])],
)
async def test_every_filter_is_one_query_reading_one_page(
    seeded: Seeded, language: str | None, ratings: list[int] | None
) -> None:
    for first in (1, 20, 100):
        ids, info, cost = await page(seeded.api, language=language, ratings=ratings, first=first)
        assert ids == newest_first(seeded.comments, language, ratings)[:first]
        assert info["hasNextPage"] is (
            len(newest_first(seeded.comments, language, ratings)) > first
        )
        assert cost["requests"] == 2
        assert cost["itemsScanned"] <= 1 + first + 1
        # No FilterExpression: everything read was returned.
        assert cost["itemsScanned"] == cost["itemsReturned"]


async def test_page_ten_costs_what_page_one_costs(seeded: Seeded) -> None:
    """QP4: no degradation deeper in the list."""
    expected = newest_first(seeded.comments)
    walked: list[str] = []
    costs: list[dict[str, Any]] = []
    after = None
    for _ in range(10):
        ids, info, cost = await page(seeded.api, first=20, after=after)
        walked += ids
        costs.append(cost)
        after = info["endCursor"]
    assert walked == expected[:200]
    for cost in costs:
        assert cost["requests"] == 2
        assert cost["itemsScanned"] <= 21 + 1
    first, tenth = costs[0], costs[-1]
    assert (tenth["requests"], tenth["itemsScanned"], tenth["itemsReturned"]) == (
        first["requests"],
        first["itemsScanned"],
        first["itemsReturned"],
    )
    assert tenth["readCapacityUnits"] <= first["readCapacityUnits"] * 1.5


async def test_post_is_one_transaction_and_nothing_else(
    api: Api, client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await create_product(api)
    calls: list[tuple[str, int]] = []
    original = Store._call

    async def spy(self: Store, method: Any, request: dict[str, Any]) -> Any:
        calls.append((method.__name__, len(request.get("TransactItems", []))))
        return await original(self, method, request)

    monkeypatch.setattr(Store, "_call", spy)
    # Without `product`, whose read would be a call of its own.
    result = await api(
        "mutation ($input: PostCommentInput!) { postComment(input: $input) "
        "{ id language rating body createdAt } }",
        input={"productId": "p1", "language": "en", "rating": 4, "body": "hello"},
    )
    monkeypatch.undo()
    posted = result.ok()["postComment"]
    # 1 ConditionCheck on the product, the primary item and its 32 copies.
    assert calls == [("transact_write_items", 1 + 1 + 32)]
    assert result.cost["requests"] == 1
    assert result.cost["itemsScanned"] == result.cost["itemsReturned"] == 0
    assert result.cost["writeCapacityUnits"] > 0
    primaries = await assert_consistent(client, table)
    assert list(primaries) == [posted["id"]]


async def test_edit_and_delete_are_one_read_and_one_transaction(api: Api) -> None:
    await create_product(api)
    posted = await post(api, "en", 4, "b")
    edited = await api(EDIT_COMMENT, input={"id": posted.id, "language": "fr", "rating": 2})
    edited.ok()
    # A consistent GetItem of the primary, then one TransactWriteItems.
    assert edited.cost["requests"] == 2
    assert edited.cost["itemsReturned"] == 1
    deleted = await api(DELETE_COMMENT, id=posted.id)
    assert deleted.ok() == {"deleteComment": True}
    assert deleted.cost["requests"] == 2
