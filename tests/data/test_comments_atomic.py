"""A comment and its 32 copies change together or not at all, under failures and races.

(a) A transaction made to fail on its LAST action (a ConditionCheck on a key that does not
    exist) leaves no trace: had any copy been written by a separate call, it would remain.
(b) Concurrent edits: each wins or is CONFLICT, and the copies are those of one version.
(c) Lost races between edit and delete, made deterministic by interleaving a second
    request right after the first has read the comment.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from errors.vocabulary import Conflict
from store.client import Store
from store.loaders import ItemLoader
from tests import demo_comments as data
from tests import demo_comments as products
from tests.client import Api
from tests.data.races import interleave
from tests.documents import COMMENT, DELETE_COMMENT, EDIT_COMMENT, POST_COMMENT
from tests.resolvers.comments_helpers import (
    assert_consistent,
    assert_model_stored,
    create_product,
    listed_ids,
    post,
    snapshot,
)
from tests.table import fail_every_transaction_last


async def test_a_post_failing_on_its_last_action_writes_nothing(
    api: Api, client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await create_product(api)
    existing = await post(api, "en", 3, "already here")
    before = await snapshot(client, table)
    sizes = fail_every_transaction_last(monkeypatch)
    doomed = {"productId": "p1", "language": "fr", "rating": 5, "body": "doomed"}
    result = await api(POST_COMMENT, input=doomed)
    monkeypatch.undo()
    assert sizes == [1 + 1 + 32]
    assert result.codes == ["CONFLICT"]
    assert "NOWHERE" not in str(result.body) and "Transaction" not in str(result.body)
    assert await snapshot(client, table) == before
    await assert_model_stored(client, table, [existing])
    assert await listed_ids(api, "fr") == []


@pytest.mark.parametrize(
    "change",
    [{"language": "fr"}, {"rating": 1}, {"language": "de", "rating": 5}, {"body": "new"}],
)
async def test_an_edit_failing_on_its_last_action_changes_nothing(
    api: Api, client: Any, table: str, monkeypatch: pytest.MonkeyPatch, change: dict[str, Any]
) -> None:
    await create_product(api)
    posted = await post(api, "en", 3, "original")
    before = await snapshot(client, table)
    sizes = fail_every_transaction_last(monkeypatch)
    result = await api(EDIT_COMMENT, input={"id": posted.id, **change})
    monkeypatch.undo()
    assert len(sizes) == 1 and sizes[0] > 1 + 16
    assert result.codes == ["CONFLICT"]
    assert await snapshot(client, table) == before
    await assert_model_stored(client, table, [posted])
    found = (await api(COMMENT, id=posted.id)).ok()["comment"]
    assert (found["language"], found["rating"], found["body"]) == ("en", 3, "original")
    # The same edit goes through once nothing stands in its way.
    (await api(EDIT_COMMENT, input={"id": posted.id, **change})).ok()
    primaries = await assert_consistent(client, table)
    assert primaries[posted.id]["version"] == 2


async def test_a_delete_failing_on_its_last_action_keeps_all_33_items(
    api: Api, client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await create_product(api)
    posted = await post(api, "en", 3)
    before = await snapshot(client, table)
    assert len(before) == 1 + 33
    sizes = fail_every_transaction_last(monkeypatch)
    result = await api(DELETE_COMMENT, id=posted.id)
    monkeypatch.undo()
    assert sizes == [33]
    assert result.codes == ["CONFLICT"]
    assert await snapshot(client, table) == before
    await assert_model_stored(client, table, [posted])
    assert await listed_ids(api, "en", [3]) == [posted.id]


async def test_concurrent_edits_leave_the_copies_of_one_version(
    api: Api, client: Any, table: str
) -> None:
    await create_product(api)
    posted = await post(api, "en", 3, "original")
    # Distinct from each other and from the start, so no edit is a no-op.
    wanted = [
        ("fr", 1),
        ("de", 2),
        ("es", 3),
        ("it", 4),
        ("nl", 5),
        ("en", 1),
        ("fr", 5),
        ("de", 4),
        ("es", 2),
        ("pt", 3),
    ]
    version = 1
    for round_ in range(3):
        results = await asyncio.gather(
            *(
                api(
                    EDIT_COMMENT,
                    input={
                        "id": posted.id,
                        "language": language,
                        "rating": rating,
                        "body": f"{language}{rating} round {round_}",
                    },
                )
                for language, rating in wanted
            )
        )
        winners = [w for w, r in zip(wanted, results, strict=True) if not r.errors]
        assert winners, [r.body for r in results]
        assert {c for r in results for c in r.codes} <= {"CONFLICT"}
        primaries = await assert_consistent(client, table)
        final = primaries[posted.id]
        version += len(winners)
        assert final["version"] == version
        assert (final["language"], final["rating"]) in winners
        assert final["body"] == f"{final['language']}{final['rating']} round {round_}"
        for language, rating in {*wanted, ("en", 3)}:
            shown = await listed_ids(api, language, [rating])
            current = (language, rating) == (final["language"], final["rating"])
            assert shown == ([posted.id] if current else []), (language, rating)


async def _setup(client: Any, table: str) -> tuple[Store, ItemLoader, str]:
    store = Store(client, table)
    await products.create_product(store, "p1", "Widget")
    posted = await data.post_comment(store, "p1", "en", 3, "original", None)
    return store, ItemLoader(store), posted.id


async def stored(client: Any, table: str, comment_id: str) -> tuple[str, int, str, int]:
    """(language, rating, body, version) of a comment, the invariant checked first."""
    primary = (await assert_consistent(client, table))[comment_id]
    return primary["language"], primary["rating"], primary["body"], primary["version"]


async def test_an_edit_that_read_before_a_delete_is_conflict_and_revives_nothing(
    client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, loader, comment_id = await _setup(client, table)

    async def delete(other: Store, items: ItemLoader) -> None:
        await data.delete_comment(other, items, comment_id)

    interleave(monkeypatch, client, table, delete)
    with pytest.raises(Conflict):
        await data.edit_comment(store, loader, comment_id, language="fr", rating=5, body=None)
    monkeypatch.undo()
    assert await assert_consistent(client, table) == {}
    assert [i["type"] for i in await snapshot(client, table)] == ["PRODUCT"]


async def test_a_delete_that_read_before_an_edit_is_conflict_and_keeps_the_edit(
    client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, loader, comment_id = await _setup(client, table)

    async def edit(other: Store, items: ItemLoader) -> None:
        await data.edit_comment(other, items, comment_id, language="fr", rating=5, body="moved")

    interleave(monkeypatch, client, table, edit)
    with pytest.raises(Conflict):
        await data.delete_comment(store, loader, comment_id)
    monkeypatch.undo()
    assert await stored(client, table, comment_id) == ("fr", 5, "moved", 2)


async def test_an_edit_that_read_a_stale_version_is_conflict_and_mixes_nothing(
    client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loser would keep some `~` copies and delete others; none of it may land."""
    store, loader, comment_id = await _setup(client, table)

    async def edit(other: Store, items: ItemLoader) -> None:
        await data.edit_comment(other, items, comment_id, language="de", rating=1, body=None)

    interleave(monkeypatch, client, table, edit)
    with pytest.raises(Conflict):
        await data.edit_comment(store, loader, comment_id, language=None, rating=4, body="x")
    monkeypatch.undo()
    assert await stored(client, table, comment_id) == ("de", 1, "original", 2)


async def test_a_delete_racing_edits_leaves_nothing_or_one_consistent_comment(
    api: Api, client: Any, table: str
) -> None:
    await create_product(api)
    for _ in range(3):
        posted = await post(api, "en", 3)
        calls = [
            api(EDIT_COMMENT, input={"id": posted.id, "language": "fr", "rating": 1}),
            api(DELETE_COMMENT, id=posted.id),
            api(EDIT_COMMENT, input={"id": posted.id, "rating": 5}),
            api(EDIT_COMMENT, input={"id": posted.id, "language": "de"}),
        ]
        results = await asyncio.gather(*calls)
        codes = {c for r in results for c in r.codes}
        assert codes <= {"CONFLICT", "NOT_FOUND"}, [r.body for r in results]
        primaries = await assert_consistent(client, table)
        deleted = not results[1].errors
        assert (posted.id not in primaries) is deleted
        if not deleted:
            (await api(DELETE_COMMENT, id=posted.id)).ok()
        assert await assert_consistent(client, table) == {}
