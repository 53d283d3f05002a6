"""Repositories with their issues and stars in one item collection (seeds 000 and 001).

    repo   PK = SK = REPO#<owner>#<name>
    issue  PK = REPO#<owner>#<name>  SK = ISSUE#<number>     sorts before the repo item
    star   PK = REPO#<owner>#<name>  SK = STAR#<username>    sorts after it

`ISSUE#` < `REPO#` < `STAR#` in byte order, so a Query reading backwards from the repo
item returns the repo and then its issues, highest number first, and one reading forwards
returns the repo and then its stars, A→Z. Owner, name and username are folded to lower
case in keys (`Alice` and `alice` are one user); items keep the case first given.

Issue numbers are zero-padded to `ISSUE_NUMBER_WIDTH` digits so byte order is numeric
order. The busiest public repositories hold a few hundred thousand issues; eight digits
leave two orders of magnitude above that, and `past_warning_level` flags a repository once
it passes 30% of the width (seed 001's alert condition).
"""

from __future__ import annotations

from enum import StrEnum

from keys.codecs import IdentifierCodec, NumberCodec
from keys.conditions import KeyCondition
from keys.table import TABLE, entity_key
from keys.template import KeyTemplate, Segment


class IssueState(StrEnum):
    """Every state an issue can be in: the one list the data and the schema share."""

    OPEN = "OPEN"
    CLOSED = "CLOSED"


ISSUE_NUMBER_WIDTH = 8
ISSUE_NUMBER = NumberCodec(ISSUE_NUMBER_WIDTH)
# 30% of the numbers the width can hold: 30,000,000 for eight digits.
ISSUE_WARNING_LEVEL = (ISSUE_NUMBER.maximum + 1) * 3 // 10

_FOLDED = IdentifierCodec(case_insensitive=True)
REPO = KeyTemplate("REPO", (Segment("owner", _FOLDED), Segment("name", _FOLDED)))
ISSUE = KeyTemplate("ISSUE", (Segment("number", ISSUE_NUMBER),))
STAR = KeyTemplate("STAR", (Segment("username", _FOLDED),))


def repo_key(owner: str, name: str) -> dict[str, str]:
    return entity_key(REPO.render(owner=owner, name=name))


def issue_key(owner: str, name: str, number: int) -> dict[str, str]:
    return {
        TABLE.partition_key: REPO.render(owner=owner, name=name),
        TABLE.sort_key: ISSUE.render(number=number),
    }


def star_key(owner: str, name: str, username: str) -> dict[str, str]:
    return {
        TABLE.partition_key: REPO.render(owner=owner, name=name),
        TABLE.sort_key: STAR.render(username=username),
    }


def repo_issues(owner: str, name: str) -> KeyCondition:
    """Every issue of the repository (read descending for highest number first)."""
    return KeyCondition.prefix(TABLE, REPO.render(owner=owner, name=name), ISSUE.prefix())


def repo_stars(owner: str, name: str) -> KeyCondition:
    """Every star of the repository, A→Z by folded username when read ascending."""
    return KeyCondition.prefix(TABLE, REPO.render(owner=owner, name=name), STAR.prefix())


def past_warning_level(number: int) -> bool:
    """Whether an issue number has passed 30% of what the key width can hold."""
    return number > ISSUE_WARNING_LEVEL
