"""Comments and their copies, whole or damaged, for the tests of `dynagate verify` and of
the check and repair beneath it (`data/copies/verify.py`)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from data.copies.verify import Difference
from store.client import Store
from store.requests import Item, put_request, to_attributes
from tests import demo_comments as data
from tests import demo_comments as products
from tests.demo_comments import comment_key

WHEN = datetime(2024, 5, 1, 12, tzinfo=UTC)
# {partition: (missing, stale, extra, orphan)}, each a tuple of sort keys.
Damage = dict[str, tuple[tuple[str, ...], ...]]


def comment(language: str = "en", rating: int = 4, body: str = "fine") -> list[Item]:
    """A comment's primary item followed by its 32 copies, as `post_comment` writes them."""
    return data.comment_items(data.new_comment("p1", language, rating, body, WHEN, WHEN))


def item_key(item: Item) -> tuple[str, str]:
    return (item["PK"], item["SK"])


def sort_keys(items: list[Item]) -> tuple[str, ...]:
    return tuple(sorted(i["SK"] for i in items))


def kinds(differences: Iterable[Difference]) -> Damage:
    """The differences found, as `damage` returns what it did; none of them invalid."""
    differences = list(differences)
    assert all(d.invalid is None for d in differences)
    return {d.partition: tuple(d.by_kind().values()) for d in differences}


async def put(client: Any, table: str, *items: Item) -> None:
    for item in items:
        await client.put_item(**put_request(table, item))


async def delete(client: Any, table: str, *items: Item) -> None:
    for item in items:
        key = to_attributes({"PK": item["PK"], "SK": item["SK"]})
        await client.delete_item(TableName=table, Key=key)


async def post(store: Store, language: str, rating: int, body: str) -> Item:
    """Post a comment on product p1; its primary item as stored."""
    posted = await data.post_comment(store, "p1", language, rating, body, None)
    primary = await store.get(comment_key(posted.id), consistent=True)
    assert primary is not None
    return primary


async def damage(client: Any, table: str) -> Damage:
    """Four comments of product p1, three of them damaged, and orphans of a fifth."""
    store = Store(client, table)
    await products.create_product(store, "p1", "Lamp")
    await data.post_comment(store, "p1", "en", 5, "left intact", None)
    gaps, edited, moved = [
        await post(store, language, rating, body)
        for language, rating, body in [("de", 2, "gaps"), ("en", 3, "edited"), ("en", 4, "moved")]
    ]
    gap_copies, edited_copies = data.comment_items(gaps)[1:], data.comment_items(edited)[1:]
    await delete(client, table, *gap_copies[:3])
    await put(
        client, table, {**edited_copies[0], "body": "spam"}, {**edited_copies[5], "rating": 1}
    )
    # A copy left over from when the comment was in French.
    stray = next(
        c
        for c in data.comment_items({**moved, "language": "fr"})[1:]
        if c["SK"].startswith("COPY#fr#")
    )
    await put(client, table, stray)
    ghost = comment()[1:4]  # copies of a comment that was never written
    await put(client, table, *ghost)
    return {
        gaps["PK"]: (sort_keys(gap_copies[:3]), (), (), ()),
        edited["PK"]: ((), sort_keys([edited_copies[0], edited_copies[5]]), (), ()),
        moved["PK"]: ((), (), (stray["SK"],), ()),
        ghost[0]["PK"]: ((), (), (), sort_keys(ghost)),
    }
