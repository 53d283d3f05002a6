"""Organizations, their teams and members as records; admins through a sparse index."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from data import validation
from data.clock import now
from data.collections import PageRead, Prefetched, load_with_pages
from data.creates import put_new
from keys import organizations as org_keys
from keys.codecs import format_timestamp, parse_timestamp
from keys.organizations import Role as Role
from keys.table import GSI3, TABLE
from store.client import Store
from store.cursors import Binding
from store.errors import ConditionFailed, Conflict, NotFound, TransactionCanceled
from store.loaders import ItemLoader
from store.pagination import PageArgs, Paginator
from store.requests import (
    Item,
    condition_check,
    transaction_put,
    transaction_update,
    update_request,
)

# Teams are listed whole, in one read of at most this many items.
TEAMS_PAGE = PageArgs(size=org_keys.MAX_TEAMS, backward=False, cursor=None)


@dataclass(frozen=True)
class Organization:
    name: str
    created_at: datetime

    @classmethod
    def from_item(cls, item: Item) -> Organization:
        return cls(item["name"], parse_timestamp(item["createdAt"]))


@dataclass(frozen=True)
class Member:
    username: str
    name: str
    role: Role
    joined_at: datetime

    @classmethod
    def from_item(cls, item: Item) -> Member:
        return cls(
            username=item["username"],
            name=item["name"],
            role=Role(item["role"]),
            joined_at=parse_timestamp(item["joinedAt"]),
        )


@dataclass(frozen=True)
class Team:
    name: str
    created_at: datetime

    @classmethod
    def from_item(cls, item: Item) -> Team:
        return cls(item["name"], parse_timestamp(item["createdAt"]))


def _organization(name: str) -> str:
    return validation.ident(name, "organization")


async def create_organization(store: Store, name: str) -> Organization:
    validation.ident(name, "name")
    item = {
        **org_keys.organization_key(name),
        **org_keys.organization_index_attributes(name),
        "type": "ORGANIZATION",
        "name": name,
        "createdAt": format_timestamp(now()),
        "teamCount": 0,
    }
    await put_new(store, item, f"organization {name!r} already exists")
    return Organization.from_item(item)


async def add_member(
    store: Store, organization: str, username: str, name: str, role: Role
) -> Member:
    organization = _organization(organization)
    validation.ident(username, "username")
    member = {
        **org_keys.member_key(organization, username),
        **(org_keys.admin_attributes(organization, username) if role == Role.ADMIN else {}),
        "type": "MEMBER",
        "username": username,
        "name": validation.text(name, "name"),
        "role": role,
        "joinedAt": format_timestamp(now()),
    }
    actions = [
        condition_check(store.table, org_keys.organization_key(organization), exists=True),
        transaction_put(store.table, member, must_be_new=True),
    ]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        refusals = {
            0: NotFound(f"organization {organization!r} does not exist"),
            1: Conflict(f"{username!r} is already a member of {organization!r}"),
        }
        raise exc.explained(refusals, "the member could not be added; try again") from exc
    return Member.from_item(member)


async def set_member_role(
    store: Store, items: ItemLoader, organization: str, username: str, role: Role
) -> Member:
    """Change a role; the same UpdateItem moves the member into or out of the admins index."""
    organization = _organization(organization)
    validation.ident(username, "username")
    key = org_keys.member_key(organization, username)
    admin = role == Role.ADMIN
    request = update_request(
        store.table,
        key,
        set_values={
            "role": role,
            **(org_keys.admin_attributes(organization, username) if admin else {}),
        },
        remove=() if admin else org_keys.ADMIN_ATTRIBUTES,
    )
    try:
        member = await store.update(request)
    except ConditionFailed as exc:
        raise NotFound(f"{username!r} is not a member of {organization!r}") from exc
    items.refresh(key, member)
    return Member.from_item(member)


async def create_team(store: Store, organization: str, name: str) -> Team:
    """A team, counted on the organization item in the same transaction (at most 100)."""
    organization = _organization(organization)
    validation.ident(name, "name")
    team = {
        **org_keys.team_key(organization, name),
        "type": "TEAM",
        "name": name,
        "createdAt": format_timestamp(now()),
    }
    counted = update_request(
        store.table,
        org_keys.organization_key(organization),
        add={"teamCount": 1},
        condition="#teamCount < :most",
        condition_values={":most": org_keys.MAX_TEAMS},
    )
    actions = [
        transaction_update(counted),
        transaction_put(store.table, team, must_be_new=True),
    ]
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        if exc.failed(1):
            raise Conflict(f"team {name!r} already exists in {organization!r}") from exc
        if not exc.failed(0):
            raise exc.as_error("the team could not be created; try again") from exc
        key = org_keys.organization_key(organization)
        if await store.get(key, consistent=True) is None:
            raise NotFound(f"organization {organization!r} does not exist") from exc
        raise Conflict(
            f"organization {organization!r} has {org_keys.MAX_TEAMS} teams, the most it can have"
        ) from exc
    return Team.from_item(team)


def members_read(organization: str, args: PageArgs) -> PageRead[Member]:
    """Usernames A→Z, ignoring case."""
    organization = _organization(organization)
    condition = org_keys.organization_members(organization)
    binding = Binding("Organization.members", condition.partition, {})
    parent = org_keys.organization_key(organization)[TABLE.sort_key]
    return PageRead(condition, binding, args, forward=True, record=Member.from_item, parent=parent)


def admins_read(organization: str, args: PageArgs) -> PageRead[Member]:
    """ADMIN members A→Z, from the sparse index that holds no one else."""
    organization = _organization(organization)
    condition = org_keys.organization_admins(organization)
    binding = Binding("Organization.admins", condition.partition, {})
    parent = org_keys.organization_index_attributes(organization)[GSI3.sort_key]
    return PageRead(condition, binding, args, forward=True, record=Member.from_item, parent=parent)


def teams_read(organization: str) -> PageRead[Team]:
    """Every team, read backwards from the organization item (Z→A)."""
    organization = _organization(organization)
    condition = org_keys.organization_teams(organization)
    binding = Binding("Organization.teams", condition.partition, {})
    parent = org_keys.organization_key(organization)[TABLE.sort_key]
    return PageRead(
        condition, binding, TEAMS_PAGE, forward=False, record=Team.from_item, parent=parent
    )


async def load_organization(
    items: ItemLoader, pages: Paginator, name: str, reads: Mapping[str, PageRead[Any]]
) -> tuple[Organization | None, Prefetched]:
    """The organization, with the first pages of `reads` read in the same Queries."""
    key = org_keys.organization_key(_organization(name))
    item, prefetched = await load_with_pages(items, key, pages, reads)
    return (None if item is None else Organization.from_item(item)), prefetched
