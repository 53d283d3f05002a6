"""Who may post, edit and delete comments (docs/identity.md), with real tokens.

Anyone reads; any signed-in caller posts, recorded as the author on the comment and its 32
copies; only the author (case-insensitively) or an admin edits or deletes, a rule the
primary item's condition in the transaction decides.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from store.client import Store
from tests.client import Api, Result, assert_costs_alike, made_both_ways
from tests.documents import COMMENTS, DELETE_COMMENT
from tests.identity import SECURED, token
from tests.resolvers.comments_helpers import (
    MISSING_KSUID,
    assert_consistent,
    create_product,
    snapshot,
)

# Selections of their own: what these tests look at is the author.
POST = """mutation ($input: PostCommentInput!) {
  postComment(input: $input) { id author body } }"""
EDIT = """mutation ($input: EditCommentInput!) {
  editComment(input: $input) { id author body rating } }"""
COMMENT = "query ($id: ID!) { comment(id: $id) { id author body product { id } } }"
NEW = {"productId": "p1", "language": "en", "rating": 4, "body": "fine"}

# Minted when the module is collected: valid for as long as the whole suite may run.
SUITE = 3 * 3600
ADMIN = token("root", admin=True, ttl=SUITE)
ALICE = token("Alice", ttl=SUITE)
BOB = token("bob", ttl=SUITE)


pytestmark = pytest.mark.overrides(**SECURED)


@pytest.fixture
async def product(api: Api) -> None:
    await create_product(api.signed_in(ADMIN))


def refused(result: Result, code: str, *, requests: int | None = None) -> None:
    assert result.codes == [code], result.body
    assert result.data is None or set(result.data.values()) == {None}
    if requests is not None:
        assert result.cost["requests"] == requests, result.cost


async def post(api: Api, **changes: Any) -> str:
    posted = (await api(POST, input={**NEW, **changes})).ok()["postComment"]
    comment_id: str = posted["id"]
    return comment_id


def changes(comment_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The two calls that change a comment: an edit of its body, and its deletion."""
    return [
        (EDIT, {"input": {"id": comment_id, "body": "changed"}}),
        (DELETE_COMMENT, {"id": comment_id}),
    ]


def stored_of(items: list[dict[str, Any]], comment_id: str) -> list[dict[str, Any]]:
    return [i for i in items if i["PK"] == f"COMMENT#{comment_id}"]


@pytest.mark.usefixtures("product")
async def test_a_comment_is_posted_by_a_signed_in_caller_and_read_by_anyone(
    api: Api, client: Any, table: str
) -> None:
    before = await snapshot(client, table)
    refused(await api(POST, input=NEW), "UNAUTHENTICATED", requests=0)
    assert await snapshot(client, table) == before
    comment_id = await post(api.signed_in(ALICE))
    items = stored_of(await snapshot(client, table), comment_id)
    # The primary item and each of its 32 copies: every list reads the author.
    assert len(items) == 33
    assert {(i["author"], i["authorKey"]) for i in items} == {("Alice", "alice")}
    await assert_consistent(client, table)
    read = (await api(COMMENT, id=comment_id)).ok()["comment"]
    assert read == {"id": comment_id, "author": "Alice", "body": "fine", "product": {"id": "p1"}}
    page = COMMENTS.replace("node { id", "node { author id")
    for language, ratings in [(None, None), ("en", [4]), ("EN", [1, 4])]:
        listed = await api(page, id="p1", language=language, ratings=ratings)
        edges = listed.ok()["product"]["comments"]["edges"]
        assert [e["node"]["author"] for e in edges] == ["Alice"]


@pytest.mark.usefixtures("product")
async def test_only_the_author_or_an_admin_edits_and_deletes(
    api: Api, client: Any, table: str
) -> None:
    comment_id = await post(api.signed_in(ALICE))
    other_id = await post(api.signed_in(ALICE), body="second")
    before = await snapshot(client, table)
    for document, variables in changes(comment_id):
        refused(await api(document, **variables), "UNAUTHENTICATED", requests=0)
        refused(await api.signed_in(BOB)(document, **variables), "FORBIDDEN")
        assert await snapshot(client, table) == before
    # Usernames are case-insensitive: "ALICE" is the author of what "Alice" wrote.
    change = {"id": comment_id, "body": "changed"}
    edited = (await api.signed_in(token("ALICE"))(EDIT, input=change)).ok()["editComment"]
    assert edited == {"id": comment_id, "author": "Alice", "body": "changed", "rating": 4}
    by_admin = await api.signed_in(ADMIN)(EDIT, input={"id": comment_id, "rating": 2})
    assert by_admin.ok()["editComment"]["author"] == "Alice"  # an admin's edit keeps it
    primaries = await assert_consistent(client, table)
    assert primaries[comment_id]["authorKey"] == "alice"
    assert (await api.signed_in(token("alice"))(DELETE_COMMENT, id=comment_id)).ok()
    assert (await api.signed_in(ADMIN)(DELETE_COMMENT, id=other_id)).ok()
    assert await assert_consistent(client, table) == {}


@pytest.mark.usefixtures("product")
async def test_a_comment_posted_with_identity_off_is_changed_by_admins_only(
    api: Api, opened: Api, client: Any, table: str
) -> None:
    comment_id = await post(opened)
    assert (await api(COMMENT, id=comment_id)).ok()["comment"]["author"] is None
    before = await snapshot(client, table)
    assert all("authorKey" not in i for i in stored_of(before, comment_id))
    for as_user in (api.signed_in(BOB), api.signed_in(ALICE)):
        for document, variables in changes(comment_id):
            refused(await as_user(document, **variables), "FORBIDDEN")
    assert await snapshot(client, table) == before
    admin = api.signed_in(ADMIN)
    edited = (await admin(EDIT, input={"id": comment_id, "body": "changed"})).ok()["editComment"]
    assert (edited["body"], edited["author"]) == ("changed", None)
    assert (await admin(DELETE_COMMENT, id=comment_id)).ok()
    assert await assert_consistent(client, table) == {}


@pytest.mark.usefixtures("product")
async def test_the_token_comes_first_then_a_missing_comment(
    api: Api, client: Any, table: str
) -> None:
    before = await snapshot(client, table)
    for document, variables in changes(MISSING_KSUID):
        refused(await api(document, **variables), "UNAUTHENTICATED", requests=0)
        refused(await api.signed_in(BOB)(document, **variables), "NOT_FOUND", requests=1)
    assert await snapshot(client, table) == before


@pytest.mark.usefixtures("product")
async def test_strangers_racing_the_author_to_delete_never_win(
    api: Api, client: Any, table: str
) -> None:
    comment_id = await post(api.signed_in(ALICE))
    strangers = [
        api.signed_in(token(f"stranger{n}"))(DELETE_COMMENT, id=comment_id) for n in range(10)
    ]
    author = api.signed_in(ALICE)(DELETE_COMMENT, id=comment_id)
    *lost, won = await asyncio.gather(*strangers, author)
    assert won.ok() == {"deleteComment": True}
    for result in lost:
        # Refused by the comment, or too late to find it: never a success.
        assert result.codes in (["FORBIDDEN"], ["NOT_FOUND"]), result.body
    assert [i["type"] for i in await snapshot(client, table)] == ["PRODUCT"]


def forge_reads(monkeypatch: pytest.MonkeyPatch, **attributes: Any) -> None:
    """Every comment the access pattern reads comes back with `attributes` changed: the
    write must then refuse on its own condition."""
    read = Store.get

    async def forged(self: Store, key: Any, *, consistent: bool = False) -> Any:
        item = await read(self, key, consistent=consistent)
        return item if item is None or item["type"] != "COMMENT" else {**item, **attributes}

    monkeypatch.setattr(Store, "get", forged)


@pytest.mark.parametrize("stale_version", [False, True])
@pytest.mark.usefixtures("product")
async def test_the_write_condition_alone_refuses_a_stranger(
    api: Api, client: Any, table: str, monkeypatch: pytest.MonkeyPatch, stale_version: bool
) -> None:
    comment_id = await post(api.signed_in(ALICE))
    before = await snapshot(client, table)
    # The read says bob wrote it (and, stale, at another version): only the condition on
    # the primary item stands between bob and the write. FORBIDDEN ranks above CONFLICT.
    forge_reads(
        monkeypatch, author="bob", authorKey="bob", **({"version": 7} if stale_version else {})
    )
    bob = api.signed_in(BOB)
    for result in [
        await bob(EDIT, input={"id": comment_id, "body": "mine now"}),
        await bob(DELETE_COMMENT, id=comment_id),
    ]:
        # The read, then the transaction its condition cancelled.
        refused(result, "FORBIDDEN", requests=2)
    monkeypatch.undo()
    assert await snapshot(client, table) == before


@pytest.mark.usefixtures("product")
async def test_the_authors_writes_cost_what_they_cost_with_identity_off(
    api: Api, opened: Api
) -> None:
    alice = api.signed_in(ALICE)
    posted, mine, theirs = await made_both_ways(alice, opened, POST, NEW)
    change = {"body": "changed", "rating": 1}
    edited = [
        await alice(EDIT, input={"id": mine, **change}),
        await opened(EDIT, input={"id": theirs, **change}),
    ]
    deleted = [await alice(DELETE_COMMENT, id=mine), await opened(DELETE_COMMENT, id=theirs)]
    # Edits and deletes: a consistent GetItem and the transaction, as with identity off.
    for secured, open_mode in (posted, edited, deleted):
        assert_costs_alike(secured, open_mode)
