"""Repositories, issues and stars through GraphQL, checked against a model and the table."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from gateway.settings import Settings
from tests import demo_repos as repo_keys
from tests.client import Api
from tests.documents import CREATE_REPO, ISSUES, OPEN_ISSUE, REPO, STARS
from tests.resolvers.repos_helpers import (
    NAME,
    OWNER,
    PARTITION,
    Issues,
    assert_counts_agree,
    close_issue,
    create_repo,
    gather_results,
    open_issue,
    open_issues,
    repo_items,
    repo_warnings,
    set_issue_count,
    sorted_usernames,
    star,
    star_count,
    unstar,
    walk,
)
from tests.table import scan_all

# ---- repositories ------------------------------------------------------------------------


async def test_create_and_read_back(api: Api) -> None:
    created = await create_repo(api, description="A key-value store")
    assert created["owner"] == OWNER and created["name"] == NAME
    assert created["description"] == "A key-value store" and created["starCount"] == 0
    read = (await api(REPO, owner=OWNER, name=NAME)).ok()["repo"]
    assert read == created

    bare = await create_repo(api, "bob", "tools")
    assert bare["description"] is None
    assert (await api(REPO, owner="bob", name="tools")).ok()["repo"] == bare


async def test_lookup_ignores_case_and_output_keeps_the_first_case(api: Api) -> None:
    created = await create_repo(api)
    for owner, name in [("ALICE", "dynamo"), ("alice", "DYNAMO"), ("aLiCe", "dYnAmO")]:
        found = (await api(REPO, owner=owner, name=name)).ok()["repo"]
        assert found == created, (owner, name)
        assert (found["owner"], found["name"]) == (OWNER, NAME)


async def test_a_case_variant_is_conflict_and_writes_nothing(
    api: Api, client: Any, table: str
) -> None:
    await create_repo(api, description="first")
    before = await scan_all(client, table)
    for owner, name in [(OWNER, NAME), ("alice", "dynamo"), ("ALICE", "Dynamo")]:
        result = await api(CREATE_REPO, input={"owner": owner, "name": name, "description": "x"})
        assert result.codes == ["CONFLICT"], (owner, name, result.body)
    assert await scan_all(client, table) == before
    repo = (await api(REPO, owner="alice", name="dynamo")).ok()["repo"]
    assert (repo["owner"], repo["name"], repo["description"]) == (OWNER, NAME, "first")


async def test_a_missing_repo_is_null(api: Api) -> None:
    await create_repo(api, "alice", "dyn")  # a neighbour whose name is a prefix
    await open_issues(api, 2, "alice", "dyn")
    assert (await star(api, "bob", "alice", "dyn")).ok()
    for document in (REPO, ISSUES, STARS):
        for owner, name in [(OWNER, NAME), ("alice", "dy"), ("alic", "dyn")]:
            result = await api(document, owner=owner, name=name, first=5)
            assert result.ok() == {"repo": None}, (document, owner, name)


@pytest.mark.parametrize(
    ("owner", "name"),
    [("al ice", "x"), ("alice", "a#b"), ("alice", "a/b"), ("", "x"), ("alice", "-x")],
)
async def test_bad_identifiers_are_bad_user_input(
    api: Api, client: Any, table: str, owner: str, name: str
) -> None:
    result = await api(CREATE_REPO, input={"owner": owner, "name": name})
    assert result.codes == ["BAD_USER_INPUT"], result.body
    assert (await api(REPO, owner=owner, name=name)).codes == ["BAD_USER_INPUT"]
    assert (await api(OPEN_ISSUE, owner=owner, name=name, title="t")).codes == ["BAD_USER_INPUT"]
    assert await scan_all(client, table) == []


async def test_bad_text_is_bad_user_input_and_writes_nothing(
    api: Api, client: Any, table: str
) -> None:
    for description in ("", "  \n", "x" * 201):
        result = await api(
            CREATE_REPO, input={"owner": OWNER, "name": NAME, "description": description}
        )
        assert result.codes == ["BAD_USER_INPUT"], result.body
    assert await scan_all(client, table) == []
    await create_repo(api, description="y" * 200)
    before = await scan_all(client, table)
    for title in ("", " \t", "x" * 201):
        result = await api(OPEN_ISSUE, owner=OWNER, name=NAME, title=title)
        assert result.codes == ["BAD_USER_INPUT"], result.body
    assert await scan_all(client, table) == before
    assert await open_issue(api, "z" * 200) == 1


# ---- issue numbers -----------------------------------------------------------------------


async def test_issues_are_numbered_one_two_three(api: Api, client: Any, table: str) -> None:
    await create_repo(api)
    assert await open_issues(api, 12) == list(range(1, 13))
    other = await create_repo(api, "bob", "dynamo")
    assert other["owner"] == "bob"
    assert await open_issue(api, "elsewhere", "bob", "dynamo") == 1
    assert await open_issue(api, "by any case", "ALICE", "dynamo") == 13
    await assert_counts_agree(client, table)
    missing = await api(OPEN_ISSUE, owner="carol", name="dynamo", title="t")
    assert missing.codes == ["NOT_FOUND"]
    message = "repository (owner 'carol', name 'dynamo') does not exist"
    assert missing.errors[0]["message"] == message
    assert await repo_items(client, table, "REPO#carol#dynamo") == []


async def test_fifty_concurrent_opens_take_one_to_fifty(api: Api, client: Any, table: str) -> None:
    await create_repo(api)
    results = await gather_results(
        *(api(OPEN_ISSUE, owner=OWNER, name=NAME, title=f"t{n}") for n in range(50))
    )
    numbers = sorted(r.ok()["openIssue"]["number"] for r in results)
    assert numbers == list(range(1, 51))
    await _assert_fifty_stored(client, table)


async def test_two_apps_opening_at_once_share_one_sequence(
    api: Api, settings: Settings, client: Any, table: str
) -> None:
    await create_repo(api)
    async with Api.serving(settings) as other:

        async def opens(app: Api, tag: str) -> list[int]:
            results = await gather_results(
                *(app(OPEN_ISSUE, owner=OWNER, name=NAME, title=f"{tag}{n}") for n in range(25))
            )
            return [r.ok()["openIssue"]["number"] for r in results]

        first, second = await asyncio.gather(opens(api, "a"), opens(other, "b"))
    assert sorted(first + second) == list(range(1, 51))
    await _assert_fifty_stored(client, table)


async def _assert_fifty_stored(client: Any, table: str) -> None:
    items = await scan_all(client, table)
    issues = [i for i in items if i.get("type") == "ISSUE"]
    assert len(issues) == 50
    assert sorted(int(i["number"]) for i in issues) == list(range(1, 51))
    [repo] = [i for i in items if i.get("type") == "REPO"]
    assert int(repo["issueCount"]) == 50
    await assert_counts_agree(client, table)


# ---- listing and closing issues ----------------------------------------------------------


async def test_issues_list_highest_number_first_forward_and_backward(api: Api) -> None:
    await create_repo(api)
    model = Issues({n: "OPEN" for n in await open_issues(api, 23)})
    for size in (1, 5, 7, 23, 30):
        forward = await walk(api, ISSUES, "issues", size)
        assert forward.numbers == model.listed(), size
        backward = await walk(api, ISSUES, "issues", size, backward=True)
        assert backward.numbers == model.listed(), size
    titles = (await api(ISSUES, owner=OWNER, name=NAME, first=3)).ok()["repo"]["issues"]
    assert [e["node"]["title"] for e in titles["edges"]] == ["issue 23", "issue 22", "issue 21"]


async def test_cursors_are_bound_to_their_repo_field_and_state(api: Api) -> None:
    await create_repo(api)
    await create_repo(api, "bob", "tools")
    for owner, name in [(OWNER, NAME), ("bob", "tools")]:
        await open_issues(api, 6, owner, name)
        (await star(api, "carol", owner, name)).ok()
        (await star(api, "dave", owner, name)).ok()
    (await close_issue(api, 5)).ok()

    async def end_cursor(document: str, field: str, **variables: Any) -> str:
        page = (await api(document, owner=OWNER, name=NAME, first=1, **variables)).ok()
        cursor: str = page["repo"][field]["pageInfo"]["endCursor"]
        return cursor

    issues = await end_cursor(ISSUES, "issues")
    opened = await end_cursor(ISSUES, "issues", state="OPEN")
    stars = await end_cursor(STARS, "stars")
    # The same repository by another case takes the cursor.
    page = (await api(ISSUES, owner="ALICE", name="DYNAMO", first=2, after=issues)).ok()
    assert [e["node"]["number"] for e in page["repo"]["issues"]["edges"]] == [5, 4]
    page = (await api(ISSUES, owner=OWNER, name=NAME, state="OPEN", first=2, after=opened)).ok()
    assert [e["node"]["number"] for e in page["repo"]["issues"]["edges"]] == [4, 3]
    for document, owner, variables in [
        (ISSUES, "bob", {"after": issues}),
        (ISSUES, OWNER, {"after": issues, "state": "OPEN"}),
        (ISSUES, OWNER, {"after": opened}),
        (ISSUES, OWNER, {"after": stars}),
        (STARS, OWNER, {"after": issues}),
        (STARS, "bob", {"after": stars}),
    ]:
        name = "tools" if owner == "bob" else NAME
        result = await api(document, owner=owner, name=name, first=2, **variables)
        assert result.codes == ["BAD_CURSOR"], (document, owner, variables, result.body)


async def test_an_empty_repo_lists_no_issues_and_no_stars(api: Api) -> None:
    await create_repo(api)
    for document, field in [(ISSUES, "issues"), (STARS, "stars")]:
        for backward in (False, True):
            page = (await walk(api, document, field, 5, backward=backward)).pages
            assert [p["edges"] for p in page] == [[]]


async def test_close_issue(api: Api, client: Any, table: str) -> None:
    await create_repo(api)
    await open_issues(api, 4)
    closed = (await close_issue(api, 3)).ok()["closeIssue"]
    assert closed == {"number": 3, "title": "issue 3", "state": "CLOSED"}
    assert (await close_issue(api, 3, "ALICE", "DYNAMO")).ok()["closeIssue"] == closed
    listed = (await api(ISSUES, owner=OWNER, name=NAME)).ok()["repo"]["issues"]["edges"]
    states = {e["node"]["number"]: e["node"]["state"] for e in listed}
    assert states == {4: "OPEN", 3: "CLOSED", 2: "OPEN", 1: "OPEN"}

    before = await scan_all(client, table)
    for number in (5, 99_999_999):
        assert (await close_issue(api, number)).codes == ["NOT_FOUND"], number
    for number in (0, -1, 100_000_000):
        assert (await close_issue(api, number)).codes == ["BAD_USER_INPUT"], number
    assert (await close_issue(api, 1, "alice", "ghost")).codes == ["NOT_FOUND"]
    assert await scan_all(client, table) == before


async def test_state_filter_pages_match_the_model(api: Api) -> None:
    await create_repo(api)
    model = Issues({n: "OPEN" for n in await open_issues(api, 60)})
    for number in range(3, 61, 3):
        (await close_issue(api, number)).ok()
        model.states[number] = "CLOSED"
    for state in ("OPEN", "CLOSED"):
        expected = model.listed(state)
        for backward in (False, True):
            seen = await walk(api, ISSUES, "issues", 7, backward=backward, state=state)
            assert seen.numbers == expected, (state, backward)
            full, rest = divmod(len(expected), 7)
            sizes = [7] * full + ([rest] if rest else [])
            assert seen.sizes == (sizes[::-1] if backward else sizes), (state, seen.sizes)
    assert (await walk(api, ISSUES, "issues", 7)).numbers == model.listed()


async def test_a_rare_state_is_found_and_the_filter_cost_shows(api: Api) -> None:
    await create_repo(api)
    await open_issues(api, 80)
    (await close_issue(api, 7)).ok()
    result = await api(ISSUES, owner=OWNER, name=NAME, state="CLOSED", first=10)
    page = result.ok()["repo"]["issues"]
    assert [e["node"]["number"] for e in page["edges"]] == [7]
    assert page["pageInfo"]["hasNextPage"] is False
    cost = result.cost
    assert cost["itemsScanned"] > cost["itemsReturned"], cost
    assert cost["itemsScanned"] >= 80, cost  # the whole collection had to be read
    assert cost["requests"] < 10, cost
    opened = await api(ISSUES, owner=OWNER, name=NAME, state="OPEN", first=79)
    assert 7 not in [e["node"]["number"] for e in opened.ok()["repo"]["issues"]["edges"]]


# ---- stars -------------------------------------------------------------------------------


async def test_stars_list_a_to_z_ignoring_case(api: Api) -> None:
    await create_repo(api)
    for username in ["bob", "Carol", "alice", "Dave", "ed"]:
        (await star(api, username)).ok()
    page = (await api(STARS, owner=OWNER, name=NAME)).ok()["repo"]["stars"]
    listed = [e["node"]["username"] for e in page["edges"]]
    assert listed == ["alice", "bob", "Carol", "Dave", "ed"]

    more = ["Zed", "amy", "BEN", "x.y", "a-b", "a_b", "0", "edd", "Ed.x"]
    for username in more:
        (await star(api, username)).ok()
    everyone = sorted_usernames([*listed, *more])
    for size in (1, 3, 5, 14, 20):
        for backward in (False, True):
            seen = await walk(api, STARS, "stars", size, backward=backward)
            assert seen.usernames == everyone, (size, backward)
    assert await star_count(api) == len(everyone)


async def test_starring_twice_counts_once_and_keeps_the_first_case(
    api: Api, client: Any, table: str
) -> None:
    await create_repo(api)
    assert (await star(api, "bob")).ok()["starRepo"]["starCount"] == 1
    before = await repo_items(client, table)
    for again in ("bob", "BOB", "Bob"):
        assert (await star(api, again)).ok()["starRepo"]["starCount"] == 1, again
    assert await repo_items(client, table) == before
    stars = (await api(STARS, owner=OWNER, name=NAME)).ok()["repo"]["stars"]["edges"]
    assert [e["node"]["username"] for e in stars] == ["bob"]

    assert (await unstar(api, "carol")).ok()["unstarRepo"]["starCount"] == 1
    assert await repo_items(client, table) == before
    assert (await star(api, "carol")).ok()["starRepo"]["starCount"] == 2
    assert (await unstar(api, "BOB")).ok()["unstarRepo"]["starCount"] == 1
    assert (await unstar(api, "bob")).ok()["unstarRepo"]["starCount"] == 1
    stars = (await api(STARS, owner=OWNER, name=NAME)).ok()["repo"]["stars"]["edges"]
    assert [e["node"]["username"] for e in stars] == ["carol"]
    await assert_counts_agree(client, table)


async def test_concurrent_stars_count_exactly(api: Api, client: Any, table: str) -> None:
    await create_repo(api)
    same = await gather_results(*(star(api, "bob" if n % 2 else "BOB") for n in range(20)))
    for result in same:
        assert result.ok()["starRepo"]["starCount"] >= 1
    assert await star_count(api) == 1
    users = [f"user{n:02d}" for n in range(20)]
    many = await gather_results(*(star(api, u) for u in users))
    assert all(r.ok() for r in many)
    assert await star_count(api) == 21
    await assert_counts_agree(client, table)

    gone = await gather_results(*(unstar(api, "bob") for _ in range(20)))
    assert all(r.ok() for r in gone)
    assert await star_count(api) == 20
    churn = await gather_results(*(unstar(api, u) for u in users[:10]), star(api, "carol"))
    assert all(r.ok() for r in churn)
    assert await star_count(api) == 11
    await assert_counts_agree(client, table)
    listed = (await api(STARS, owner=OWNER, name=NAME, first=50)).ok()["repo"]["stars"]
    assert [e["node"]["username"] for e in listed["edges"]] == sorted([*users[10:], "carol"])


async def test_starring_a_missing_repo_is_not_found_and_writes_nothing(
    api: Api, client: Any, table: str
) -> None:
    await create_repo(api)
    before = await scan_all(client, table)
    for mutation in (star, unstar):
        for owner, name in [("alice", "ghost"), ("ghost", NAME)]:
            result = await mutation(api, "bob", owner, name)
            assert result.codes == ["NOT_FOUND"], (mutation, owner, name, result.body)
    assert (await star(api, "bad name")).codes == ["BAD_USER_INPUT"]
    assert await scan_all(client, table) == before


# ---- the issue-number key width ----------------------------------------------------------


async def test_a_warning_once_numbers_pass_the_warning_level(
    api: Api, client: Any, table: str, caplog: pytest.LogCaptureFixture
) -> None:
    level = repo_keys.ISSUE_WARNING_LEVEL
    assert level == 30_000_000
    await create_repo(api)
    with caplog.at_level(logging.WARNING, logger="dynagate.repos"):
        await open_issues(api, 3)
        await set_issue_count(client, table, level - 1)
        assert await open_issue(api, "at the level") == level
        assert repo_warnings(caplog) == []
        assert await open_issue(api, "past the level") == level + 1
    [warning] = repo_warnings(caplog)
    assert "Alice/Dynamo" in warning.getMessage()
    assert str(level + 1) in warning.getMessage()
    page = (await api(ISSUES, owner=OWNER, name=NAME, first=3)).ok()["repo"]["issues"]
    assert [e["node"]["number"] for e in page["edges"]] == [level + 1, level, 3]


async def test_the_last_number_is_used_and_then_conflict(api: Api, client: Any, table: str) -> None:
    maximum = repo_keys.ISSUE_NUMBER.maximum
    assert maximum == 99_999_999
    await create_repo(api)
    await open_issue(api, "one")
    await set_issue_count(client, table, maximum - 1)
    assert await open_issue(api, "the last") == maximum
    before = await scan_all(client, table)
    result = await api(OPEN_ISSUE, owner=OWNER, name=NAME, title="one too many")
    assert result.codes == ["CONFLICT"]
    assert await scan_all(client, table) == before
    keys = sorted(i["SK"] for i in before if i["PK"] == PARTITION)
    assert keys == ["ISSUE#00000001", f"ISSUE#{maximum}", PARTITION]
    page = (await api(ISSUES, owner=OWNER, name=NAME)).ok()["repo"]["issues"]
    assert [e["node"]["number"] for e in page["edges"]] == [maximum, 1]
