"""The pure helpers of `store.pagination` that read a parent item with a first page.

Every parent sits right next to its children (issues / stars, teams / members, tickets in
GSI1); a page starts at the parent only without a cursor and read away from it, and the
widened condition takes in the parent and nothing on its other side.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from data.collections import PageRead
from data.entity_lists import list_read
from demo.model.tickets import PATTERNS, QUEUE, TICKET
from keys.conditions import KeyCondition
from keys.table import GSI1, GSI3, TABLE
from model import ListOf
from store.pagination import PageArgs, _widened, reads_parent, starts_at
from store.requests import Filter
from tests import demo_organizations as org_data
from tests import demo_organizations as orgs
from tests import demo_repos as repo_data
from tests import demo_repos as repos
from tests.keys.strategies import FAST, any_zone, identifiers, ksuids

SK = TABLE.sort_key
instants = st.datetimes(datetime(1000, 1, 2), datetime(9999, 12, 30), timezones=any_zone)
numbers = st.integers(1, repos.ISSUE_NUMBER.maximum)
OPEN = repo_data.IssueState.OPEN

Found = list[tuple[KeyCondition, str, list[str], list[str]]]
[TICKETS] = [p for p in PATTERNS if isinstance(p, ListOf)]


def tickets_read(queue_id: str, args: PageArgs) -> PageRead[Any]:
    return list_read(TICKETS, QUEUE, {"id": queue_id}, args)


def _collections(parent: str, child: str, number: int, at: datetime, ticket_id: str) -> Found:
    """Each collection: its condition, the parent's sort key, a child's key, and keys on the
    other side of the parent."""
    repo = repos.repo_key(parent, child)[SK]
    issue = repos.issue_key(parent, child, number)[SK]
    star = repos.star_key(parent, child, child)[SK]
    org = orgs.organization_key(parent)[SK]
    team = orgs.team_key(parent, child)[SK]
    member = orgs.member_key(parent, child)[SK]
    head = orgs.organization_index_attributes(parent)[GSI3.sort_key]
    admin = orgs.admin_attributes(parent, child)[GSI3.sort_key]
    queue = QUEUE.key_values({"id": parent}, only=[GSI1.sort_key])[GSI1.sort_key]
    values = {"id": ticket_id, "queueId": parent, "updatedAt": at}
    ticket = TICKET.key_values(values, only=[GSI1.sort_key])[GSI1.sort_key]
    return [
        (repos.repo_issues(parent, child), repo, [issue], [star]),
        (repos.repo_stars(parent, child), repo, [star], [issue]),
        (orgs.organization_teams(parent), org, [team], [member]),
        (orgs.organization_members(parent), org, [member], [team]),
        (orgs.organization_admins(parent), head, [admin], []),
        (tickets_read(parent, PageArgs(10, False, None)).condition, queue, [ticket], []),
    ]


collections = st.builds(_collections, identifiers, identifiers, numbers, instants, ksuids)
page_args = st.builds(
    PageArgs, st.integers(1, 100), st.booleans(), st.one_of(st.none(), st.just("cursor"))
)


@FAST
@given(collections, page_args, st.booleans())
def test_a_page_starts_at_the_parent_only_without_cursor_reading_away_from_it(
    found: Found, args: PageArgs, forward: bool
) -> None:
    for condition, parent, children, _ in found:
        ascending = forward != args.backward
        # Away from the parent: in reading order, the parent comes before every child.
        away = all(parent < c if ascending else c < parent for c in children)
        assert starts_at(condition, parent, args, forward) == (args.cursor is None and away)


@FAST
@given(collections)
def test_widened_takes_in_the_parent_and_nothing_beyond_it(found: Found) -> None:
    for condition, parent, children, others in found:
        widened = _widened(condition, parent)
        assert (widened.index, widened.partition) == (condition.index, condition.partition)
        assert widened.contains(parent) and not condition.contains(parent)
        assert all(condition.contains(c) and widened.contains(c) for c in children)
        assert not any(widened.contains(o) for o in others)
        # The interval only grows: every key the original holds, the widened one holds.
        low, high = widened.low, widened.high
        assert low is None or (condition.low is not None and low <= condition.low)
        assert high is None or (condition.high is not None and high >= condition.high)


@pytest.mark.parametrize(
    ("read", "joins"),
    [
        (repo_data.issues_read("alice", "widgets", PageArgs(10, False, None), None), True),
        (repo_data.issues_read("alice", "widgets", PageArgs(10, True, None), None), False),
        (repo_data.issues_read("alice", "widgets", PageArgs(10, False, "c"), None), False),
        (repo_data.issues_read("alice", "widgets", PageArgs(10, False, None), OPEN), True),
        (repo_data.stars_read("alice", "widgets", PageArgs(10, False, None)), True),
        (repo_data.stars_read("alice", "widgets", PageArgs(10, True, None)), False),
        (org_data.members_read("acme", PageArgs(10, False, None)), True),
        (org_data.admins_read("acme", PageArgs(10, False, None)), True),
        (org_data.teams_read("acme"), True),
        (tickets_read("q1", PageArgs(10, False, None)), True),
        (tickets_read("q1", PageArgs(10, True, None)), False),
    ],
)
def test_which_pages_of_each_area_come_with_their_parent(read: PageRead[Any], joins: bool) -> None:
    """`first` pages without a cursor come with the parent; `last` and cursor pages do not."""
    assert read.joins_parent is joins


def test_a_filter_that_would_drop_the_parent_keeps_the_page_apart() -> None:
    condition = repos.repo_issues("alice", "widgets")
    parent = repos.repo_key("alice", "widgets")[SK]
    args = PageArgs(10, False, None)
    drops = Filter("#state = :state", {":state": "OPEN"}, {"#state": "state"})
    assert not reads_parent(condition, parent, args, False, drops)
    passes = Filter(drops.expression, drops.values, drops.names, passes_parent=True)
    assert reads_parent(condition, parent, args, False, passes)
