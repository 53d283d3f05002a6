"""Repositories with their issues and stars in one item collection (seeds 000 and 001),
declared; opening an issue (a gapless number) and starring (an exact count) are the
model's hook (`demo/repos.py`).

    repo   PK = SK = REPO#<owner>#<name>
    issue  PK = REPO#<owner>#<name>  SK = ISSUE#<number>     sorts before the repo item
    star   PK = REPO#<owner>#<name>  SK = STAR#<username>    sorts after it

`ISSUE#` < `REPO#` < `STAR#` in byte order, so a Query reading backwards from the repo
item returns the repo and then its issues, highest number first, and one reading forwards
returns the repo and then its stars, A→Z. Owner, name and username are folded to lower
case in keys (`Alice` and `alice` are one user); items keep the case first given.

Issue numbers are zero-padded to eight digits so byte order is numeric order. The busiest
public repositories hold a few hundred thousand issues; eight digits leave two orders of
magnitude above that, and the hook flags a repository once it passes 30% of the width
(seed 001's alert condition).
"""

from __future__ import annotations

from enum import StrEnum

from dynagate import TABLE
from model import (
    Author,
    Choice,
    Counter,
    Create,
    Entity,
    Handle,
    Keys,
    ListOf,
    Lookup,
    Number,
    Owner,
    Parent,
    Text,
    Timestamp,
    Update,
    key,
    same,
)


class IssueState(StrEnum):
    """Every state an issue can be in: the one list the data and the schema share."""

    OPEN = "OPEN"
    CLOSED = "CLOSED"


ISSUE_NUMBER_MAX = 99_999_999
IN_REPO = key("REPO", "owner", "name")
OF_REPO = Parent("Repo", {"owner": "owner", "name": "name"})

REPO = Entity(
    "Repo",
    {
        "owner": Handle(),
        "name": Handle(),
        "description": Text(multiline=True, optional=True),
        "createdAt": Timestamp(stamped="create"),
        "starCount": Counter(),
        "issueCount": Counter(shown=False),
    },
    key=same(IN_REPO),
    owner=Owner("owner", "owner"),
    called="repository",
)
ISSUE = Entity(
    "Issue",
    {
        "owner": Handle(shown=False),
        "name": Handle(shown=False),
        "number": Number(low=1, high=ISSUE_NUMBER_MAX),
        "title": Text(),
        "state": Choice(values=IssueState, initial=IssueState.OPEN),
        "createdAt": Timestamp(stamped="create"),
        "updatedAt": Timestamp(stamped="write", shown=False),
        "author": Author(verb="opened", role="author"),
    },
    key=Keys(IN_REPO, key("ISSUE", "number")),
    parent=OF_REPO,
)
STAR = Entity(
    "Star",
    {
        "owner": Handle(shown=False),
        "name": Handle(shown=False),
        "username": Handle(),
        "starredAt": Timestamp(stamped="create"),
    },
    key=Keys(IN_REPO, key("STAR", "username")),
    parent=OF_REPO,
)
ENTITIES = (REPO, ISSUE, STAR)
PATTERNS = (
    Lookup(REPO, "repo", access="anyone"),
    # A state is a FilterExpression: docs/design.md says why.
    ListOf(
        ISSUE,
        TABLE,
        "issues",
        descending=True,
        filtered=("state",),
        subscription="issueChanges",
        subscription_access="anyone",
    ),
    ListOf(STAR, TABLE, "stars"),
    Create(REPO, "createRepo", access="owner"),
    Update(ISSUE, "closeIssue", (), sets={"state": IssueState.CLOSED}, inline=True),
)
