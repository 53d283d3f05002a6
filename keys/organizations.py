"""Organizations with their teams and members in one item collection (seeds 000 and 001).

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

from keys.codecs import IdentifierCodec
from keys.conditions import KeyCondition
from keys.table import GSI3, TABLE, entity_key
from keys.template import DELIMITER, KeyTemplate, Segment


class Role(StrEnum):
    """Every role a member can have: the one list the data and the schema share."""

    ADMIN = "ADMIN"
    MEMBER = "MEMBER"


# An organization lists all its teams in one read, so their number is bounded.
MAX_TEAMS = 100

_FOLDED = IdentifierCodec(case_insensitive=True)
ORGANIZATION = KeyTemplate("ORG", (Segment("organization", _FOLDED),))
TEAM = KeyTemplate(DELIMITER + "TEAM", (Segment("team", _FOLDED),))
MEMBER = KeyTemplate("USER", (Segment("username", _FOLDED),))


def organization_key(organization: str) -> dict[str, str]:
    return entity_key(ORGANIZATION.render(organization=organization))


def organization_index_attributes(organization: str) -> dict[str, str]:
    """The organization item heads its admins in the sparse index."""
    key = ORGANIZATION.render(organization=organization)
    return {GSI3.partition_key: key, GSI3.sort_key: key}


def team_key(organization: str, team: str) -> dict[str, str]:
    return {
        TABLE.partition_key: ORGANIZATION.render(organization=organization),
        TABLE.sort_key: TEAM.render(team=team),
    }


def member_key(organization: str, username: str) -> dict[str, str]:
    return {
        TABLE.partition_key: ORGANIZATION.render(organization=organization),
        TABLE.sort_key: MEMBER.render(username=username),
    }


def admin_attributes(organization: str, username: str) -> dict[str, str]:
    """What puts a member into the sparse admins index; a non-admin carries none of it."""
    return {
        GSI3.partition_key: ORGANIZATION.render(organization=organization),
        GSI3.sort_key: MEMBER.render(username=username),
    }


ADMIN_ATTRIBUTES = GSI3.attributes


def organization_teams(organization: str) -> KeyCondition:
    partition = ORGANIZATION.render(organization=organization)
    return KeyCondition.prefix(TABLE, partition, TEAM.prefix())


def organization_members(organization: str) -> KeyCondition:
    partition = ORGANIZATION.render(organization=organization)
    return KeyCondition.prefix(TABLE, partition, MEMBER.prefix())


def organization_admins(organization: str) -> KeyCondition:
    partition = ORGANIZATION.render(organization=organization)
    return KeyCondition.prefix(GSI3, partition, MEMBER.prefix())
