"""Comments (`demo/model/comments.py`) called straight against DynamoDB Local: a comment is its
primary item and the 32 copies it implies, changed together, and nothing is written when
nothing changes."""

from __future__ import annotations

from typing import Any

from data.callers import Caller
from store.client import Store
from store.loaders import ItemLoader
from tests import demo_comments as data
from tests import demo_comments as products
from tests.data.patterns_helpers import stored_kib, within_declared
from tests.data.verify_helpers import WHEN, item_key
from tests.table import scan_all, without_token

ALICE = Caller("Alice")


async def comment_items(client: Any, table: str) -> list[dict[str, Any]]:
    """The comment items stored, sorted by key, without the write token a new comment's
    primary item carries (`store.witness`)."""
    items = [i for i in await scan_all(client, table) if i["type"] != "PRODUCT"]
    return sorted((without_token(i) for i in items), key=item_key)


def implied(primary: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(data.comment_items(primary), key=item_key)


async def test_a_comment_and_its_copies_change_together(store: Store, client: Any) -> None:
    await products.create_product(store, "p1", "Lamp")
    posted, spent = await within_declared(
        store, data.post_comment, "p1", "EN", 4, "Bright", None, caller=ALICE
    )
    assert spent.requests == 1
    stored = await comment_items(client, store.table)
    [primary] = [i for i in stored if i["type"] == "COMMENT"]
    assert len(stored) == 33 and stored == implied(primary)
    assert data.Comment.from_item(primary) == posted
    assert (primary["language"], primary["version"], posted.author) == ("en", 1, "Alice")
    # Lists read comments from the copies: each holds every field, the author too.
    fields = {k: v for k, v in primary.items() if k not in ("PK", "SK", "type")}
    assert all(copy.items() >= fields.items() for copy in stored if copy is not primary)

    items = ItemLoader(store)
    edited, spent = await within_declared(
        store, data.edit_comment, items, posted.id, language="fr", rating=2, body=None, caller=ALICE
    )
    assert (spent.requests, spent.items_scanned) == (2, 1)
    stored = await comment_items(client, store.table)
    [primary] = [i for i in stored if i["type"] == "COMMENT"]
    assert stored == implied(primary) and primary["version"] == 2
    assert data.Comment.from_item(primary) == edited

    # An edit to the same values reads the comment and writes nothing.
    same, spent = await within_declared(
        store, data.edit_comment, items, posted.id, language="FR", rating=2, body="Bright"
    )
    assert (same, spent.requests, spent.write_capacity_units) == (edited, 1, 0)

    _, spent = await within_declared(store, data.delete_comment, items, posted.id, caller=ALICE)
    assert spent.requests == 2
    assert await comment_items(client, store.table) == []


async def test_the_largest_comment_fits_the_size_its_reads_are_costed_for(store: Store) -> None:
    body = "\U0001f600" * data.BODY_MAX  # four bytes in UTF-8 each
    primary = {
        **data.new_comment("p" * 64, "en", 5, body, WHEN, WHEN),
        **Caller("u" * 64).authored(),
    }
    for item in data.comment_items(primary)[:2]:  # the primary item, and a copy
        assert await stored_kib(store, item) * 1024 <= data.COMMENT_BYTES
