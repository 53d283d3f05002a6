"""Shared helpers of the repository tests: calls, a model of the lists, and the table.

The model is written from the contract (docs/design.md) and the key layout in
demo/model/repos.py's docstring, not with the code under test: issues are listed highest number
first, stars by username A→Z ignoring case, and a repository's `issueCount` and `starCount`
agree with the issue and star items stored under it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from tests.client import Api, Result
from tests.documents import CLOSE_ISSUE, CREATE_REPO, OPEN_ISSUE, REPO, STAR_REPO, UNSTAR_REPO
from tests.table import scan_all

OWNER = "Alice"
NAME = "Dynamo"
# The repository's partition, as demo/model/repos.py's docstring lays it out (lower-cased).
PARTITION = "REPO#alice#dynamo"


async def create_repo(
    api: Api, owner: str = OWNER, name: str = NAME, description: str | None = None
) -> dict[str, Any]:
    given: dict[str, Any] = {"owner": owner, "name": name}
    if description is not None:
        given["description"] = description
    repo: dict[str, Any] = (await api(CREATE_REPO, input=given)).ok()["createRepo"]
    return repo


async def open_issue(api: Api, title: str, owner: str = OWNER, name: str = NAME) -> int:
    issue = (await api(OPEN_ISSUE, owner=owner, name=name, title=title)).ok()["openIssue"]
    assert issue["title"] == title and issue["state"] == "OPEN"
    number: int = issue["number"]
    return number


async def open_issues(api: Api, count: int, owner: str = OWNER, name: str = NAME) -> list[int]:
    """`count` issues one after another, titled `issue <n>` by the order they were opened."""
    return [await open_issue(api, f"issue {n}", owner, name) for n in range(1, count + 1)]


async def close_issue(api: Api, number: int, owner: str = OWNER, name: str = NAME) -> Result:
    return await api(CLOSE_ISSUE, owner=owner, name=name, number=number)


async def star(api: Api, username: str, owner: str = OWNER, name: str = NAME) -> Result:
    return await api(STAR_REPO, owner=owner, name=name, username=username)


async def unstar(api: Api, username: str, owner: str = OWNER, name: str = NAME) -> Result:
    return await api(UNSTAR_REPO, owner=owner, name=name, username=username)


async def star_count(api: Api, owner: str = OWNER, name: str = NAME) -> int:
    count: int = (await api(REPO, owner=owner, name=name)).ok()["repo"]["starCount"]
    return count


# ---- the model ---------------------------------------------------------------------------


@dataclass
class Issues:
    """What a test believes about the issues of one repository: number -> state."""

    states: dict[int, str]

    def listed(self, state: str | None = None) -> list[int]:
        """The numbers `issues(state:)` lists, highest first."""
        return sorted(
            (n for n, s in self.states.items() if state is None or s == state), reverse=True
        )


def sorted_usernames(usernames: Sequence[str]) -> list[str]:
    """A→Z ignoring case, as `stars` lists them."""
    return sorted(usernames, key=str.lower)


# ---- paging through a connection ---------------------------------------------------------


@dataclass
class Walk:
    """Every page of one walk through a connection, in the order they were read."""

    pages: list[dict[str, Any]]

    @property
    def numbers(self) -> list[int]:
        return [e["node"]["number"] for p in self.pages for e in p["edges"]]

    @property
    def usernames(self) -> list[str]:
        return [e["node"]["username"] for p in self.pages for e in p["edges"]]

    @property
    def sizes(self) -> list[int]:
        return [len(p["edges"]) for p in self.pages]


async def walk(
    api: Api, document: str, field: str, size: int, *, backward: bool = False, **variables: Any
) -> Walk:
    """Page through `repo.<field>` with first/after (or last/before) until the end.

    Checks each page's flags and cursors on the way: the flag towards the end is true
    exactly while another page follows, and the one away from it is false on the first
    page and true on every later one.
    """
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        arguments = (
            {"last": size, "before": cursor} if backward else {"first": size, "after": cursor}
        )
        result = await api(document, owner=OWNER, name=NAME, **variables, **arguments)
        page = result.ok()["repo"][field]
        pages.append(page)
        info = page["pageInfo"]
        edges = page["edges"]
        onward, behind = (
            (info["hasPreviousPage"], info["hasNextPage"])
            if backward
            else (info["hasNextPage"], info["hasPreviousPage"])
        )
        assert behind == (len(pages) > 1), (len(pages), info)
        if edges:
            assert info["startCursor"] == edges[0]["cursor"]
            assert info["endCursor"] == edges[-1]["cursor"]
        else:
            assert info["startCursor"] is None and info["endCursor"] is None
        if not onward:
            break
        assert len(edges) == size, (len(pages), len(edges))
        cursor = info["startCursor"] if backward else info["endCursor"]
        assert len(pages) < 1_000, "the walk never ends"
    if backward:
        pages.reverse()
    return Walk(pages)


# ---- the table ---------------------------------------------------------------------------


async def repo_items(client: Any, table: str, partition: str = PARTITION) -> list[dict[str, Any]]:
    """Every stored item of one repository's collection."""
    return [i for i in await scan_all(client, table) if i["PK"] == partition]


async def assert_counts_agree(client: Any, table: str, partition: str = PARTITION) -> None:
    """The repository item's counters match the issue and star items under it."""
    items = await repo_items(client, table, partition)
    [repo] = [i for i in items if i["SK"] == partition]
    issues = [i for i in items if i["SK"].startswith("ISSUE#")]
    stars = [i for i in items if i["SK"].startswith("STAR#")]
    assert len(items) == 1 + len(issues) + len(stars), items
    assert int(repo["starCount"]) == len(stars)
    assert int(repo["issueCount"]) == len(issues)
    assert sorted(int(i["number"]) for i in issues) == list(range(1, len(issues) + 1))
    for issue in issues:
        assert issue["SK"] == f"ISSUE#{int(issue['number']):08d}"
    for item in stars:
        assert item["SK"] == f"STAR#{item['username'].lower()}"


async def set_issue_count(client: Any, table: str, count: int, partition: str = PARTITION) -> None:
    """Move the repository's issue counter straight in the table."""
    await client.update_item(
        TableName=table,
        Key={"PK": {"S": partition}, "SK": {"S": partition}},
        UpdateExpression="SET issueCount = :n",
        ExpressionAttributeValues={":n": {"N": str(count)}},
    )


async def gather_results(*calls: Any) -> list[Result]:
    return list(await asyncio.gather(*calls))


def repo_warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The warnings logged by the repositories' code."""
    return [
        r for r in caplog.records if r.name == "dynagate.repos" and r.levelno == logging.WARNING
    ]
