"""The demo's organizations, members and teams, from their declarations
(`demo/model/organizations.py`) and the model's hook (`demo/organizations.py`), called as
the tests call each area's access patterns; and their keys, as the key tests look at them."""

from __future__ import annotations

from typing import Any

from data import entities, entity_lists
from data.callers import OPEN, Caller
from data.collections import PageRead
from demo import organizations as hook
from demo.members import admin_attributes, member_key, organization_key
from demo.model import MODEL
from demo.model.organizations import MEMBER, ORGANIZATION, TEAM, Role
from keys.conditions import KeyCondition
from keys.table import GSI3, TABLE
from model import ListOf
from store.client import Store
from store.cost import declared, worst_case
from store.loaders import ItemLoader
from store.pagination import PageArgs
from tests.records import Fields, RecordOf

__all__ = ["Role", "admin_attributes", "member_key", "organization_key"]
_LISTS = {p.field: p for p in MODEL.of_kind(ListOf) if p.entity in (MEMBER, TEAM)}


Organization = RecordOf(ORGANIZATION)
Team = RecordOf(TEAM)
Member = RecordOf(MEMBER)


def _worst(pattern: Any) -> Any:
    return worst_case(**vars(declared(pattern)))


@_worst(hook.create_organization)
async def create_organization(store: Store, name: str, *, caller: Caller = OPEN) -> Fields:
    return Organization.of(await hook.create_organization(store, name, caller=caller))


@_worst(hook.add_member)
async def add_member(
    store: Store,
    organization: str,
    username: str,
    name: str,
    role: Role,
    *,
    caller: Caller = OPEN,
) -> Fields:
    added = await hook.add_member(store, organization, username, name, role, caller=caller)
    return Member.of(added)


@_worst(hook.set_member_role)
async def set_member_role(
    store: Store,
    items: ItemLoader,
    organization: str,
    username: str,
    role: Role,
    *,
    caller: Caller = OPEN,
) -> Fields:
    changed = await hook.set_member_role(store, items, organization, username, role, caller=caller)
    return Member.of(changed)


@_worst(hook.create_team)
async def create_team(
    store: Store, organization: str, name: str, *, caller: Caller = OPEN
) -> Fields:
    return Team.of(await hook.create_team(store, organization, name, caller=caller))


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
