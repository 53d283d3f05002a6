"""Declarations the demo's repositories need (`model/`), pure: handles folded in keys, counts
the engine keeps, an update that sets a value no argument gives, the owner of a parent
among a child's writers, and an item older than the attributes its key holds."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

import model as m
from data import entity_lists
from data.callers import OPEN, Caller
from data.entities import checked, described, record
from data.entity_lists import topic_of
from data.writes.entities import new_items
from demo.model import MODEL
from demo.model.repos import ISSUE, REPO, STAR, IssueState
from errors.vocabulary import BadUserInput
from keys.codecs import to_millis
from keys.table import TABLE
from resolvers.derived_access import owns_parent, rule
from resolvers.derived_types import shown_key
from tests.demo_repos import issue_key, repo_key
from tests.model.declaring import refused_by_name

AT = to_millis(datetime(2024, 1, 1, tzinfo=UTC))
AT_TEXT = "2024-01-01T00:00:00.000Z"


def test_handles_keep_their_case_and_key_in_lower_case() -> None:
    values, item, _ = new_items(
        REPO, {"owner": "Alice", "name": "Tools"}, caller=OPEN, created=AT, current=AT
    )
    assert (item["PK"], item["owner"], item["name"]) == ("REPO#alice#tools", "Alice", "Tools")
    assert (values["starCount"], values["issueCount"]) == (0, 0)  # counts start at nothing
    with pytest.raises(BadUserInput, match="owner"):
        checked(REPO.attributes["owner"], "Al ice", "owner")
    assert topic_of(ISSUE, ("owner", "name"), {"owner": "ALICE", "name": "Tools"}) == "alice#tools"


def test_messages_name_each_part_of_a_key_by_its_attribute() -> None:
    """A key of one attribute is its value alone; of several, each value after its name;
    a number unquoted; the values as given, nothing else of the item."""
    assert described(REPO, {"owner": "Alice", "name": "dynamo"}) == (
        "repository (owner 'Alice', name 'dynamo')"
    )
    issue = {"owner": "alice", "name": "dynamo", "number": 7, "title": "not shown"}
    assert described(ISSUE, issue) == "issue (owner 'alice', name 'dynamo', number 7)"
    assert described(MODEL.entity("Customer"), {"id": "c1"}) == "customer 'c1'"


def test_an_issue_written_before_its_key_attributes_were_kept_apart_still_reads() -> None:
    item = {
        **issue_key("Alice", "Tools", 7),
        "number": 7,
        "title": "t",
        "state": "OPEN",
        "createdAt": "2024-01-01T00:00:00.000Z",
        "updatedAt": "2024-01-01T00:00:00.000Z",
    }
    found = record(ISSUE, item)
    assert (found["owner"], found["name"], found["number"]) == ("alice", "tools", 7)
    assert shown_key(ISSUE) == ("number",)  # what a change names it by
    with pytest.raises(KeyError):
        record(ISSUE, {k: v for k, v in item.items() if k != "title"})
    # A count never kept on an older item has counted nothing yet.
    repo = {**repo_key("Alice", "Tools"), "owner": "Alice", "name": "Tools", "createdAt": AT_TEXT}
    assert (record(REPO, repo)["starCount"], record(REPO, repo)["issueCount"]) == (0, 0)


def test_a_repositorys_owner_closes_any_of_its_issues_others_only_their_own() -> None:
    described = rule("writer", ISSUE, parent=REPO).description
    assert described == "the repository's owner or the issue's author"
    names = {"owner": "ALICE", "name": "tools", "number": 1}
    assert owns_parent(ISSUE, REPO, names, Caller("alice"))
    assert not owns_parent(ISSUE, REPO, names, Caller("bob"))
    assert not owns_parent(ISSUE, REPO, names, Caller())
    assert rule("writer", STAR).description == "the star's author"


def _box(*patterns: Callable[[m.Entity], Any]) -> m.Model:
    box = m.Entity(
        "Box",
        {"id": m.Handle(), "state": ISSUE.attributes["state"], "seen": m.Counter()},
        key=m.same(m.key("BOX", "id")),
    )
    return m.Model((box,), tuple(p(box) for p in patterns))


test_a_declaration_the_engine_cannot_serve_is_refused_by_name = refused_by_name(
    [
        (lambda: _box(lambda e: m.Update(e, "bump", ("seen",))), "'seen' is not an attribute"),
        (
            lambda: _box(lambda e: m.Update(e, "shut", (), sets={"gone": 1}, access="admins")),
            "it sets 'gone', not a choice it may set alone",
        ),
        (
            lambda: _box(
                lambda e: m.Update(e, "shut", (), sets={"state": "SHUT"}, access="admins")
            ),
            "it sets 'state' to 'SHUT', not one of its values",
        ),
        (
            lambda: _box(
                lambda e: m.Update(
                    e, "shut", ("state",), sets={"state": IssueState.CLOSED}, access="admins"
                )
            ),
            "it sets 'state', not a choice it may set alone",
        ),
        (
            lambda: _box(
                lambda e: m.Update(
                    e,
                    "shut",
                    (),
                    sets={"state": IssueState.CLOSED},
                    access="admins",
                    moves=(m.moves("state", {IssueState.OPEN: [IssueState.CLOSED]}),),
                )
            ),
            "moves need a change given",
        ),
    ]
)


def test_sets_of_a_key_a_parent_or_a_count_and_unbounded_whole_lists_are_refused() -> None:
    for sets in ({"number": 5}, {"owner": "bob"}):
        with pytest.raises(m.ModelError, match="not a choice it may set alone"):
            m.Model((REPO, ISSUE), (m.Update(ISSUE, "x", (), sets=sets, access="admins"),))
    teams = m.ListOf(STAR, TABLE, "all", whole=10)
    with pytest.raises(m.ModelError, match=re.escape("['addStar'] add any number")):
        m.Model((REPO, STAR), (teams, m.Create(STAR, "addStar", access="admins")))
    with pytest.raises(m.ModelError, match="in key order"):
        m.Model((REPO, STAR), (m.ListOf(STAR, TABLE, "all", whole=10, descending=True),))


def test_a_parents_owner_outside_its_key_names_no_writer() -> None:
    shelf = m.Entity(
        "Shelf",
        {"id": m.Identifier(), "keeper": m.Handle()},
        key=m.same(m.key("SHELF", "id")),
        owner=m.Owner("keeper", "keeper"),
    )
    book = m.Entity(
        "Book",
        {
            "id": m.Identifier(),
            "shelf": m.Identifier(),
            "keeper": m.Handle(),
            "by": m.Author(verb="added", role="adder"),
        },
        key=m.Keys(m.key("SHELF", "shelf"), m.key("BOOK", "keeper", "id")),
        parent=m.Parent("Shelf", {"shelf": "id", "keeper": "keeper"}),
    )
    names = {"shelf": "s1", "id": "b1", "keeper": "mallory"}
    assert not owns_parent(book, shelf, names, Caller("mallory"))
    assert rule("writer", book, parent=shelf).description == "the book's adder"


def test_a_handle_filters_and_binds_whatever_its_case() -> None:
    [issues] = [p for p in MODEL.of_kind(m.ListOf) if p.entity is ISSUE]
    narrowed = entity_lists.narrowed(issues, {}, only={"state": IssueState.OPEN})
    assert narrowed.bound(issues) == {"state": "OPEN"}
    assert entity_lists.narrowed(issues, {}).bound(issues) == {"state": None}
    folded = m.ListOf(ISSUE, TABLE, "x", filtered=())
    shown = entity_lists.Narrowed(equal={"owner": "ALICE"})
    assert shown.contains(folded, {"owner": "alice"})
    assert shown.bound(folded) == {"owner": "alice"}


def test_an_update_setting_a_value_alone_is_accepted() -> None:
    shut = m.Update(ISSUE, "shut", (), sets={"state": IssueState.CLOSED}, access="admins")
    assert m.Model((REPO, ISSUE), (shut,))
