"""Property tests of the item collections of repos, organizations and ticket queues.

A parent item sits between its two kinds of children (issues / stars, teams / members,
tickets in GSI1), so one Query starting at the parent reads it and a first page. These tests
check that order for any valid identifiers, that each collection's condition holds exactly
its children, and the two pure helpers of `store.pagination` that read the parent along.
Keys are ASCII and bounds end in KEY_MAX (U+FFFF): Python's `str` order is DynamoDB's
UTF-8 byte order, so `KeyCondition.contains` (plain `<=`) is what DynamoDB does.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from demo.model.tickets import QUEUE, TICKET
from errors.vocabulary import BadUserInput
from keys.codecs import IDENTIFIER_PATTERN, KSUID_EPOCH, to_millis
from keys.codecs import ksuid as make_ksuid
from keys.table import GSI1, GSI3, TABLE
from keys.template import DELIMITER, KeyTemplate, Segment
from tests import demo_organizations as orgs
from tests import demo_repos as repos
from tests import demo_tickets as tickets
from tests.keys.strategies import FAST, QUICK, any_zone, identifiers, ksuids, near_identifiers

SK, PK = TABLE.sort_key, TABLE.partition_key
TICKET_BY_UPDATE = TICKET.templates[GSI1.sort_key]
instants = st.datetimes(datetime(1000, 1, 2), datetime(9999, 12, 30), timezones=any_zone)
numbers = st.integers(1, repos.ISSUE_NUMBER.maximum)
usernames = st.lists(identifiers, min_size=1, max_size=8)
# An identifier and a variant of it in other case: (`alice`, `AlIce`).
recased = st.tuples(identifiers, st.lists(st.booleans(), min_size=64, max_size=64)).map(
    lambda p: (p[0], "".join(c.swapcase() if p[1][i] else c for i, c in enumerate(p[0])))
)
NOW = datetime(2021, 1, 1, tzinfo=UTC)
not_identifiers = near_identifiers.filter(lambda s: not IDENTIFIER_PATTERN.fullmatch(s))

# Every template of the three modules, with a strategy for its values and what parse gives.
TEMPLATES: dict[str, tuple[KeyTemplate, st.SearchStrategy[dict[str, Any]]]] = {
    "REPO": (
        repos.REPO_TEMPLATE,
        st.fixed_dictionaries({"owner": identifiers, "name": identifiers}),
    ),
    "ISSUE": (repos.ISSUE_TEMPLATE, st.fixed_dictionaries({"number": numbers})),
    "STAR": (repos.STAR_TEMPLATE, st.fixed_dictionaries({"username": identifiers})),
    "ORG": (orgs.ORGANIZATION_TEMPLATE, st.fixed_dictionaries({"name": identifiers})),
    "#TEAM": (orgs.TEAM_TEMPLATE, st.fixed_dictionaries({"name": identifiers})),
    "USER": (orgs.MEMBER_TEMPLATE, st.fixed_dictionaries({"username": identifiers})),
    "QUEUE": (QUEUE.templates[SK], st.fixed_dictionaries({"id": identifiers})),
    "TICKET": (TICKET.templates[SK], st.fixed_dictionaries({"id": ksuids})),
    "#TICKET": (
        TICKET_BY_UPDATE,
        st.fixed_dictionaries({"updatedAt": instants, "id": ksuids}),
    ),
}
FOLDED = {"REPO", "STAR", "ORG", "#TEAM", "USER"}


def ticket_index(queue_id: str, ticket_id: str, updated_at: datetime) -> dict[str, str]:
    values = {"id": ticket_id, "queueId": queue_id, "updatedAt": updated_at}
    return TICKET.key_values(values, only=(GSI1.partition_key, GSI1.sort_key))


def parsed(name: str, values: dict[str, Any]) -> dict[str, Any]:
    """What parsing a rendered key gives back: folded names, times in UTC milliseconds."""
    if name in FOLDED:
        return {k: v.lower() for k, v in values.items()}
    return {k: to_millis(v) if isinstance(v, datetime) else v for k, v in values.items()}


cases = st.sampled_from(sorted(TEMPLATES)).flatmap(
    lambda name: st.tuples(st.just(name), TEMPLATES[name][1])
)


# ---- templates -------------------------------------------------------------------------


@FAST
@given(cases)
def test_render_parse_round_trip(case: tuple[str, dict[str, Any]]) -> None:
    name, values = case
    template = TEMPLATES[name][0]
    key = template.render(**values)
    assert key.isascii() and key.startswith(name + DELIMITER)
    assert template.parse(key) == parsed(name, values)
    assert template.render(**template.parse(key)) == key
    # A key matches its own template only: `#TICKET` and `TICKET` keys never mix.
    assert [n for n, (t, _) in TEMPLATES.items() if t.matches(key)] == [name]


@FAST
@given(
    st.from_regex(r"#?[A-Z]{1,8}", fullmatch=True),
    st.lists(identifiers, min_size=0, max_size=3),
    st.from_regex(r"#?[A-Z]{1,8}", fullmatch=True),
)
def test_a_label_may_start_with_the_delimiter(label: str, values: list[str], other: str) -> None:
    segments = tuple(
        Segment(f"s{i}", repos.STAR_TEMPLATE.segments[0].codec) for i in range(len(values))
    )
    template = KeyTemplate(label, segments)
    given_values = {f"s{i}": v for i, v in enumerate(values)}
    key = template.render(**given_values)
    assert template.parse(key) == {k: v.lower() for k, v in given_values.items()}
    assume(other != label)
    assert not KeyTemplate(other, segments).matches(key)


KSUID = "0ujtsYcgvSTl8PAuAdqWYSMnLOv"
TEAM = orgs.TEAM_TEMPLATE
FOREIGN: list[tuple[KeyTemplate, str]] = [
    (TEAM, "TEAM#core"), (TEAM, "#TEAM"), (TEAM, "#TEAM#"),
    (TEAM, "#TEAMS#core"), (TEAM, "##TEAM#core"), (TEAM, "#TEAM#core#x"),
    (TEAM, "ORG#core"), (TEAM, "#TEAM#a b"),
    (TICKET_BY_UPDATE, "#TICKET#2021-01-01T00:00:00.000Z"),
    (TICKET_BY_UPDATE, f"TICKET#2021-01-01T00:00:00.000Z#{KSUID}"),
    (TICKET_BY_UPDATE, f"#TICKET#2021-13-01T00:00:00.000Z#{KSUID}"),
    (TICKET.templates[SK], f"#TICKET#{KSUID}"), (QUEUE.templates[SK], "#QUEUE#q1"),
    (repos.ISSUE_TEMPLATE, "ISSUE#1"), (repos.ISSUE_TEMPLATE, "ISSUE#123456789"),
]  # fmt: skip


@pytest.mark.parametrize(("template", "key"), FOREIGN)
def test_parse_refuses_other_keys(template: KeyTemplate, key: str) -> None:
    assert not template.matches(key)
    with pytest.raises(ValueError):
        template.parse(key)


# ---- order within each collection ------------------------------------------------------


@FAST
@given(identifiers, identifiers, st.lists(numbers, max_size=5), usernames)
@example("a", "b", [1, repos.ISSUE_NUMBER.maximum], ["0", "0-", "0_", "Z", "z" * 64])
def test_issues_sort_before_their_repo_and_stars_after(
    owner: str, name: str, issue_numbers: list[int], users: list[str]
) -> None:
    repo = repos.repo_key(owner, name)
    issues = [repos.issue_key(owner, name, n) for n in issue_numbers]
    stars = [repos.star_key(owner, name, u) for u in users]
    assert repo[PK] == repo[SK]
    assert {k[PK] for k in issues + stars} <= {repo[PK]}
    assert all(i[SK] < repo[SK] for i in issues) and all(repo[SK] < s[SK] for s in stars)


@FAST
@given(identifiers, st.lists(identifiers, max_size=5), usernames)
@example("a", ["0", "0-", "z" * 64], ["0", "0.", "0_", "Z"])
def test_teams_sort_before_their_organization_and_members_after(
    org: str, teams: list[str], users: list[str]
) -> None:
    organization = orgs.organization_key(org)
    team_keys = [orgs.team_key(org, t) for t in teams]
    members = [orgs.member_key(org, u) for u in users]
    assert {k[PK] for k in team_keys + members} <= {organization[PK]}
    assert all(t[SK] < organization[SK] for t in team_keys)
    assert all(organization[SK] < m[SK] for m in members)
    # In the sparse index, the organization heads its admins.
    head = orgs.organization_index_attributes(org)
    admins = [orgs.admin_attributes(org, u) for u in users]
    assert all(a[GSI3.partition_key] == head[GSI3.partition_key] for a in admins)
    assert all(head[GSI3.sort_key] < a[GSI3.sort_key] for a in admins)


@FAST
@given(identifiers, st.lists(st.tuples(ksuids, instants), min_size=1, max_size=5))
def test_tickets_sort_before_their_queue_in_gsi1(
    queue_id: str, ticket_list: list[tuple[str, datetime]]
) -> None:
    queue = QUEUE.key_values({"id": queue_id})
    assert queue[SK] == queue[GSI1.sort_key]
    for ticket_id, updated_at in ticket_list:
        index = ticket_index(queue_id, ticket_id, updated_at)
        assert index[GSI1.partition_key] == queue[GSI1.partition_key]
        assert index[GSI1.sort_key] < queue[GSI1.sort_key]


@FAST
@given(st.lists(st.tuples(ksuids, instants), min_size=2, max_size=8), identifiers)
def test_ticket_index_keys_sort_by_update_time_then_id(
    ticket_list: list[tuple[str, datetime]], queue_id: str
) -> None:
    def index_key(ticket: tuple[str, datetime]) -> str:
        return ticket_index(queue_id, ticket[0], ticket[1])[GSI1.sort_key]

    by_key = sorted(ticket_list, key=index_key)
    assert [(to_millis(t), i) for i, t in by_key] == sorted((to_millis(t), i) for i, t in by_key)


@FAST
@given(st.lists(identifiers, min_size=1, max_size=10, unique_by=str.lower), identifiers)
def test_stars_members_and_teams_are_a_to_z_ignoring_case(users: list[str], parent: str) -> None:
    for key in (
        lambda u: repos.star_key(parent, parent, u)[SK],
        lambda u: orgs.member_key(parent, u)[SK],
        lambda u: orgs.admin_attributes(parent, u)[GSI3.sort_key],
        lambda u: orgs.team_key(parent, u)[SK],
    ):
        assert sorted(key(u) for u in users) == [key(u) for u in sorted(users, key=str.lower)]


@FAST
@given(numbers, numbers)
@example(9, 10)
@example(99_999_998, 99_999_999)
@example(1, 99_999_999)
def test_issue_keys_sort_numerically(a: int, b: int) -> None:
    key_a = repos.issue_key("o", "n", a)[SK]
    key_b = repos.issue_key("o", "n", b)[SK]
    assert (key_a < key_b) == (a < b) and (key_a == key_b) == (a == b)
    assert repos.ISSUE_TEMPLATE.parse(key_a) == {"number": a}


def test_issue_numbers_past_the_key_width_are_refused() -> None:
    assert repos.ISSUE_NUMBER.maximum == 99_999_999
    for number in (100_000_000, -1):
        with pytest.raises(BadUserInput):
            repos.issue_key("o", "n", number)


def test_the_warning_level_is_30_percent_of_the_key_width() -> None:
    level = repos.ISSUE_WARNING_LEVEL
    assert level == 30_000_000
    assert not repos.past_warning_level(level)
    assert repos.past_warning_level(level + 1)
    assert not repos.past_warning_level(1)
    assert repos.past_warning_level(repos.ISSUE_NUMBER.maximum)


# ---- conditions hold exactly their children --------------------------------------------


@FAST
@given(identifiers, identifiers, numbers, identifiers)
def test_repo_conditions_hold_only_their_side(owner: str, name: str, n: int, user: str) -> None:
    repo = repos.repo_key(owner, name)
    issue = repos.issue_key(owner, name, n)
    star = repos.star_key(owner, name, user)
    issues, stars = repos.repo_issues(owner, name), repos.repo_stars(owner, name)
    assert issues.index is stars.index is TABLE
    assert issues.partition == stars.partition == repo[PK]
    assert issues.contains(issue[SK]) and not issues.contains(star[SK])
    assert stars.contains(star[SK]) and not stars.contains(issue[SK])
    assert not issues.contains(repo[SK]) and not stars.contains(repo[SK])


@FAST
@given(identifiers, identifiers, identifiers)
def test_organization_conditions_hold_only_their_side(org: str, team: str, user: str) -> None:
    organization = orgs.organization_key(org)
    team_sk = orgs.team_key(org, team)[SK]
    member_sk = orgs.member_key(org, user)[SK]
    teams, members = orgs.organization_teams(org), orgs.organization_members(org)
    assert teams.index is members.index is TABLE
    assert teams.partition == members.partition == organization[PK]
    assert teams.contains(team_sk) and not teams.contains(member_sk)
    assert members.contains(member_sk) and not members.contains(team_sk)
    assert not teams.contains(organization[SK]) and not members.contains(organization[SK])
    admins = orgs.organization_admins(org)
    assert admins.index is GSI3 and admins.partition == organization[PK]
    assert admins.contains(orgs.admin_attributes(org, user)[GSI3.sort_key])
    assert not admins.contains(orgs.organization_index_attributes(org)[GSI3.sort_key])
    # Only the admin attributes put a member in the index, and the names say which ones.
    assert set(orgs.admin_attributes(org, user)) == set(orgs.ADMIN_ATTRIBUTES)


@FAST
@given(identifiers, ksuids, instants)
def test_queue_condition_holds_its_tickets(queue_id: str, ticket_id: str, at: datetime) -> None:
    condition = tickets.queue_tickets(queue_id)
    index = tickets.ticket_index_attributes(queue_id, ticket_id, at)
    assert condition.index is GSI1
    assert condition.partition == index[GSI1.partition_key]
    assert condition.contains(index[GSI1.sort_key])
    assert not condition.contains(tickets.queue_index_attributes(queue_id)[GSI1.sort_key])
    # The table key of a ticket is not its index key: it never moves.
    assert tickets.ticket_key(ticket_id)[SK] == TICKET.templates[SK].render(id=ticket_id)


@FAST
@given(identifiers, identifiers)
def test_other_parents_never_share_a_collection(a: str, b: str) -> None:
    assume(a.lower() != b.lower())
    assert repos.repo_issues(a, a).partition != repos.repo_stars(b, b).partition
    assert repos.repo_key(a, b) != repos.repo_key(b, a)
    assert orgs.organization_members(a).partition != orgs.organization_members(b).partition
    assert tickets.queue_tickets(a).partition != tickets.queue_tickets(b).partition


# ---- case folding and refusals -----------------------------------------------------------


@FAST
@given(identifiers, recased, identifiers)
@example("x", ("alice", "Alice"), "ALICE")
def test_names_differing_in_case_have_equal_keys(name: str, pair: tuple[str, str], b: str) -> None:
    a, variant = pair
    for key in (
        lambda x: repos.repo_key(x, name),
        lambda x: repos.repo_key(name, x),
        lambda x: repos.star_key(name, name, x),
        lambda x: orgs.organization_key(x),
        lambda x: orgs.organization_index_attributes(x),
        lambda x: orgs.team_key(x, name),
        lambda x: orgs.team_key(name, x),
        lambda x: orgs.member_key(x, name),
        lambda x: orgs.member_key(name, x),
        lambda x: orgs.admin_attributes(name, x),
    ):
        assert key(a) == key(variant) == key(a.lower()) == key(a.upper())
        assert (key(a) == key(b)) == (a.lower() == b.lower())


@FAST
@given(identifiers)
def test_queue_ids_keep_their_case(queue_id: str) -> None:
    assume(queue_id.lower() != queue_id)
    assert tickets.queue_key(queue_id) != tickets.queue_key(queue_id.lower())
    assert QUEUE.templates[SK].parse(tickets.queue_key(queue_id)[SK]) == {"id": queue_id}


@QUICK
@given(not_identifiers)
@example("a#b")
@example("a/b")
@example("~")
@example("")
def test_no_other_text_reaches_a_key(text: str) -> None:
    for build in (
        lambda: repos.repo_key(text, "n"),
        lambda: repos.repo_key("o", text),
        lambda: repos.star_key("o", "n", text),
        lambda: orgs.organization_key(text),
        lambda: orgs.team_key("o", text),
        lambda: orgs.member_key("o", text),
        lambda: orgs.admin_attributes("o", text),
        lambda: tickets.queue_key(text),
        lambda: tickets.ticket_key(text),
        lambda: tickets.ticket_index_attributes(text, make_ksuid(KSUID_EPOCH, bytes(16)), NOW),
    ):
        with pytest.raises(BadUserInput):
            build()
