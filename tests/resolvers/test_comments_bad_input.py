"""Bad comment input: each refusal has its code and leaves the table as it was."""

from __future__ import annotations

from typing import Any

from tests.client import Api
from tests.documents import COMMENTS, DELETE_COMMENT, EDIT_COMMENT, POST_COMMENT
from tests.resolvers.comments_helpers import (
    BAD_IDS,
    BAD_LANGUAGES,
    MISSING_KSUID,
    assert_consistent,
    assert_model_stored,
    create_product,
    edit,
    post,
    snapshot,
)


async def test_bad_filters_are_bad_user_input(api: Api, client: Any, table: str) -> None:
    await create_product(api)
    await post(api, "en", 3)
    before = await snapshot(client, table)
    cases: list[dict[str, Any]] = [
        {"ratings": []},
        {"ratings": [0]},
        {"ratings": [6]},
        {"ratings": [3, 6]},
        {"ratings": [-1]},
        {"language": "en", "ratings": []},
        *({"language": language} for language in BAD_LANGUAGES),
        {"language": "eng", "ratings": [3]},
    ]
    for case in cases:
        result = await api(COMMENTS, id="p1", **case)
        assert result.codes == ["BAD_USER_INPUT"], (case, result.body)
        assert result.data == {"product": None}
    assert await snapshot(client, table) == before


async def test_bad_posts_are_refused_and_write_nothing(api: Api, client: Any, table: str) -> None:
    await create_product(api)
    await post(api, "en", 3)
    before = await snapshot(client, table)
    base = {"productId": "p1", "language": "en", "rating": 3, "body": "fine"}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"rating": 0}, "BAD_USER_INPUT"),
        ({"rating": 6}, "BAD_USER_INPUT"),
        ({"rating": -3}, "BAD_USER_INPUT"),
        *(({"language": language}, "BAD_USER_INPUT") for language in BAD_LANGUAGES),
        ({"body": ""}, "BAD_USER_INPUT"),
        ({"body": " \n\t"}, "BAD_USER_INPUT"),
        ({"body": "x" * 10_001}, "BAD_USER_INPUT"),
        ({"createdAt": "2999-01-01T00:00:00Z"}, "BAD_USER_INPUT"),
        ({"createdAt": "2014-05-13T16:53:19Z"}, "BAD_USER_INPUT"),
        ({"createdAt": "yesterday"}, "BAD_USER_INPUT"),
        *(({"productId": bad}, "BAD_USER_INPUT") for bad in BAD_IDS),
        ({"productId": "ghost"}, "NOT_FOUND"),
        ({"productId": "P1"}, "NOT_FOUND"),
    ]
    for change, code in cases:
        result = await api(POST_COMMENT, input={**base, **change})
        assert result.codes == [code], (change, result.body)
        assert await snapshot(client, table) == before, change

    longest = await post(api, "en", 3, "y" * 10_000)
    assert len(longest.body) == 10_000
    await assert_consistent(client, table)


async def test_bad_edits_and_deletes_are_refused_and_change_nothing(
    api: Api, client: Any, table: str
) -> None:
    await create_product(api)
    posted = await post(api, "en", 3, "original")
    before = await snapshot(client, table)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"rating": 0}, "BAD_USER_INPUT"),
        ({"rating": 6}, "BAD_USER_INPUT"),
        *(({"language": language}, "BAD_USER_INPUT") for language in BAD_LANGUAGES),
        ({"language": "fr", "rating": 6}, "BAD_USER_INPUT"),
        ({"rating": 4, "language": "eng"}, "BAD_USER_INPUT"),
        ({"body": ""}, "BAD_USER_INPUT"),
        ({"body": "   "}, "BAD_USER_INPUT"),
        ({"body": "x" * 10_001}, "BAD_USER_INPUT"),
        ({"rating": 4, "body": "x" * 10_001}, "BAD_USER_INPUT"),
        *(({"id": bad}, "BAD_USER_INPUT") for bad in BAD_IDS),
        ({"id": MISSING_KSUID, "rating": 4}, "NOT_FOUND"),
        ({"id": "nope", "rating": 4}, "NOT_FOUND"),
    ]
    for change, code in cases:
        result = await api(EDIT_COMMENT, input={"id": posted.id, **change})
        assert result.codes == [code], (change, result.body)
        assert await snapshot(client, table) == before, change
    for comment_id, code in [
        (MISSING_KSUID, "NOT_FOUND"),
        ("nope", "NOT_FOUND"),
        *((bad, "BAD_USER_INPUT") for bad in BAD_IDS),
    ]:
        result = await api(DELETE_COMMENT, id=comment_id)
        assert result.codes == [code], (comment_id, result.body)
        assert await snapshot(client, table) == before, comment_id

    await edit(api, posted, body="z" * 10_000)
    await assert_model_stored(client, table, [posted])
