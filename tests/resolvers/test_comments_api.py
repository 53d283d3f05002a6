"""Products and comments through the GraphQL API (seed 003, QP1-QP7), against DynamoDB Local.

After every mutation the whole table is checked: each live comment is one primary item
and exactly the 32 copies its language and rating imply, all equal to the primary.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.client import Api
from tests.documents import COMMENT, COMMENTS, CREATE_PRODUCT, DELETE_COMMENT
from tests.resolvers.comments_helpers import (
    BAD_IDS,
    MISSING_KSUID,
    RATING_SUBSETS,
    assert_consistent,
    assert_lists_match,
    assert_model_stored,
    create_product,
    edit,
    listed,
    listed_ids,
    newest_first,
    post,
    snapshot,
)
from tests.resolvers.connections import EMPTY, Connection, check_shape, flags, walk


def at(minute: int) -> str:
    return f"2021-03-01T{minute // 60:02d}:{minute % 60:02d}:00.000Z"


async def test_create_product_duplicate_and_bad_ids(api: Api, client: Any, table: str) -> None:
    created = await api(CREATE_PRODUCT, input={"id": "Prod-1.a_b", "name": "Widget"})
    assert created.ok() == {"createProduct": {"id": "Prod-1.a_b", "name": "Widget"}}
    found = await api(
        '{ product(id: "Prod-1.a_b") { id name comments { edges { cursor } '
        "pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } "
        'missing: product(id: "ghost") { id } }'
    )
    assert found.ok() == {
        "product": {
            "id": "Prod-1.a_b",
            "name": "Widget",
            "comments": EMPTY,
        },
        "missing": None,
    }
    before = await snapshot(client, table)
    assert [(i["PK"], i["name"]) for i in before] == [("PRODUCT#Prod-1.a_b", "Widget")]

    again = await api(CREATE_PRODUCT, input={"id": "Prod-1.a_b", "name": "Other"})
    assert again.codes == ["CONFLICT"]
    for bad in BAD_IDS:
        result = await api(CREATE_PRODUCT, input={"id": bad, "name": "N"})
        assert result.codes == ["BAD_USER_INPUT"], (bad, result.body)
        lookup = await api("query ($id: ID!) { product(id: $id) { id } }", id=bad)
        assert lookup.codes == ["BAD_USER_INPUT"], (bad, lookup.body)
    for name in ["", "   ", "n" * 201]:
        result = await api(CREATE_PRODUCT, input={"id": "p2", "name": name})
        assert result.codes == ["BAD_USER_INPUT"], (name, result.body)
    assert await snapshot(client, table) == before


async def test_newest_first_regardless_of_filter_with_imported_dates(
    api: Api, client: Any, table: str
) -> None:
    """QP1, and `createdAt` given for an import of older data sorts among the rest."""
    await create_product(api)
    third = await post(api, "en", 5, "third", "2021-03-03T00:00:00Z")
    first = await post(api, "fr", 1, "first", "2021-03-01T10:00:00+10:00")
    now = await post(api, "de", 3, "now")
    second = await post(api, "en", 2, "second", "2021-03-02")
    later = await post(api, "en", 4, "a millisecond later", "2021-03-02T00:00:00.001Z")
    model = [third, first, now, second, later]
    assert first.created_at == "2021-03-01T00:00:00.000Z"
    assert second.created_at == "2021-03-02T00:00:00.000Z"
    assert now.created_at > third.created_at
    nodes = await listed(api)
    assert [n["body"] for n in nodes] == [
        "now",
        "third",
        "a millisecond later",
        "second",
        "first",
    ]
    assert [n["createdAt"] for n in nodes] == sorted((c.created_at for c in model), reverse=True)
    await assert_lists_match(
        api, model, [None, "en", "fr"], [None, (2, 4, 5), (1, 3, 5), (1, 2, 3, 4, 5)]
    )
    await assert_model_stored(client, table, model)


async def test_language_filter_is_case_insensitive_and_stored_lowercase(
    api: Api, client: Any, table: str
) -> None:
    """QP2: the local language, or every language."""
    await create_product(api)
    upper = await post(api, "EN", 4, created_at=at(1))
    lower = await post(api, "en", 2, created_at=at(2))
    french = await post(api, "Fr", 5, created_at=at(3))
    assert (upper.language, french.language) == ("en", "fr")
    primaries = await assert_consistent(client, table)
    assert sorted(p["language"] for p in primaries.values()) == ["en", "en", "fr"]

    assert await listed_ids(api, "EN") == await listed_ids(api, "en") == [lower.id, upper.id]
    assert await listed_ids(api, "fR") == [french.id]
    assert await listed_ids(api, "de") == []
    assert await listed_ids(api) == [french.id, lower.id, upper.id]
    assert await listed_ids(api, "En", [4, 5]) == [upper.id]

    # The filter is one argument set whatever its case: a cursor carries over.
    page = (await api(COMMENTS, id="p1", language="EN", first=1)).ok()["product"]["comments"]
    cursor = page["pageInfo"]["endCursor"]
    rest = await api(COMMENTS, id="p1", language="en", first=1, after=cursor)
    assert [e["node"]["id"] for e in rest.ok()["product"]["comments"]["edges"]] == [upper.id]


async def test_every_rating_subset_with_and_without_a_language(
    api: Api, client: Any, table: str
) -> None:
    """QP3: each of the 31 rating sets, alone and with a language, is exactly the matches."""
    await create_product(api)
    pairs = [(language, rating) for language in ("en", "fr", "de") for rating in range(1, 6)]
    pairs += [("en", 5), ("en", 5), ("fr", 1), ("de", 3), ("EN", 2)]
    # Posting order differs from time order.
    model = [
        await post(api, language, rating, f"body {n}", at((n * 7) % len(pairs)))
        for n, (language, rating) in enumerate(pairs)
    ]
    await assert_model_stored(client, table, model)
    await assert_lists_match(api, model, [None, "en", "fr", "de", "es"])
    # Repeated values are the same set.
    assert await listed_ids(api, "en", [5, 5, 1]) == newest_first(model, "en", [1, 5])


async def test_comment_by_id_and_its_product(api: Api) -> None:
    """QP5."""
    await create_product(api, "p1", "Widget")
    posted = await post(api, "en", 4, "Great", "2021-03-01T12:00:00.5Z")
    found = await api(COMMENT, id=posted.id)
    assert found.ok() == {
        "comment": {
            "id": posted.id,
            "language": "en",
            "rating": 4,
            "body": "Great",
            "createdAt": "2021-03-01T12:00:00.500Z",
            "product": {"id": "p1", "name": "Widget"},
        }
    }
    assert len(posted.id) == 27
    for missing in (MISSING_KSUID, "nope", "p1", "Z" * 27):
        assert (await api(COMMENT, id=missing)).ok() == {"comment": None}, missing
    for bad in BAD_IDS:
        result = await api(COMMENT, id=bad)
        assert result.codes == ["BAD_USER_INPUT"], (bad, result.body)


async def test_most_recent_positive_english_comment(api: Api) -> None:
    """QP6: `language: "en", ratings: [4, 5], first: 1`."""
    await create_product(api)
    await post(api, "en", 5, "old praise", at(1))
    wanted = await post(api, "en", 4, "recent praise", at(2))
    await post(api, "fr", 5, "newer, French", at(3))
    await post(api, "en", 3, "newer, lukewarm", at(4))
    await post(api, "de", 4, "newest, German", at(5))
    result = await api(COMMENTS, id="p1", language="en", ratings=[4, 5], first=1)
    page = result.ok()["product"]["comments"]
    assert [e["node"]["body"] for e in page["edges"]] == ["recent praise"]
    assert [e["node"]["id"] for e in page["edges"]] == [wanted.id]
    assert page["pageInfo"]["hasNextPage"] is True
    assert page["pageInfo"]["hasPreviousPage"] is False


async def test_delete_removes_the_comment_from_every_list(
    api: Api, client: Any, table: str
) -> None:
    """QP7; a second delete is NOT_FOUND and changes nothing."""
    await create_product(api)
    model = [
        await post(api, language, rating, f"b{n}", at(n))
        for n, (language, rating) in enumerate(
            [("en", 3), ("en", 4), ("fr", 3), ("en", 3), ("de", 1), ("fr", 4)]
        )
    ]
    victim = model[3]
    assert (await api(DELETE_COMMENT, id=victim.id)).ok() == {"deleteComment": True}
    model.remove(victim)
    await assert_model_stored(client, table, model)
    await assert_lists_match(api, model, [None, "en", "fr", "de"], RATING_SUBSETS)
    assert (await api(COMMENT, id=victim.id)).ok() == {"comment": None}

    before = await snapshot(client, table)
    again = await api(DELETE_COMMENT, id=victim.id)
    assert again.codes == ["NOT_FOUND"]
    assert await snapshot(client, table) == before

    for rest in list(model):
        (await api(DELETE_COMMENT, id=rest.id)).ok()
        model.remove(rest)
        await assert_model_stored(client, table, model)
    assert await listed_ids(api) == []
    assert [i["type"] for i in await snapshot(client, table)] == ["PRODUCT"]


async def test_edits_move_comments_between_lists_at_once(api: Api, client: Any, table: str) -> None:
    await create_product(api)
    model = [
        await post(api, language, rating, f"body {n}", at(n))
        for n, (language, rating) in enumerate(
            [("en", 3), ("fr", 5), ("en", 1), ("de", 3), ("en", 5)]
        )
    ]
    target = model[0]
    languages = [None, "en", "fr", "de", "es"]
    subsets: list[tuple[int, ...] | None] = [None, (1,), (2,), (3,), (5,), (1, 5), (2, 3, 4)]
    steps: list[dict[str, Any]] = [
        {"language": "FR"},  # language only
        {"rating": 5},  # rating only
        {"language": "es", "rating": 2},  # both
        {"body": "rewritten"},  # body only: same lists, new text everywhere
        {"language": "en", "rating": 3, "body": "back home"},  # everything at once
        {"language": "EN", "rating": 3},  # no change at all
        {},
    ]
    versions = [1]
    for step in steps:
        await edit(api, target, **step)
        primaries = await assert_consistent(client, table)
        versions.append(primaries[target.id]["version"])
        await assert_model_stored(client, table, model)
        await assert_lists_match(api, model, languages, subsets)
        found = (await api(COMMENT, id=target.id)).ok()["comment"]
        assert (found["language"], found["rating"], found["body"]) == (
            target.language,
            target.rating,
            target.body,
        )
    # Each real change is one new version; edits that change nothing write nothing.
    assert versions == [1, 2, 3, 4, 5, 6, 6, 6]
    others = await assert_consistent(client, table)
    assert {others[c.id]["version"] for c in model if c is not target} == {1}


async def test_pagination_over_a_filtered_list(api: Api) -> None:
    await create_product(api)
    pairs = [("en" if n % 3 else "fr", 1 + n % 5) for n in range(36)]
    model = list(
        await asyncio.gather(
            *(
                post(api, language, rating, f"b{n}", at((n * 11) % 36))
                for n, (language, rating) in enumerate(pairs)
            )
        )
    )
    filters: dict[str, Any] = {"language": "en", "ratings": [1, 4, 5]}
    expected = newest_first(model, "en", [1, 4, 5])
    assert len(expected) == 14

    async def page(**args: Any) -> Connection:
        connection: Connection = (await api(COMMENTS, id="p1", **filters, **args)).ok()["product"][
            "comments"
        ]
        check_shape(connection)
        return connection

    forward = await walk(page, 5)
    assert [e["node"]["id"] for p in forward for e in p["edges"]] == expected
    assert [flags(p) for p in forward] == [(False, True), (True, True), (True, False)]
    backward = await walk(page, 5, backward=True)
    assert [e["node"]["id"] for p in reversed(backward) for e in p["edges"]] == expected
    assert [flags(p) for p in backward] == [(True, False), (True, True), (False, True)]

    # A cursor belongs to its argument set and its product.
    await create_product(api, "p2")
    first_page = await api(COMMENTS, id="p1", first=5, **filters)
    cursor = first_page.ok()["product"]["comments"]["pageInfo"]["endCursor"]
    for other in (
        {"id": "p1", "language": "fr", "ratings": [1, 4, 5]},
        {"id": "p1", "language": "en", "ratings": [1, 4]},
        {"id": "p1"},
        {"id": "p2", **filters},
    ):
        result = await api(COMMENTS, first=5, after=cursor, **other)
        assert result.codes == ["BAD_CURSOR"], (other, result.body)


async def test_comment_product_and_lists_per_product(api: Api, client: Any, table: str) -> None:
    """Lists are per product; `comment { product { name } }` names the right one."""
    await create_product(api, "p1", "Widget")
    await create_product(api, "p2", "Gadget")
    one = await post(api, "en", 5, "on p1", at(1), product_id="p1")
    two = await post(api, "en", 5, "on p2", at(2), product_id="p2")
    assert await listed_ids(api, "en", [5], product_id="p1") == [one.id]
    assert await listed_ids(api, "en", [5], product_id="p2") == [two.id]
    both = await api(
        "query ($a: ID!, $b: ID!) { a: comment(id: $a) { product { name } } "
        "b: comment(id: $b) { product { name } } }",
        a=one.id,
        b=two.id,
    )
    assert both.ok() == {"a": {"product": {"name": "Widget"}}, "b": {"product": {"name": "Gadget"}}}
    await assert_model_stored(client, table, [one, two])
