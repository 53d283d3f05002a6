"""The demo's organizations, members and teams, from their declarations
(`demo/model/organizations.py`) and the model's hook (`demo/organizations.py`), called as
the tests call each area's access patterns; and their keys, as the key tests look at them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from data import entities, entity_lists
from data.collections import PageRead
from demo import organizations as hook
from demo.members import admin_attributes, member_key, organization_key
from demo.model import MODEL
from demo.model.organizations import MEMBER, ORGANIZATION, TEAM, Role
from keys.conditions import KeyCondition
from keys.table import GSI3, TABLE
from model import ListOf
from store.cost import declared, worst_case
from store.pagination import PageArgs
from tests.records import Fields, RecordOf

__all__ = ["Role", "admin_attributes", "member_key", "organization_key"]
_LISTS = {p.field: p for p in MODEL.of_kind(ListOf) if p.entity in (MEMBER, TEAM)}


Organization = RecordOf(ORGANIZATION)
Team = RecordOf(TEAM)
Member = RecordOf(MEMBER)


def _answering(record: RecordOf, write: Callable[..., Awaitable[entities.Record]]) -> Any:
    """The hook's own `write`, called as it is, its answer read as fields, declaring the
    hook's worst case under its own name in this module (as each area's patterns do)."""

    async def answered(*args: Any, **kwargs: Any) -> Fields:
        return record.of(await write(*args, **kwargs))

    answered.__name__ = answered.__qualname__ = write.__name__
    return worst_case(**vars(declared(write)))(answered)


create_organization = _answering(Organization, hook.create_organization)
add_member = _answering(Member, hook.add_member)
set_member_role = _answering(Member, hook.set_member_role)
create_team = _answering(Team, hook.create_team)


def _read(field: str, organization: str, args: PageArgs) -> PageRead[entities.Record]:
    pattern = _LISTS[field]
    return entity_lists.list_read(pattern, ORGANIZATION, {"name": organization}, args)


def members_read(organization: str, args: PageArgs) -> PageRead[entities.Record]:
    return _read("members", organization, args)


def admins_read(organization: str, args: PageArgs) -> PageRead[entities.Record]:
    return _read("admins", organization, args)


def teams_read(organization: str) -> PageRead[entities.Record]:
    return _read("teams", organization, entity_lists.whole_page(_LISTS["teams"]))


# ---- keys, as the key tests look at them -------------------------------------------------

ORGANIZATION_TEMPLATE = ORGANIZATION.templates[TABLE.partition_key]
TEAM_TEMPLATE = TEAM.templates[TABLE.sort_key]
MEMBER_TEMPLATE = MEMBER.templates[TABLE.sort_key]
ADMIN_ATTRIBUTES = GSI3.attributes


def team_key(organization: str, team: str) -> dict[str, str]:
    return TEAM.primary_key({"organization": organization, "name": team})


def organization_index_attributes(organization: str) -> dict[str, str]:
    return ORGANIZATION.key_values({"name": organization}, only=GSI3.attributes)


def organization_teams(organization: str) -> KeyCondition:
    return teams_read(organization).condition


def organization_members(organization: str) -> KeyCondition:
    return members_read(organization, PageArgs(1, False, None)).condition


def organization_admins(organization: str) -> KeyCondition:
    return admins_read(organization, PageArgs(1, False, None)).condition
