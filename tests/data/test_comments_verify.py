"""Comment copies checked against their comment, and repaired (`data/copies/verify.py`):
grouping, comparing and repair plans offline; scanning and guarded repairs against
DynamoDB Local. The command around them is tested in tests/gateway/test_verify.py."""

from __future__ import annotations

from typing import Any, cast

import pytest

from data.copies import verify as comments_verify
from data.copies.verify import (
    Difference,
    diff,
    group,
    repair_one,
    repair_transactions,
    scan_partitions,
)
from demo.model.comments import COMMENT
from keys.table import TABLE
from store.client import Store
from store.loaders import ItemLoader
from store.requests import Item, from_attributes, to_attributes
from tests import demo_comments as data
from tests import demo_comments as products
from tests.data.verify_helpers import (
    WHEN,
    comment,
    damage,
    delete,
    item_key,
    kinds,
    post,
    put,
    sort_keys,
)
from tests.demo_comments import product_comments
from tests.table import scan_all, without_token

# ---- pure: grouping and comparing


def test_a_comment_with_its_copies_is_clean() -> None:
    primary, *copies = comment()
    assert diff(COMMENT, primary, copies).clean
    assert diff(COMMENT, primary, list(reversed(copies))) == Difference(primary["PK"], 1)


def test_missing_copies_are_put_as_expected() -> None:
    primary, *copies = comment()
    result = diff(COMMENT, primary, copies[3:])
    assert result.missing == sort_keys(copies[:3])
    assert (result.stale, result.extra, result.orphan, result.invalid) == ((), (), (), None)
    assert sorted(result.puts, key=lambda i: i["SK"]) == sorted(copies[:3], key=lambda i: i["SK"])


def test_any_attribute_that_differs_makes_a_copy_stale() -> None:
    primary, *copies = comment()
    damaged = [
        {**copies[0], "body": "spam"},
        {**copies[1], "rating": 1},
        {**copies[2], "GSI1PK": "PRODUCT#p2#~#31"},
        {k: v for k, v in copies[3].items() if k != "GSI1SK"},
        {**copies[4], "note": "left by hand"},
    ]
    result = diff(COMMENT, primary, [*damaged, *copies[5:]])
    assert result.stale == sort_keys(copies[:5])
    assert result.missing == result.extra == ()
    assert {i["SK"]: i for i in result.puts} == {c["SK"]: c for c in copies[:5]}


def test_copies_outside_the_expected_set_are_extra() -> None:
    primary, *copies = comment(language="en")
    old = data.comment_items({**primary, "language": "fr", "rating": 2})[1:]
    strays = [c for c in old if c["SK"] not in {x["SK"] for x in copies}]
    result = diff(COMMENT, primary, [*copies, *strays])
    assert result.extra == sort_keys(strays)
    assert len(strays) == 16 + 8  # every fr copy, and the ~ sets without a 4 but with a 2
    assert result.missing == result.stale == ()
    assert result.puts == ()


def test_copies_without_a_comment_are_orphans() -> None:
    primary, *copies = comment()
    result = diff(COMMENT, None, copies[:5])
    assert result == Difference(primary["PK"], None, orphan=sort_keys(copies[:5]))
    assert diff(COMMENT, None, []).clean


@pytest.mark.parametrize(
    "change",
    [{"rating": 9}, {"rating": "4"}, {"language": "english"}, {"createdAt": "yesterday"}],
)
def test_a_comment_item_that_implies_no_copies_is_invalid(change: Item) -> None:
    primary, *copies = comment()
    result = diff(COMMENT, {**primary, **change}, copies)
    assert result.invalid is not None
    assert not result.clean and result.puts == ()
    assert repair_transactions("t", TABLE, result) == []


def test_a_comment_item_without_a_version_is_invalid() -> None:
    primary, *copies = comment()
    del primary["version"]
    assert "version" in str(diff(COMMENT, primary, copies).invalid)


def test_a_comment_item_naming_another_comment_is_invalid() -> None:
    primary, *copies = comment()
    other = comment()[0]
    assert (
        diff(COMMENT, {**primary, "id": other["id"]}, copies).invalid
        == f"its id is {other['id']!r}"
    )


def test_grouping_keeps_comment_partitions_only() -> None:
    primary, *copies = comment()
    other_primary, *_ = comment()
    items = [
        *copies[:2],
        products.product_item("p1", "Lamp", WHEN),
        other_primary,
        primary,
        {"PK": primary["PK"], "SK": "NOTE#1"},
    ]
    partitions = group(COMMENT, items)
    assert set(partitions) == {primary["PK"], other_primary["PK"]}
    assert partitions[primary["PK"]].primary == primary
    assert partitions[primary["PK"]].copies == copies[:2]
    assert partitions[other_primary["PK"]].copies == []


# ---- pure: repair plans, scan requests


def test_repairs_are_guarded_by_the_scanned_version() -> None:
    primary, *copies = comment()
    result = diff(COMMENT, {**primary, "version": 7}, [{**c, "version": 7} for c in copies[2:]])
    (transaction,) = repair_transactions("t", TABLE, result)
    guard = transaction[0]["ConditionCheck"]
    assert guard["Key"] == to_attributes({"PK": primary["PK"], "SK": primary["PK"]})
    assert guard["ConditionExpression"] == "(attribute_exists(#pk)) AND #version = :expect_version"
    assert guard["ExpressionAttributeValues"] == {":expect_version": {"N": "7"}}
    assert [a["Put"]["Item"]["SK"]["S"] for a in transaction[1:]] == list(result.missing)


def test_orphans_are_deleted_only_while_the_comment_does_not_exist() -> None:
    _, *copies = comment()
    (transaction,) = repair_transactions("t", TABLE, diff(COMMENT, None, copies))
    assert transaction[0]["ConditionCheck"]["ConditionExpression"] == "attribute_not_exists(#pk)"
    assert len(transaction) == 33
    assert {from_attributes(a["Delete"]["Key"])["SK"] for a in transaction[1:]} == set(
        sort_keys(copies)
    )


def test_a_large_repair_is_split_into_transactions_of_100_actions() -> None:
    difference = Difference("COMMENT#x", 3, extra=tuple(f"COPY#x{n}" for n in range(150)))
    transactions = repair_transactions("t", TABLE, difference)
    assert [len(t) for t in transactions] == [100, 52]
    assert all("ConditionCheck" in t[0] for t in transactions)


def test_scan_requests_are_parallel_consistent_and_paged() -> None:
    request = comments_verify.scan_request(
        COMMENT, "t", 2, 4, {"PK": {"S": "COMMENT#a"}, "SK": {"S": "x"}}
    )
    assert request["Segment"] == 2 and request["TotalSegments"] == 4
    assert request["ConsistentRead"] is True
    assert request["ExclusiveStartKey"] == {"PK": {"S": "COMMENT#a"}, "SK": {"S": "x"}}
    assert "ExclusiveStartKey" not in comments_verify.scan_request(COMMENT, "t", 0, 4)


async def test_an_invalid_comment_is_never_repaired() -> None:
    primary, *copies = comment()
    invalid = diff(COMMENT, {**primary, "rating": 9}, copies)
    # A store with no client: any call would fail.
    assert await repair_one(Store(cast(Any, None), "t"), invalid) == "unrepairable"


# ---- against DynamoDB Local


async def differences(store: Store, segments: int = 4) -> list[Difference]:
    """What a scan of the table finds, by partition."""
    items, _ = await scan_partitions(store, COMMENT, segments, lambda scanned: None)
    found = [diff(COMMENT, p.primary, p.copies) for p in group(COMMENT, items).values()]
    return sorted((d for d in found if not d.clean), key=lambda d: d.partition)


def newest(item: Item) -> tuple[str, str]:
    return (item["createdAt"], item["id"])


async def test_repairs_leave_exactly_the_items_each_comment_implies(
    client: Any, table: str
) -> None:
    expected = await damage(client, table)
    store = Store(client, table)
    found = await differences(store)
    assert kinds(found) == expected
    assert [await repair_one(store, d) for d in found] == ["repaired"] * 4
    assert await differences(store) == []

    # The table holds exactly the comments' items, and every list shows the right comments.
    items = [without_token(i) for i in await scan_all(client, table) if i["type"] != "PRODUCT"]
    primaries = {i["id"]: i for i in items if i["type"] == "COMMENT"}
    wanted = [i for p in primaries.values() for i in data.comment_items(p)]
    assert sorted(items, key=item_key) == sorted(wanted, key=item_key)
    for language in (None, "en", "de", "fr"):
        for mask in range(1, 32):
            ratings = frozenset(r for r in range(1, 6) if mask >> (r - 1) & 1)
            page = await store.query(product_comments("p1", language, ratings), forward=False)
            assert [i["id"] for i in page.items] == [
                p["id"]
                for p in sorted(primaries.values(), key=newest, reverse=True)
                if p["rating"] in ratings and language in (None, p["language"])
            ]
            assert all(i["body"] == primaries[i["id"]]["body"] for i in page.items)


async def test_repair_never_overwrites_a_comment_edited_since_the_scan(
    client: Any, table: str
) -> None:
    store = Store(client, table)
    await products.create_product(store, "p1", "Lamp")
    posted = await post(store, "en", 4, "first")
    copies = data.comment_items(posted)[1:]
    await delete(client, table, copies[0])
    await put(client, table, {**copies[20], "body": "spam"})
    found = await differences(store)
    assert kinds(found) == {posted["PK"]: ((copies[0]["SK"],), (copies[20]["SK"],), (), ())}

    # Someone edits the comment after the scan has read it, before the repair runs.
    await data.edit_comment(
        store, ItemLoader(store), posted["id"], language="fr", rating=None, body="second"
    )
    assert [await repair_one(store, d) for d in found] == ["skipped"]

    # The edit stands whole: nothing the repair planned from version 1 was written.
    items = [without_token(i) for i in await scan_all(client, table) if i["PK"] == posted["PK"]]
    (primary,) = [i for i in items if i["SK"] == i["PK"]]
    assert (primary["version"], primary["language"], primary["body"]) == (2, "fr", "second")
    assert sorted(items, key=item_key) == sorted(data.comment_items(primary), key=item_key)
    assert await differences(store) == []


async def test_orphans_are_kept_when_their_comment_is_written_since_the_scan(
    client: Any, table: str
) -> None:
    primary, *copies = comment()
    await put(client, table, *copies[:3])
    store = Store(client, table)
    found = await differences(store)
    assert kinds(found) == {primary["PK"]: ((), (), (), sort_keys(copies[:3]))}

    await put(client, table, primary, *copies)
    assert [await repair_one(store, d) for d in found] == ["skipped"]
    items = await scan_all(client, table)
    assert sorted(items, key=item_key) == sorted([primary, *copies], key=item_key)


async def test_small_scan_pages_in_many_segments_find_the_same(
    client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = await damage(client, table)
    request = comments_verify.scan_request
    pages: list[int] = []

    def small_pages(*args: Any) -> dict[str, Any]:
        return {**request(*args), "Limit": 7}

    monkeypatch.setattr(comments_verify, "scan_request", small_pages)
    items, scanned = await scan_partitions(Store(client, table), COMMENT, 3, pages.append)
    found = [diff(COMMENT, p.primary, p.copies) for p in group(COMMENT, items).values()]
    assert kinds(d for d in found if not d.clean) == expected
    # 4 comments less 3 deleted copies, 3 orphans, the stray copy, the product
    assert scanned == sum(pages) == 4 * 33 - 3 + 3 + 1 + 1
    assert len(pages) >= scanned // 7
