"""Who may read and change repositories, issues and stars (docs/identity.md), with real
tokens against DynamoDB Local. Rules on the token are decided before any DynamoDB call;
closing an issue as its author is decided by the UpdateItem's own condition."""

from __future__ import annotations

from typing import Any

import pytest

from store.client import Store
from store.loaders import ItemLoader
from tests import demo_repos as repos
from tests.client import Api, Result, assert_costs_alike
from tests.data.test_faults import lost_once
from tests.documents import CREATE_REPO, ISSUE_AUTHORS, ISSUES, OPEN_ISSUE, REPO, STARS
from tests.faults import FaultProxy, without_backoff
from tests.identity import SECURED, as_user, caller, open_mode
from tests.resolvers.repos_helpers import (
    NAME,
    OWNER,
    close_issue,
    create_repo,
    gather_results,
    open_issue,
    repo_items,
    star,
    unstar,
)
from tests.table import scan_all

pytestmark = pytest.mark.overrides(**SECURED)


def refused(result: Result, code: str, requests: int = 0) -> None:
    """Refused with `code`, after `requests` DynamoDB calls (none when the token decides)."""
    assert result.codes == [code], result.body
    assert result.data is None
    assert result.cost["requests"] == requests, result.cost


async def repo_with_issues(api: Api, author: str, count: int) -> None:
    """Alice's repository (created as `alice`) with `count` issues opened by `author`."""
    await create_repo(as_user(api, "alice"))
    for n in range(count):
        await open_issue(as_user(api, author), f"issue {n + 1}")


async def issue_states(api: Api) -> dict[int, str]:
    found = (await api(ISSUE_AUTHORS, owner=OWNER, name=NAME)).ok()["repo"]["issues"]["edges"]
    return {e["node"]["number"]: e["node"]["state"] for e in found}


# ---- reads ---------------------------------------------------------------------------------


async def test_a_repository_and_its_lists_are_anyones_to_read(api: Api) -> None:
    await repo_with_issues(api, "Bob", 1)
    assert (await star(as_user(api, "carol"), "carol")).ok()
    for reader in (api, as_user(api, "dave")):
        assert (await reader(REPO, owner=OWNER, name=NAME)).ok()["repo"]["starCount"] == 1
        issues = (await reader(ISSUES, owner=OWNER, name=NAME)).ok()["repo"]["issues"]
        assert [e["node"]["number"] for e in issues["edges"]] == [1]
        stars = (await reader(STARS, owner=OWNER, name=NAME)).ok()["repo"]["stars"]
        assert [e["node"]["username"] for e in stars["edges"]] == ["carol"]
        authors = (await reader(ISSUE_AUTHORS, owner=OWNER, name=NAME)).ok()["repo"]["issues"]
        assert [e["node"]["author"] for e in authors["edges"]] == ["Bob"]


# ---- createRepo, starRepo, unstarRepo: the caller as themselves ------------------------------


async def test_a_repository_is_created_by_its_owner_only(api: Api, client: Any, table: str) -> None:
    given = {"owner": OWNER, "name": NAME}
    refused(await api(CREATE_REPO, input=given), "UNAUTHENTICATED")
    refused(await as_user(api, "bob")(CREATE_REPO, input=given), "FORBIDDEN")
    assert await scan_all(client, table) == []
    # Usernames are case-insensitive; the owner keeps the case given.
    created = (await as_user(api, "ALICE")(CREATE_REPO, input=given)).ok()["createRepo"]
    assert created["owner"] == OWNER
    admin = as_user(api, "root", admin=True)
    assert (await admin(CREATE_REPO, input={"owner": "bob", "name": "tools"})).ok()


async def test_stars_are_given_and_taken_by_the_user_only(
    api: Api, client: Any, table: str
) -> None:
    await create_repo(as_user(api, "alice"))
    stored = await scan_all(client, table)
    bob = as_user(api, "bob")
    for change in (star, unstar):
        refused(await change(api, "carol"), "UNAUTHENTICATED")
        refused(await change(bob, "carol"), "FORBIDDEN")
    assert await scan_all(client, table) == stored
    carol = as_user(api, "Carol")
    assert (await star(carol, "carol")).ok()["starRepo"]["starCount"] == 1
    refused(await unstar(bob, "CAROL"), "FORBIDDEN")
    assert (await unstar(carol, "CAROL")).ok()["unstarRepo"]["starCount"] == 0
    admin = as_user(api, "root", admin=True)
    assert (await star(admin, "dave")).ok()["starRepo"]["starCount"] == 1


# ---- openIssue: any signed-in caller, recorded as the author --------------------------------


async def test_an_issue_is_opened_signed_in_and_records_its_author(
    api: Api, client: Any, table: str
) -> None:
    await create_repo(as_user(api, "alice"))
    stored = await scan_all(client, table)
    refused(await api(OPEN_ISSUE, owner=OWNER, name=NAME, title="t"), "UNAUTHENTICATED")
    assert await scan_all(client, table) == stored
    opened = await as_user(api, "Bob")(OPEN_ISSUE, owner=OWNER, name=NAME, title="Bug")
    assert opened.ok()["openIssue"]["number"] == 1
    [issue] = [i for i in await repo_items(client, table) if i.get("type") == "ISSUE"]
    assert (issue["author"], issue["authorKey"]) == ("Bob", "bob")


# ---- closeIssue: the repository's owner or the issue's author -------------------------------


async def test_an_issue_is_closed_by_the_owner_or_its_author(
    api: Api, client: Any, table: str
) -> None:
    await repo_with_issues(api, "bob", 4)
    # The owner, whatever the case of the token's username or of the arguments.
    assert (await close_issue(as_user(api, "ALICE"), 1, owner="alice")).ok()
    # The author, in another case than the one it opened the issue in.
    assert (await close_issue(as_user(api, "Bob"), 2)).ok()
    stored = await scan_all(client, table)
    carol = as_user(api, "carol")
    refused(await close_issue(carol, 3), "FORBIDDEN", requests=1)
    refused(await close_issue(api, 3), "UNAUTHENTICATED")
    assert await scan_all(client, table) == stored
    # A missing issue (or repository) is NOT_FOUND, before whose it would be.
    refused(await close_issue(carol, 9), "NOT_FOUND", requests=1)
    refused(await close_issue(carol, 1, name="nothing"), "NOT_FOUND", requests=1)
    assert await scan_all(client, table) == stored
    assert (await close_issue(as_user(api, "root", admin=True), 3)).ok()
    assert await issue_states(api) == {4: "OPEN", 3: "CLOSED", 2: "CLOSED", 1: "CLOSED"}


async def test_an_issue_opened_in_open_mode_is_closed_by_the_owner_or_an_admin(
    api: Api, client: Any, table: str
) -> None:
    async with open_mode(api) as opened:
        await create_repo(opened)
        for title in ("a", "b", "c"):
            await open_issue(opened, title)
        assert (await opened(OPEN_ISSUE, owner=OWNER, name=NAME, title="d")).ok()
    authors = (await api(ISSUE_AUTHORS, owner=OWNER, name=NAME)).ok()["repo"]["issues"]["edges"]
    assert {e["node"]["author"] for e in authors} == {None}
    stored = await scan_all(client, table)
    refused(await close_issue(as_user(api, "bob"), 1), "FORBIDDEN", requests=1)
    assert await scan_all(client, table) == stored
    assert (await close_issue(as_user(api, "alice"), 1)).ok()
    assert (await close_issue(as_user(api, "root", admin=True), 2)).ok()
    assert await issue_states(api) == {4: "OPEN", 3: "OPEN", 2: "CLOSED", 1: "CLOSED"}


async def test_a_stranger_racing_the_author_never_closes_an_issue(api: Api) -> None:
    await repo_with_issues(api, "bob", 4)
    carol, bob = as_user(api, "carol"), as_user(api, "bob")
    strangers = [close_issue(carol, n) for n in (1, 2, 3, 4)]
    authors = [close_issue(bob, n) for n in (1, 2)]
    results = await gather_results(*strangers, *authors)
    assert [r.codes for r in results[:4]] == [["FORBIDDEN"]] * 4
    assert all(r.ok() for r in results[4:])
    assert await issue_states(api) == {4: "OPEN", 3: "OPEN", 2: "CLOSED", 1: "CLOSED"}


async def test_closing_costs_the_same_requests_as_in_open_mode(api: Api) -> None:
    await repo_with_issues(api, "bob", 3)
    secured = [
        await close_issue(as_user(api, "alice"), 1),
        await close_issue(as_user(api, "bob"), 2),
    ]
    async with open_mode(api) as opened:
        unsecured = await close_issue(opened, 3)
    for result in secured:
        assert_costs_alike(result, unsecured)
    # One UpdateItem, whose condition decides: nothing read first.
    assert (unsecured.cost["requests"], unsecured.cost["readCapacityUnits"]) == (1, 0)


# ---- a lost answer ---------------------------------------------------------------------------


async def test_the_author_closing_with_a_lost_answer_succeeds(
    monkeypatch: pytest.MonkeyPatch, proxy: FaultProxy, faulty: Store, client: Any, table: str
) -> None:
    without_backoff(monkeypatch)
    direct = Store(client, table)
    await repos.create_repo(direct, "alice", "tools", None)
    await repos.open_issue(direct, "alice", "tools", "Bug", caller=caller("bob"))
    closing = repos.close_issue(
        faulty, ItemLoader(faulty), "alice", "tools", 1, caller=caller("BOB")
    )
    closed = await lost_once(proxy, "UpdateItem", closing)
    assert (closed.state, closed.author) == (repos.IssueState.CLOSED, "bob")
