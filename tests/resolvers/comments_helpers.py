"""Shared helpers of the comments tests: calls, a model of the lists, and the invariant.

The invariant is computed here from the design (docs/design.md, demo/model/comments.py's
docstring), not with the builders under test: a live comment is one primary item and
exactly the 32 copies its language and rating imply, each equal to the primary.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from tests.client import Api
from tests.documents import COMMENTS, CREATE_PRODUCT, EDIT_COMMENT, POST_COMMENT
from tests.table import scan_all

RATINGS = (1, 2, 3, 4, 5)
# Every non-empty subset of {1..5}: the 31 rating filters a client can ask for.
RATING_SUBSETS: list[tuple[int, ...]] = [
    subset for size in range(1, 6) for subset in combinations(RATINGS, size)
]
FIELDS = ("id", "productId", "language", "rating", "body", "createdAt", "updatedAt", "version")
# Absent from comments posted with identity off; copies carry them like the primary.
AUTHOR_FIELDS = ("author", "authorKey")


@dataclass
class Posted:
    """What a test believes about one comment."""

    id: str
    language: str
    rating: int
    body: str
    created_at: str

    def matches(self, language: str | None, ratings: Iterable[int] | None) -> bool:
        return (language is None or self.language == language.lower()) and (
            ratings is None or self.rating in set(ratings)
        )


async def create_product(api: Api, product_id: str = "p1", name: str = "Widget") -> None:
    (await api(CREATE_PRODUCT, input={"id": product_id, "name": name})).ok()


async def post(
    api: Api,
    language: str,
    rating: int,
    body: str = "a comment",
    created_at: str | None = None,
    product_id: str = "p1",
) -> Posted:
    given: dict[str, Any] = {
        "productId": product_id,
        "language": language,
        "rating": rating,
        "body": body,
    }
    if created_at is not None:
        given["createdAt"] = created_at
    node = (await api(POST_COMMENT, input=given)).ok()["postComment"]
    assert node["product"] == {"id": product_id}
    return Posted(node["id"], node["language"], node["rating"], node["body"], node["createdAt"])


async def edit(api: Api, posted: Posted, **changes: Any) -> None:
    """Edit through the API and apply the same change to the model."""
    node = (await api(EDIT_COMMENT, input={"id": posted.id, **changes})).ok()["editComment"]
    if "language" in changes:
        posted.language = changes["language"].lower()
    posted.rating = changes.get("rating", posted.rating)
    posted.body = changes.get("body", posted.body)
    assert node == {
        "id": posted.id,
        "language": posted.language,
        "rating": posted.rating,
        "body": posted.body,
        "createdAt": posted.created_at,
    }


def newest_first(
    comments: Iterable[Posted], language: str | None = None, ratings: Iterable[int] | None = None
) -> list[str]:
    """The brute-force answer: ids of the matching comments, newest first."""
    chosen = [c for c in comments if c.matches(language, ratings)]
    chosen.sort(key=lambda c: (c.created_at, c.id), reverse=True)
    return [c.id for c in chosen]


async def listed(
    api: Api,
    language: str | None = None,
    ratings: Sequence[int] | None = None,
    product_id: str = "p1",
    first: int = 100,
) -> list[dict[str, Any]]:
    """The nodes of one page (large enough for these tests) of a filtered list."""
    result = await api(COMMENTS, id=product_id, language=language, ratings=ratings, first=first)
    connection = result.ok()["product"]["comments"]
    assert not connection["pageInfo"]["hasNextPage"]
    nodes: list[dict[str, Any]] = [e["node"] for e in connection["edges"]]
    return nodes


async def listed_ids(
    api: Api,
    language: str | None = None,
    ratings: Sequence[int] | None = None,
    product_id: str = "p1",
) -> list[str]:
    return [n["id"] for n in await listed(api, language, ratings, product_id)]


async def assert_lists_match(
    api: Api,
    model: Sequence[Posted],
    languages: Iterable[str | None],
    subsets: Iterable[Sequence[int] | None] = (None, *RATING_SUBSETS),
    product_id: str = "p1",
) -> None:
    """Every (language, ratings) list equals the brute-force filter, node for node."""
    by_id = {c.id: c for c in model}
    chosen = list(subsets)
    for language in languages:
        for ratings in chosen:
            nodes = await listed(api, language, ratings, product_id)
            expected = newest_first(model, language, ratings)
            assert [n["id"] for n in nodes] == expected, (language, ratings)
            for node in nodes:
                c = by_id[node["id"]]
                assert (node["language"], node["rating"], node["body"]) == (
                    c.language,
                    c.rating,
                    c.body,
                ), (language, ratings)


def expected_copy_keys(primary: dict[str, Any]) -> dict[str, dict[str, str]]:
    """SK -> the GSI1 keys of each copy a primary implies (16 rating sets x 2 languages)."""
    rating = primary["rating"]
    keys: dict[str, dict[str, str]] = {}
    for language in ("~", primary["language"]):
        for mask in range(1, 32):
            if mask >> (rating - 1) & 1:
                keys[f"COPY#{language}#{mask}"] = {
                    "GSI1PK": f"PRODUCT#{primary['productId']}#{language}#{mask}",
                    "GSI1SK": f"COMMENT#{primary['createdAt']}#{primary['id']}",
                }
    assert len(keys) == 32
    return keys


async def snapshot(client: Any, table: str) -> list[dict[str, Any]]:
    """Every item, in a stable order (to compare before and after a refused request)."""
    return sorted(await scan_all(client, table), key=lambda i: (i["PK"], i["SK"]))


async def assert_consistent(client: Any, table: str) -> dict[str, dict[str, Any]]:
    """Check the invariant over the whole table; returns the primary items by comment id.

    Products, primaries and copies only; per primary exactly its 32 copies with the right
    keys and the primary's fields (version and author included); no copy without its primary.
    """
    items = await scan_all(client, table)
    primaries: dict[str, dict[str, Any]] = {}
    copies: dict[str, dict[str, dict[str, Any]]] = {}
    for item in items:
        kind = item.get("type")
        if kind == "PRODUCT":
            assert item["PK"] == item["SK"] == f"PRODUCT#{item['id']}", item
        elif kind == "COMMENT":
            assert item["PK"] == item["SK"] == f"COMMENT#{item['id']}", item
            assert "GSI1PK" not in item and "GSI1SK" not in item, item
            primaries[item["id"]] = item
        elif kind == "COMMENT_COPY":
            copies.setdefault(item["PK"], {})[item["SK"]] = item
        else:
            raise AssertionError(f"unexpected item {item}")
    assert set(copies) <= {f"COMMENT#{i}" for i in primaries}, "copies without a primary"
    for comment_id, primary in primaries.items():
        assert len(primary["language"]) == 2 and primary["language"].islower(), primary
        own = copies.get(primary["PK"], {})
        expected = expected_copy_keys(primary)
        assert set(own) == set(expected), (comment_id, sorted(own), sorted(expected))
        for sort_key, copy in own.items():
            assert {k: copy[k] for k in ("GSI1PK", "GSI1SK")} == expected[sort_key], copy
            assert {f: copy.get(f) for f in FIELDS + AUTHOR_FIELDS} == {
                f: primary.get(f) for f in FIELDS + AUTHOR_FIELDS
            }, (
                sort_key,
                copy,
                primary,
            )
    return primaries


async def assert_model_stored(client: Any, table: str, model: Sequence[Posted]) -> None:
    """The invariant holds and the live comments are exactly the model's."""
    primaries = await assert_consistent(client, table)
    assert {
        i: (p["language"], p["rating"], p["body"], p["createdAt"]) for i, p in primaries.items()
    } == {c.id: (c.language, c.rating, c.body, c.created_at) for c in model}


# A valid KSUID that names no comment; inputs every comment field must refuse.
MISSING_KSUID = "1mRb9h140NNyE82chMLiYY6LwDk"
BAD_LANGUAGES = ["e", "eng", "e1", "", "1e", "e ", "é"]
BAD_IDS = ["a#b", "a b", "", "a/b", "a~b", "-a", "x" * 65]
