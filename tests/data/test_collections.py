"""A parent item read in the same Query as the first pages of its collections
(`data/collections.py`), counted in calls against DynamoDB Local."""

from __future__ import annotations

from typing import Any

from data.collections import PageRead, page_for
from store.client import Store
from store.cost import Cost
from store.cursors import CursorCodec
from store.loaders import ItemLoader
from store.pagination import PageArgs, Paginator
from tests import demo_repos as repos
from tests import demo_tickets as tickets
from tests.demo_repos import repo_key

FIRST_2 = PageArgs(size=2, backward=False, cursor=None)


def reader(store: Store) -> tuple[ItemLoader, Paginator]:
    """A request's loader and paginator, its cost report starting at zero."""
    store.cost = Cost()
    return ItemLoader(store), Paginator(store, CursorCodec(b"test-secret"))


async def test_a_repository_and_its_first_pages_take_one_query_a_page(store: Store) -> None:
    await repos.create_repo(store, "alice", "tools", None)
    for n in range(3):
        await repos.open_issue(store, "alice", "tools", f"Bug {n + 1}")
    for user in ("bob", "carol", "dave"):
        await repos.star_repo(store, ItemLoader(store), "alice", "tools", user)

    items, pages = reader(store)
    issues_read = repos.issues_read("alice", "tools", FIRST_2, None)
    stars_read = repos.stars_read("alice", "tools", FIRST_2)
    reads: dict[str, PageRead[Any]] = {"issues": issues_read, "starred": stars_read}
    repo, prefetched = await repos.load_repo(items, pages, "alice", "tools", reads)
    assert repo is not None and repo.star_count == 3
    assert (set(prefetched), store.cost.requests) == ({"issues", "starred"}, 2)
    issues = await page_for(prefetched, "issues", issues_read, pages)
    stars = await page_for(prefetched, "starred", stars_read, pages)
    assert [e.item["number"] for e in issues.edges] == [3, 2]
    assert [e.item["username"] for e in stars.edges] == ["bob", "carol"]
    assert await issues.has_next_page() and await stars.has_next_page()
    # The repository was left in the loader; the pages answered what was asked.
    assert await items.load_item(repo_key("alice", "tools")) is not None
    assert store.cost.requests == 2

    # A field asking for another page reads it then.
    one = repos.issues_read("alice", "tools", PageArgs(size=1, backward=False, cursor=None), None)
    page = await page_for(prefetched, "issues", one, pages)
    assert ([e.item["number"] for e in page.edges], store.cost.requests) == ([3], 3)


async def test_a_parent_missing_from_an_index_is_looked_for_on_the_table(store: Store) -> None:
    await tickets.create_queue(store, "q1", "Support")
    await tickets.open_ticket(store, "q1", "Jam")
    for queue_id, found, calls in [("q1", True, 1), ("ghost", False, 2)]:
        items, pages = reader(store)
        reads = {"tickets": tickets.tickets_read(queue_id, FIRST_2)}
        queue, prefetched = await tickets.load_queue(items, pages, queue_id, reads)
        # An index is eventually consistent: a miss there is read again from the table.
        assert set(prefetched) == {"tickets"}
        assert (queue is not None, store.cost.requests) == (found, calls)
