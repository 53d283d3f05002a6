"""Cost of the repository access patterns, read from `extensions.cost`.

`repo { issues(first: N) }` reads the repository and its first issues in one Query, and
likewise for stars, however the selection is written (aliases, fragments, variables,
directives). Each document is also run with the look-ahead switched off, which must give
the same data at the price of a separate read of the repository.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from resolvers import lookahead
from tests.client import Api, Result
from tests.resolvers.repos_helpers import (
    NAME,
    OWNER,
    Issues,
    close_issue,
    create_repo,
    open_issues,
    sorted_usernames,
    star,
)

ISSUE_PAGE = "edges { cursor node { number state } } pageInfo { hasNextPage hasPreviousPage }"
STAR_PAGE = "edges { cursor node { username } } pageInfo { hasNextPage hasPreviousPage }"
# Closed issues sit apart so the top four issues are OPEN (see the filtered tests).
CLOSED = frozenset(n for n in range(1, 31) if n % 5 == 2)
USERNAMES = [f"{'U' if n % 3 else 'u'}ser{(n * 7) % 30:02d}" for n in range(30)]


def doc(body: str, variables: str = "", owner: str = OWNER, name: str = NAME) -> str:
    """A query of one repository selecting `body`."""
    return f'query {variables} {{ repo(owner: "{owner}", name: "{name}") {{ {body} }} }}'


@pytest.fixture(scope="module")
async def seeded(app: Api) -> AsyncIterator[tuple[Api, Issues]]:
    """Alice/Dynamo with 30 issues (every fifth from 2 closed) and 30 stars; bob/tools
    with 3 issues and 2 stars. Read only from here on."""
    await create_repo(app, description="the subject")
    model = Issues({n: "OPEN" for n in await open_issues(app, 30)})
    for number in sorted(CLOSED):
        (await close_issue(app, number)).ok()
        model.states[number] = "CLOSED"
    for username in USERNAMES:
        (await star(app, username)).ok()
    await create_repo(app, "bob", "tools")
    await open_issues(app, 3, "bob", "tools")
    for username in ("zoe", "Amy"):
        (await star(app, username, "bob", "tools")).ok()
    yield app, model


def numbers(page: dict[str, Any]) -> list[int]:
    return [e["node"]["number"] for e in page["edges"]]


def usernames(page: dict[str, Any]) -> list[str]:
    return [e["node"]["username"] for e in page["edges"]]


async def both_ways(
    api: Api, monkeypatch: pytest.MonkeyPatch, document: str, **variables: Any
) -> tuple[Result, Result]:
    """The document with the look-ahead and without it: the data must be the same."""
    looked = await api(document, **variables)
    with monkeypatch.context() as patch:
        patch.setattr(lookahead, "read_ahead", lambda *_: {})
        plain = await api(document, **variables)
    assert looked.ok() == plain.ok()
    return looked, plain


async def one_query(api: Api, monkeypatch: pytest.MonkeyPatch, body: str) -> dict[str, Any]:
    """The repository selecting `body` and a first page: one Query with the look-ahead,
    a separate read of the repository without it."""
    looked, plain = await both_ways(api, monkeypatch, doc(body))
    assert looked.cost["requests"] == 1 and looked.cost["itemsScanned"] <= 12, looked.cost
    assert plain.cost["requests"] == 2
    repo: dict[str, Any] = looked.ok()["repo"]
    return repo


async def test_repo_with_first_issues_is_one_query(
    seeded: tuple[Api, Issues], monkeypatch: pytest.MonkeyPatch
) -> None:
    api, model = seeded
    repo = await one_query(api, monkeypatch, f"description issues(first: 10) {{ {ISSUE_PAGE} }}")
    assert repo["description"] == "the subject"
    assert numbers(repo["issues"]) == model.listed()[:10]
    assert repo["issues"]["pageInfo"] == {"hasNextPage": True, "hasPreviousPage": False}
    # The cursors are those of the same issues read from the other end.
    everything = await api(doc(f"issues(last: 100) {{ {ISSUE_PAGE} }}"))
    edges = everything.ok()["repo"]["issues"]["edges"]
    assert numbers({"edges": edges}) == model.listed()
    assert repo["issues"]["edges"] == edges[:10]


async def test_repo_with_first_stars_is_one_query(
    seeded: tuple[Api, Issues], monkeypatch: pytest.MonkeyPatch
) -> None:
    api, _ = seeded
    body = f"description starCount stars(first: 10) {{ {STAR_PAGE} }}"
    repo = await one_query(api, monkeypatch, body)
    assert repo["starCount"] == 30
    assert usernames(repo["stars"]) == sorted_usernames(USERNAMES)[:10]
    everything = await api(doc(f"stars(last: 100) {{ {STAR_PAGE} }}"))
    assert everything.ok()["repo"]["stars"]["edges"][:10] == repo["stars"]["edges"]


@pytest.mark.parametrize("size", [1, 29, 30, 31, 100])
async def test_page_flags_are_exact_at_the_ends(seeded: tuple[Api, Issues], size: int) -> None:
    api, model = seeded
    result = await api(
        doc(f"issues(first: {size}) {{ {ISSUE_PAGE} }} stars(first: {size}) {{ {STAR_PAGE} }}")
    )
    repo = result.ok()["repo"]
    assert numbers(repo["issues"]) == model.listed()[:size]
    assert usernames(repo["stars"]) == sorted_usernames(USERNAMES)[:size]
    for field in ("issues", "stars"):
        assert repo[field]["pageInfo"] == {"hasNextPage": size < 30, "hasPreviousPage": False}
    assert result.cost["requests"] == 2, result.cost
    assert result.cost["itemsScanned"] <= 2 * (min(size, 30) + 2), result.cost


async def test_a_lookup_by_another_case_still_reads_together(seeded: tuple[Api, Issues]) -> None:
    api, model = seeded
    result = await api(
        doc(f"owner name issues(first: 3) {{ {ISSUE_PAGE} }}", "", "ALICE", "dynamo")
    )
    repo = result.ok()["repo"]
    assert (repo["owner"], repo["name"]) == (OWNER, NAME)
    assert numbers(repo["issues"]) == model.listed()[:3]
    assert result.cost["requests"] == 1, result.cost


@pytest.mark.parametrize(
    ("body", "pages"),
    [
        (f"a: issues(first: 5) {{ {ISSUE_PAGE} }} b: issues(first: 3) {{ {ISSUE_PAGE} }}", 2),
        (f"issues(first: 10) {{ {ISSUE_PAGE} }} stars(first: 10) {{ {STAR_PAGE} }}", 2),
        (f"... on Repo {{ issues(first: 5) {{ {ISSUE_PAGE} }} }}", 1),
        (f"... {{ ... on Repo {{ x: stars(first: 4) {{ {STAR_PAGE} }} }} }}", 1),
        ("...Both", 2),
        (f"...Both issues(first: 5) {{ {ISSUE_PAGE} }}", 2),
        ("name ...Both y: issues(first: 2) { edges { cursor } }", 3),
        (
            "issues(first: 5) { edges { cursor } }"
            f" ... on Repo {{ issues(first: 5) {{ {ISSUE_PAGE} }} }}",
            1,
        ),
    ],
)
async def test_aliases_and_fragments_read_each_page_with_the_repo(
    seeded: tuple[Api, Issues], monkeypatch: pytest.MonkeyPatch, body: str, pages: int
) -> None:
    api, _ = seeded
    document = doc(body) + (
        f" fragment Both on Repo {{ description issues(first: 5) {{ {ISSUE_PAGE} }}"
        f" ...Stars }} fragment Stars on Repo {{ stars(first: 6) {{ {STAR_PAGE} }} }}"
        if "...Both" in body
        else ""
    )
    looked, plain = await both_ways(api, monkeypatch, document)
    assert looked.cost["requests"] == pages, looked.cost
    assert plain.cost["requests"] == pages + 1, plain.cost


async def test_aliased_pages_match_the_model(seeded: tuple[Api, Issues]) -> None:
    api, model = seeded
    result = await api(
        doc(
            f"a: issues(first: 5) {{ {ISSUE_PAGE} }} b: issues(first: 3) {{ {ISSUE_PAGE} }}"
            f" open: issues(state: OPEN, first: 2) {{ {ISSUE_PAGE} }}"
        )
    )
    repo = result.ok()["repo"]
    assert numbers(repo["a"]) == model.listed()[:5]
    assert numbers(repo["b"]) == model.listed()[:3]
    assert numbers(repo["open"]) == model.listed("OPEN")[:2]
    assert result.cost["requests"] == 3, result.cost


async def test_two_repos_in_one_document_each_read_with_their_pages(
    seeded: tuple[Api, Issues],
) -> None:
    api, model = seeded
    result = await api(
        f"""{{ a: repo(owner: "alice", name: "dynamo") {{ issues(first: 2) {{ {ISSUE_PAGE} }} }}
              b: repo(owner: "Bob", name: "Tools") {{ owner issues(first: 5) {{ {ISSUE_PAGE} }}
                                                      stars {{ {STAR_PAGE} }} }} }}"""
    )
    data = result.ok()
    assert numbers(data["a"]["issues"]) == model.listed()[:2]
    assert numbers(data["b"]["issues"]) == [3, 2, 1]
    assert usernames(data["b"]["stars"]) == ["Amy", "zoe"]
    assert data["b"]["issues"]["pageInfo"]["hasNextPage"] is False
    assert result.cost["requests"] == 3, result.cost


@pytest.mark.parametrize(
    "variables",
    [
        {"n": 4},
        {"n": 2, "s": "OPEN"},
        {"s": None},
        {},
        {"n": 6, "s": "CLOSED"},
    ],
)
async def test_variables_for_first_and_state(
    seeded: tuple[Api, Issues], monkeypatch: pytest.MonkeyPatch, variables: dict[str, Any]
) -> None:
    api, model = seeded
    document = doc(f"issues(first: $n, state: $s) {{ {ISSUE_PAGE} }}", "($n: Int, $s: IssueState)")
    looked, plain = await both_ways(api, monkeypatch, document, **variables)
    size, state = variables.get("n") or 20, variables.get("s")
    page = looked.ok()["repo"]["issues"]
    assert numbers(page) == model.listed(state)[:size]
    assert page["pageInfo"]["hasNextPage"] == (len(model.listed(state)) > size)
    assert looked.cost["requests"] == plain.cost["requests"] - 1, (looked.cost, plain.cost)
    # Written out literally, the same page costs the same.
    literal = doc(
        f"issues(first: {size}{'' if state is None else f', state: {state}'}) {{ {ISSUE_PAGE} }}"
    )
    same = await api(literal)
    assert same.ok() == looked.ok() and same.cost == looked.cost
    if state != "CLOSED":
        # Unfiltered, or the top items all match (issues 30..27 are OPEN): nothing to refill.
        assert looked.cost["requests"] == 1, looked.cost


async def test_a_variable_with_a_default(seeded: tuple[Api, Issues]) -> None:
    api, model = seeded
    document = doc(f"issues(first: $n) {{ {ISSUE_PAGE} }}", "($n: Int = 4)")
    result = await api(document)
    assert numbers(result.ok()["repo"]["issues"]) == model.listed()[:4]
    assert result.cost["requests"] == 1, result.cost


async def test_pages_away_from_the_repo_make_their_own_query(seeded: tuple[Api, Issues]) -> None:
    api, model = seeded
    first = await api(doc("issues(first: 10) { pageInfo { endCursor } }"))
    cursor = first.ok()["repo"]["issues"]["pageInfo"]["endCursor"]
    after = await api(
        doc(
            "issues(first: 10, after: $c) { edges { node { number } } pageInfo { hasNextPage } }",
            "($c: String)",
        ),
        c=cursor,
    )
    page = after.ok()["repo"]["issues"]
    assert numbers(page) == model.listed()[10:20] and page["pageInfo"]["hasNextPage"]
    assert after.cost["requests"] <= 2, after.cost

    last = await api(doc(f"issues(last: 5) {{ {ISSUE_PAGE} }} stars(last: 3) {{ {STAR_PAGE} }}"))
    repo = last.ok()["repo"]
    assert numbers(repo["issues"]) == model.listed()[-5:]
    assert usernames(repo["stars"]) == sorted_usernames(USERNAMES)[-3:]
    assert last.cost["requests"] == 3, last.cost  # the repository, then one Query per page


async def test_the_repo_alone_is_one_request(seeded: tuple[Api, Issues]) -> None:
    api, _ = seeded
    for body in ("name", "owner name description createdAt starCount", "__typename"):
        result = await api(doc(body))
        assert result.ok()["repo"]
        assert result.cost["requests"] == 1, (body, result.cost)
        assert result.cost["itemsScanned"] == 1, (body, result.cost)


@pytest.mark.parametrize(
    "arguments", ["first: 500", "first: 0", "last: 101", "first: 2, last: 2", 'after: "junk"']
)
async def test_bad_page_arguments_are_reported_at_the_child(
    seeded: tuple[Api, Issues], arguments: str
) -> None:
    api, _ = seeded
    result = await api(doc(f"name issues({arguments}) {{ {ISSUE_PAGE} }}"))
    assert len(result.errors) == 1, result.body
    [error] = result.errors
    assert error["path"] == ["repo", "issues"], error
    code = "BAD_CURSOR" if "junk" in arguments else "BAD_USER_INPUT"
    assert result.codes == [code]
    # `issues` is non-null: the error nulls the repository, which was read (once).
    assert result.data == {"repo": None}
    assert result.cost["requests"] == result.cost["itemsScanned"] == 1, result.cost


@pytest.mark.parametrize(
    ("directive", "variables"),
    [
        ("@skip(if: true)", {}),
        ("@include(if: false)", {}),
        ("@skip(if: $flag)", {"flag": True}),
        ("@include(if: $flag)", {"flag": False}),
    ],
)
async def test_a_skipped_page_is_not_read(
    seeded: tuple[Api, Issues], directive: str, variables: dict[str, Any]
) -> None:
    api, _ = seeded
    signature = "($flag: Boolean!)" if variables else ""
    for body in (
        f"name issues(first: 10) {directive} {{ {ISSUE_PAGE} }}",
        f"name ... on Repo {directive} {{ issues(first: 10) {{ {ISSUE_PAGE} }} }}",
        f"name ...Issues {directive}",
    ):
        fragment = f" fragment Issues on Repo {{ issues(first: 10) {{ {ISSUE_PAGE} }} }}"
        document = doc(body, signature) + (fragment if "...Issues" in body else "")
        result = await api(document, **variables)
        assert result.ok() == {"repo": {"name": NAME}}, body
        # The repository alone: a page read with it would show in the items scanned.
        assert result.cost["requests"] == 1, (body, result.cost)
        assert result.cost["itemsScanned"] == result.cost["itemsReturned"] == 1, result.cost


@pytest.mark.parametrize("directive", ["@skip(if: false)", "@include(if: true)"])
async def test_a_page_kept_by_its_directive_is_still_read_with_the_repo(
    seeded: tuple[Api, Issues], directive: str
) -> None:
    api, model = seeded
    result = await api(doc(f"name issues(first: 10) {directive} {{ {ISSUE_PAGE} }}"))
    assert numbers(result.ok()["repo"]["issues"]) == model.listed()[:10]
    assert result.cost["requests"] == 1, result.cost


async def test_a_missing_repo_with_pages_selected(seeded: tuple[Api, Issues]) -> None:
    api, _ = seeded
    result = await api(
        doc(
            f"issues(first: 10) {{ {ISSUE_PAGE} }} stars(first: 10) {{ {STAR_PAGE} }}",
            "",
            "alice",
            "ghost",
        )
    )
    assert result.ok() == {"repo": None}
    assert result.cost["requests"] <= 2, result.cost
    assert result.cost["itemsReturned"] == 0, result.cost
