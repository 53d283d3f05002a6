"""Repositories, issues and stars (`demo/model/repos.py`, `demo/repos.py`) called straight
against DynamoDB Local: the counters on the repository item change in the same
transactions as the items they count."""

from __future__ import annotations

from typing import Any

from data.callers import Caller
from store.client import Store
from store.loaders import ItemLoader
from tests import demo_repos as data
from tests.data.patterns_helpers import within_declared
from tests.table import scan_all

REPO = "REPO#alice#tools"


async def stored(client: Any, table: str) -> dict[str, dict[str, Any]]:
    return {i["SK"]: i for i in await scan_all(client, table)}


async def test_issues_are_numbered_by_the_counter_written_with_them(
    store: Store, client: Any
) -> None:
    repo = await data.create_repo(store, "Alice", "Tools", "Odd jobs\n\tand tools")
    assert data.Repo.from_item((await stored(client, store.table))[REPO]) == repo
    for number in (1, 2):
        issue, spent = await within_declared(
            store, data.open_issue, "alice", "tools", f"Bug {number}", caller=Caller("Bob")
        )
        assert (issue.number, issue.author, spent.requests) == (number, "Bob", 2)
    items = await stored(client, store.table)
    assert items[REPO]["issueCount"] == 2
    second = items["ISSUE#00000002"]
    assert (second["PK"], second["title"], second["authorKey"]) == (REPO, "Bug 2", "bob")
    assert data.Issue.from_item(second) == issue


async def test_a_star_counts_once_and_unstarring_a_non_star_changes_nothing(
    store: Store, client: Any
) -> None:
    await data.create_repo(store, "alice", "tools", None)
    items = ItemLoader(store)
    for pattern, count in [
        (data.star_repo, 1),
        (data.star_repo, 1),
        (data.unstar_repo, 0),
        (data.unstar_repo, 0),
    ]:
        repo, spent = await within_declared(store, pattern, items, "alice", "tools", "Bob")
        assert (repo.star_count, spent.requests) == (count, 2)
        stored_items = await stored(client, store.table)
        assert stored_items[REPO]["starCount"] == count
        assert ("STAR#bob" in stored_items) == (count == 1)
