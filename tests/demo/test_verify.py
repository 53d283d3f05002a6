"""`dynagate verify [--repair]`: the command's report, its rendering and its exit code.

The check and the repair beneath it (`data/comments_verify.py`) are tested in
tests/data/test_comments_verify.py.
"""

from __future__ import annotations

from typing import Any

from data.copies.verify import Difference, Outcome
from demo import verify as verifier
from demo.verify import Report, render
from tests.client import Api
from tests.data.verify_helpers import damage, kinds
from tests.gateway.test_cli import run

# ---- pure: the report


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


def test_a_repair_shows_each_outcome_and_the_totals() -> None:
    differences = [
        Difference("COMMENT#a", 2, missing=("COPY#~#8",), stale=("COPY#en#~#8",)),
        Difference("COMMENT#b", 1, extra=tuple(f"COPY#fr#~#{n}" for n in range(1, 8))),
        Difference("COMMENT#c", 1, invalid="its id is 'x'"),
    ]
    outcomes: dict[str, Outcome] = {
        "COMMENT#a": "repaired",
        "COMMENT#b": "skipped",
        "COMMENT#c": "unrepairable",
    }
    lines = render(Report(500, 3, differences, repair=True, outcomes=outcomes))
    assert lines == [
        "scanned 500 items: 3 comments",
        "copies: 1 missing, 1 stale, 7 extra, 0 orphan; invalid comment items: 1",
        "  COMMENT#a: missing 1 (COPY#~#8); stale 1 (COPY#en#~#8) [repaired]",
        "  COMMENT#b: extra 7 (COPY#fr#~#1 COPY#fr#~#2 COPY#fr#~#3 COPY#fr#~#4 COPY#fr#~#5 …)"
        " [skipped]",
        "  COMMENT#c: invalid: its id is 'x' [unrepairable]",
        "repair: 1 repaired, 1 skipped, 0 failed, 1 unrepairable",
        "3 damaged comment partitions, 1 repaired; differences remain",
    ]


# ---- against DynamoDB Local


COMMENTS_PAGE = """query ($language: String, $ratings: [Int!]) {
  product(id: "p1") { comments(language: $language, ratings: $ratings, first: 10) {
    edges { node { body language rating } } } } }"""


async def test_verify_reports_exactly_the_damage_and_repair_fixes_it(
    client: Any, table: str, endpoint: str, api: Api
) -> None:
    expected = await damage(client, table)

    report = await verifier.verify(client, table, progress=False)
    assert kinds(report.differences) == expected
    assert (report.comments, report.exit_code) == (4, 1)

    env = {"DYNAGATE_DYNAMODB_ENDPOINT": endpoint, "DYNAGATE_TABLE": table}
    checked = run("verify", env=env)
    assert checked.returncode == 1, checked.stderr
    lines = checked.stdout.splitlines()
    lines = lines[: lines.index("the items the model derives:")]  # the demo's own report
    listed = [line.split(":")[0].strip() for line in lines[2:-1]]
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

    # Every list shows the repaired comments (tests/data checks every list and item).
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
