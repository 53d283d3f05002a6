"""Organizations with their teams and members in one item collection (seeds 000 and 001),
declared; creating one, its members, roles and teams follow the organization's ADMIN
members, which is the model's hook (`demo/organizations.py`).

    organization  PK = SK = ORG#<org>                 GSI3  ORG#<org> / ORG#<org>
    team          PK = ORG#<org>  SK = #TEAM#<team>       sorts before the organization
    member        PK = ORG#<org>  SK = USER#<username>    sorts after it
                  GSI3  ORG#<org> / USER#<username>       only while the role is ADMIN

Two relational access patterns share the collection (seed 001): the `#` that leads a team
key sorts before every letter, so reading backwards from the organization item returns it
and then its teams, and reading forwards returns it and then its members, A→Z. GSI3 is a
sparse index (seed 000): only the organization item and its ADMIN members carry `GSI3PK`,
so reading forwards from the organization there returns it and then its admins, A→Z.
Names are folded to lower case in keys; items keep the case first given.
"""

from __future__ import annotations

from enum import StrEnum

from dynagate import GSI3, TABLE
from model import (
    Choice,
    Counter,
    Entity,
    Handle,
    Keys,
    ListOf,
    Lookup,
    Parent,
    Text,
    Timestamp,
    key,
    only,
    same,
)


class Role(StrEnum):
    """Every role a member can have: the one list the data and the schema share."""

    ADMIN = "ADMIN"
    MEMBER = "MEMBER"


# An organization lists all its teams in one read, so their number is bounded.
MAX_TEAMS = 100
IN_ORGANIZATION = key("ORG", "organization")
OF_ORGANIZATION = Parent("Organization", {"organization": "name"})

ORGANIZATION = Entity(
    "Organization",
    {
        "name": Handle(),
        "createdAt": Timestamp(stamped="create"),
        "teamCount": Counter(shown=False),
    },
    key=same(key("ORG", "name")),
    indexes={GSI3: same(key("ORG", "name"))},
)
TEAM = Entity(
    "Team",
    {
        "organization": Handle(shown=False),
        "name": Handle(),
        "createdAt": Timestamp(stamped="create"),
    },
    key=Keys(IN_ORGANIZATION, key("#TEAM", "name")),
    parent=OF_ORGANIZATION,
)
MEMBER_AT = key("USER", "username")
MEMBER = Entity(
    "Member",
    {
        "organization": Handle(shown=False),
        "username": Handle(),
        "name": Text(),
        "role": Choice(values=Role),
        "joinedAt": Timestamp(stamped="create"),
    },
    key=Keys(IN_ORGANIZATION, MEMBER_AT),
    indexes={GSI3: Keys(IN_ORGANIZATION, MEMBER_AT)},
    sparse={GSI3: only("role", Role.ADMIN)},
    parent=OF_ORGANIZATION,
)
ENTITIES = (ORGANIZATION, TEAM, MEMBER)
PATTERNS = (
    Lookup(ORGANIZATION, "organization", access="anyone"),
    ListOf(MEMBER, TABLE, "members"),
    ListOf(MEMBER, GSI3, "admins"),
    ListOf(TEAM, TABLE, "teams", whole=MAX_TEAMS),
)
