"""`dynagate verify [--repair]`: comment copies checked against the comment, and repaired."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from data import comments as data
from data import comments_verify, products
from data.comments_verify import Difference, diff, group, repair_transactions
from gateway.admin import verify as verifier
from gateway.admin.verify import Report, render
from keys.comments import comment_key, product_comments
from store.client import Store
from store.loaders import ItemLoader
from store.requests import Item, from_attributes, put_request, to_attributes
from tests.client import Api
from tests.gateway.test_cli import run
from tests.table import scan_all

WHEN = datetime(2024, 5, 1, 12, tzinfo=UTC)


def comment(language: str = "en", rating: int = 4, body: str = "fine") -> list[Item]:
    """A comment's primary item followed by its 32 copies, as `post_comment` writes them."""
    return data.comment_items(data.new_comment("p1", language, rating, body, WHEN, WHEN))


def item_key(item: Item) -> tuple[str, str]:
    return (item["PK"], item["SK"])


def newest(item: Item) -> tuple[str, str]:
    return (item["createdAt"], item["id"])


def sort_keys(items: list[Item]) -> tuple[str, ...]:
    return tuple(sorted(i["SK"] for i in items))


# ---- pure: grouping and comparing


def test_a_comment_with_its_copies_is_clean() -> None:
    primary, *copies = comment()
    assert diff(primary, copies).clean
    assert diff(primary, list(reversed(copies))) == Difference(primary["PK"], 1)


def test_missing_copies_are_put_as_expected() -> None:
    primary, *copies = comment()
    result = diff(primary, copies[3:])
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
    result = diff(primary, [*damaged, *copies[5:]])
    assert result.stale == sort_keys(copies[:5])
    assert result.missing == result.extra == ()
    assert {i["SK"]: i for i in result.puts} == {c["SK"]: c for c in copies[:5]}


def test_copies_outside_the_expected_set_are_extra() -> None:
    primary, *copies = comment(language="en")
    old = data.comment_items({**primary, "language": "fr", "rating": 2})[1:]
    strays = [c for c in old if c["SK"] not in {x["SK"] for x in copies}]
    result = diff(primary, [*copies, *strays])
    assert result.extra == sort_keys(strays)
    assert len(strays) == 16 + 8  # every fr copy, and the ~ sets without a 4 but with a 2
    assert result.missing == result.stale == ()
    assert result.puts == ()


def test_copies_without_a_comment_are_orphans() -> None:
    primary, *copies = comment()
    result = diff(None, copies[:5])
    assert result == Difference(primary["PK"], None, orphan=sort_keys(copies[:5]))
    assert diff(None, []).clean


@pytest.mark.parametrize(
    "change",
    [{"rating": 9}, {"rating": "4"}, {"language": "english"}, {"createdAt": "yesterday"}],
)
def test_a_comment_item_that_implies_no_copies_is_invalid(change: Item) -> None:
    primary, *copies = comment()
    result = diff({**primary, **change}, copies)
    assert result.invalid is not None
    assert not result.clean and result.puts == ()
    assert repair_transactions("t", result) == []


def test_a_comment_item_without_a_version_is_invalid() -> None:
    primary, *copies = comment()
    del primary["version"]
    assert "version" in str(diff(primary, copies).invalid)


def test_a_comment_item_naming_another_comment_is_invalid() -> None:
    primary, *copies = comment()
    other = comment()[0]
    assert diff({**primary, "id": other["id"]}, copies).invalid == f"its id is {other['id']!r}"


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
    partitions = group(items)
    assert set(partitions) == {primary["PK"], other_primary["PK"]}
    assert partitions[primary["PK"]].primary == primary
    assert partitions[primary["PK"]].copies == copies[:2]
    assert partitions[other_primary["PK"]].copies == []


# ---- pure: repair plans, scan requests, the report


def test_repairs_are_guarded_by_the_scanned_version() -> None:
    primary, *copies = comment()
    result = diff({**primary, "version": 7}, [{**c, "version": 7} for c in copies[2:]])
    (transaction,) = repair_transactions("t", result)
    guard = transaction[0]["ConditionCheck"]
    assert guard["Key"] == to_attributes({"PK": primary["PK"], "SK": primary["PK"]})
    assert guard["ConditionExpression"] == "(attribute_exists(#pk)) AND #version = :expect_version"
    assert guard["ExpressionAttributeValues"] == {":expect_version": {"N": "7"}}
    assert [a["Put"]["Item"]["SK"]["S"] for a in transaction[1:]] == list(result.missing)


def test_orphans_are_deleted_only_while_the_comment_does_not_exist() -> None:
    _, *copies = comment()
    (transaction,) = repair_transactions("t", diff(None, copies))
    assert transaction[0]["ConditionCheck"]["ConditionExpression"] == "attribute_not_exists(#pk)"
    assert len(transaction) == 33
    assert {from_attributes(a["Delete"]["Key"])["SK"] for a in transaction[1:]} == set(
        sort_keys(copies)
    )


def test_a_large_repair_is_split_into_transactions_of_100_actions() -> None:
    difference = Difference("COMMENT#x", 3, extra=tuple(f"COPY#x{n}" for n in range(150)))
    transactions = repair_transactions("t", difference)
    assert [len(t) for t in transactions] == [100, 52]
    assert all("ConditionCheck" in t[0] for t in transactions)


def test_scan_requests_are_parallel_consistent_and_paged() -> None:
    request = comments_verify.scan_request("t", 2, 4, {"PK": {"S": "COMMENT#a"}, "SK": {"S": "x"}})
    assert request["Segment"] == 2 and request["TotalSegments"] == 4
    assert request["ConsistentRead"] is True
    assert request["ExclusiveStartKey"] == {"PK": {"S": "COMMENT#a"}, "SK": {"S": "x"}}
    assert "ExclusiveStartKey" not in comments_verify.scan_request("t", 0, 4)


def test_the_report_lists_50_partitions_then_counts_the_rest() -> None:
    differences = [Difference(f"COMMENT#{n:03d}", 1, missing=("COPY#~#8",)) for n in range(60)]
    lines = render(Report(2000, 60, differences))
    assert lines[1] == "copies: 60 missing, 0 stale, 0 extra, 0 orphan; invalid comment items: 0"
    assert sum(line.startswith("  COMMENT#") for line in lines) == 50
    assert "… and 10 more" in lines
    assert lines[-1] == "60 damaged comment partitions; differences remain"


def test_exit_code_is_0_only_when_nothing_differs_or_all_was_repaired() -> None:
    one = [Difference("COMMENT#a", 1, missing=("COPY#~#8",))]
    assert Report(10, 1, []).exit_code == 0
    assert Report(10, 1, one).exit_code == 1
    assert Report(10, 1, one, repair=True, outcomes={"COMMENT#a": "skipped"}).exit_code == 1
    assert Report(10, 1, one, repair=True, outcomes={"COMMENT#a": "repaired"}).exit_code == 0


# ---- against DynamoDB Local


async def put(client: Any, table: str, *items: Item) -> None:
    for item in items:
        await client.put_item(**put_request(table, item))


async def delete(client: Any, table: str, *items: Item) -> None:
    for item in items:
        key = to_attributes({"PK": item["PK"], "SK": item["SK"]})
        await client.delete_item(TableName=table, Key=key)


async def post(store: Store, language: str, rating: int, body: str) -> Item:
    """Post a comment on product p1; its primary item as stored."""
    posted = await data.post_comment(store, "p1", language, rating, body, None)
    primary = await store.get(comment_key(posted.id), consistent=True)
    assert primary is not None
    return primary


async def damage(client: Any, table: str) -> dict[str, tuple[tuple[str, ...], ...]]:
    """Four comments of product p1, three of them damaged, and orphans of a fifth.

    Returns the damage as {partition: (missing, stale, extra, orphan)}.
    """
    store = Store(client, table)
    await products.create_product(store, "p1", "Lamp")
    await data.post_comment(store, "p1", "en", 5, "left intact", None)
    gaps, edited, moved = [
        await post(store, language, rating, body)
        for language, rating, body in [("de", 2, "gaps"), ("en", 3, "edited"), ("en", 4, "moved")]
    ]
    gap_copies, edited_copies = data.comment_items(gaps)[1:], data.comment_items(edited)[1:]
    await delete(client, table, *gap_copies[:3])
    await put(
        client, table, {**edited_copies[0], "body": "spam"}, {**edited_copies[5], "rating": 1}
    )
    # A copy left over from when the comment was in French.
    stray = next(
        c
        for c in data.comment_items({**moved, "language": "fr"})[1:]
        if c["SK"].startswith("COPY#fr#")
    )
    await put(client, table, stray)
    ghost = comment()[1:4]  # copies of a comment that was never written
    await put(client, table, *ghost)
    return {
        gaps["PK"]: (sort_keys(gap_copies[:3]), (), (), ()),
        edited["PK"]: ((), sort_keys([edited_copies[0], edited_copies[5]]), (), ()),
        moved["PK"]: ((), (), (stray["SK"],), ()),
        ghost[0]["PK"]: ((), (), (), sort_keys(ghost)),
    }


def found(report: Report) -> dict[str, tuple[tuple[str, ...], ...]]:
    assert all(d.invalid is None for d in report.differences)
    return {d.partition: tuple(d.by_kind().values()) for d in report.differences}


COMMENTS_PAGE = """query ($language: String, $ratings: [Int!]) {
  product(id: "p1") { comments(language: $language, ratings: $ratings, first: 10) {
    edges { node { body language rating } } } } }"""


async def test_verify_reports_exactly_the_damage_and_repair_fixes_it(
    client: Any, table: str, endpoint: str, api: Api
) -> None:
    expected = await damage(client, table)

    report = await verifier.verify(client, table, progress=False)
    assert found(report) == expected
    assert (report.comments, report.exit_code) == (4, 1)

    env = {"DYNAGATE_DYNAMODB_ENDPOINT": endpoint, "DYNAGATE_TABLE": table}
    checked = run("verify", env=env)
    assert checked.returncode == 1, checked.stderr
    listed = [line.split(":")[0].strip() for line in checked.stdout.splitlines()[2:-1]]
    assert sorted(listed) == sorted(expected)
    assert (
        "copies: 3 missing, 2 stale, 1 extra, 3 orphan; invalid comment items: 0" in checked.stdout
    )
    assert "scanning" in checked.stderr  # the progress bar

    repaired = run("verify", "--repair", env=env)
    assert repaired.returncode == 0, repaired.stderr
    assert "repair: 4 repaired, 0 skipped, 0 failed, 0 unrepairable" in repaired.stdout
    again = await verifier.verify(client, table, progress=False)
    assert (again.differences, again.exit_code, again.comments) == ([], 0, 4)

    # The table holds exactly the comments' items, and every list shows the right comments.
    items = [i for i in await scan_all(client, table) if i["type"] != "PRODUCT"]
    primaries = {i["id"]: i for i in items if i["type"] == "COMMENT"}
    wanted = [i for p in primaries.values() for i in data.comment_items(p)]
    assert sorted(items, key=item_key) == sorted(wanted, key=item_key)
    store = Store(client, table)
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
    english_fours = await api(COMMENTS_PAGE, language="en", ratings=[4])
    assert english_fours.ok()["product"]["comments"]["edges"] == [
        {"node": {"body": "moved", "language": "en", "rating": 4}}
    ]
    assert (await api(COMMENTS_PAGE, language="fr")).ok()["product"]["comments"]["edges"] == []
    everything = (await api(COMMENTS_PAGE)).ok()["product"]["comments"]["edges"]
    assert sorted(e["node"]["body"] for e in everything) == [
        "edited",
        "gaps",
        "left intact",
        "moved",
    ]


async def test_repair_never_overwrites_a_comment_edited_since_the_scan(
    client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(client, table)
    await products.create_product(store, "p1", "Lamp")
    posted = await post(store, "en", 4, "first")
    copies = data.comment_items(posted)[1:]
    await delete(client, table, copies[0])
    await put(client, table, {**copies[20], "body": "spam"})

    # Someone edits the comment after the scan has read it, before the repair runs.
    scan = verifier.scan_comments

    async def scan_then_edit(*args: Any) -> tuple[list[Item], int]:
        scanned = await scan(*args)
        await data.edit_comment(
            store, ItemLoader(store), posted["id"], language="fr", rating=None, body="second"
        )
        return scanned

    monkeypatch.setattr(verifier, "scan_comments", scan_then_edit)
    report = await verifier.verify(client, table, repair=True, progress=False)
    monkeypatch.undo()
    assert found(report) == {posted["PK"]: ((copies[0]["SK"],), (copies[20]["SK"],), (), ())}
    assert report.outcomes == {posted["PK"]: "skipped"}
    assert report.exit_code == 1
    assert "repair: 0 repaired, 1 skipped, 0 failed, 0 unrepairable" in render(report)

    # The edit stands whole: nothing the repair planned from version 1 was written.
    items = [i for i in await scan_all(client, table) if i["PK"] == posted["PK"]]
    (primary,) = [i for i in items if i["SK"] == i["PK"]]
    assert (primary["version"], primary["language"], primary["body"]) == (2, "fr", "second")
    assert sorted(items, key=item_key) == sorted(data.comment_items(primary), key=item_key)
    assert (await verifier.verify(client, table, progress=False)).exit_code == 0


async def test_orphans_are_kept_when_their_comment_is_written_since_the_scan(
    client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    primary, *copies = comment()
    await put(client, table, *copies[:3])
    scan = verifier.scan_comments

    async def scan_then_post(*args: Any) -> tuple[list[Item], int]:
        scanned = await scan(*args)
        await put(client, table, primary, *copies)
        return scanned

    monkeypatch.setattr(verifier, "scan_comments", scan_then_post)
    report = await verifier.verify(client, table, repair=True, progress=False)
    monkeypatch.undo()
    assert found(report) == {primary["PK"]: ((), (), (), sort_keys(copies[:3]))}
    assert report.outcomes == {primary["PK"]: "skipped"}
    items = await scan_all(client, table)
    assert sorted(items, key=item_key) == sorted([primary, *copies], key=item_key)


async def test_small_scan_pages_in_many_segments_find_the_same(
    client: Any, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = await damage(client, table)
    request = comments_verify.scan_request
    pages: list[int] = []

    def small_pages(*args: Any) -> dict[str, Any]:
        pages.append(1)
        return {**request(*args), "Limit": 7}

    monkeypatch.setattr(comments_verify, "scan_request", small_pages)
    report = await verifier.verify(client, table, segments=3, progress=False)
    assert found(report) == expected
    # 4 comments less 3 deleted copies, 3 orphans, the stray copy, the product
    assert report.scanned == 4 * 33 - 3 + 3 + 1 + 1
    assert len(pages) >= report.scanned // 7
