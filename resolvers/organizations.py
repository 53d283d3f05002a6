"""Organizations with their members, admins and teams (seeds 000 and 001)."""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

import strawberry

from data import organizations as data
from data.collections import ENTRY_BYTES, PageRead, Prefetched, page_for
from data.organizations import Role
from resolvers import cost, lookahead
from resolvers.access import ANYONE, SignedIn, Stored
from resolvers.context import Context
from resolvers.cost import entity, field_with_cost, item_read, mutation_with_cost, page_read, writes
from resolvers.records import FromRecord, mirrored
from resolvers.relay import Connection, connection_field
from store.pagination import Page, PageArgs, query_calls

Info = strawberry.Info[Context, None]
ORGANIZATION_ADMINS = Stored("ADMIN members of the organization (its creator is its first)")
T = TypeVar("T")

# Every team in one page: the most an organization can have, read as any page is.
_TEAMS = data.TEAMS_PAGE.size
TEAMS_READ = cost.FieldCost(
    requests=query_calls(_TEAMS + 2, ENTRY_BYTES), items=_TEAMS + 2, fanout=_TEAMS, shared=True
)

# The stored roles are the schema's enum.
strawberry.enum(Role)


@strawberry.type
class Member(FromRecord):
    username: str
    name: str
    role: Role
    joined_at: datetime


@strawberry.type
class Team(FromRecord):
    name: str
    created_at: datetime


@strawberry.type
class Organization:
    name: str
    created_at: datetime
    prefetched: strawberry.Private[Prefetched]

    @classmethod
    def from_record(
        cls, organization: data.Organization, prefetched: Prefetched | None = None
    ) -> Organization:
        return mirrored(cls, organization, prefetched=prefetched or {})

    @connection_field(page_read(ENTRY_BYTES))
    async def members(self, info: Info, page: PageArgs) -> Connection[Member]:
        """Usernames A→Z, ignoring case."""
        read = data.members_read(self.name, page)
        return Connection.from_page(await self._page(info, read), Member.from_record)

    @connection_field(page_read(ENTRY_BYTES))
    async def admins(self, info: Info, page: PageArgs) -> Connection[Member]:
        """Members whose role is ADMIN, usernames A→Z, ignoring case."""
        read = data.admins_read(self.name, page)
        return Connection.from_page(await self._page(info, read), Member.from_record)

    @field_with_cost(TEAMS_READ)
    async def teams(self, info: Info) -> list[Team]:
        """Every team, names A→Z, ignoring case."""
        page = await self._page(info, data.teams_read(self.name))
        # Read backwards from the organization item, so Z→A.
        return [Team.from_record(edge.item) for edge in reversed(page.edges)]

    async def _page(self, info: Info, read: PageRead[T]) -> Page[T]:
        return await page_for(self.prefetched, str(info.path.key), read, info.context.pages)


@strawberry.input
class CreateOrganizationInput:
    name: str


@strawberry.input
class AddMemberInput:
    organization: str
    username: str
    name: str
    role: Role


@strawberry.type
class OrganizationsQuery:
    # With its first pages selected below, as `Query.repo` does.
    @field_with_cost(item_read(entity("Organization", "name", fold_case=True)), ANYONE)
    async def organization(self, info: Info, name: str) -> Organization | None:
        """With `members`, `admins` or `teams` selected, the organization and each first
        page are one Query: teams sort before the organization item, members after it,
        and the sparse admins index holds the organization item too."""
        reads = lookahead.child_reads(
            info,
            {
                "members": lambda a: data.members_read(name, lookahead.page_args(a)),
                "admins": lambda a: data.admins_read(name, lookahead.page_args(a)),
                "teams": lambda a: data.teams_read(name),
            },
        )
        organization, prefetched = await data.load_organization(
            info.context.items, info.context.pages, name, reads
        )
        if organization is None:
            return None
        return Organization.from_record(organization, prefetched)


@strawberry.type
class OrganizationsMutation:
    # One transaction with the caller as first member (one PutItem in open mode).
    @mutation_with_cost(
        writes(data.create_organization),
        SignedIn("any signed-in caller, who becomes its first ADMIN member"),
    )
    async def create_organization(self, info: Info, input: CreateOrganizationInput) -> Organization:
        organization = await data.create_organization(
            info.context.store, input.name, caller=info.context.caller
        )
        return Organization.from_record(organization)

    # One transaction; a caller adding themselves is refused after two reads at most.
    @mutation_with_cost(writes(data.add_member), ORGANIZATION_ADMINS)
    async def add_member(self, info: Info, input: AddMemberInput) -> Member:
        context = info.context
        member = await data.add_member(
            context.store,
            input.organization,
            input.username,
            input.name,
            input.role,
            caller=context.caller,
        )
        return Member.from_record(member)

    # One UpdateItem; for an ADMIN member changing another's role, a transaction and up to
    # two reads of the member (one read of the organization when refused instead); for any
    # other demotion, a read of the admins index, a transaction and up to two reads.
    @mutation_with_cost(writes(data.set_member_role), ORGANIZATION_ADMINS)
    async def set_member_role(
        self, info: Info, organization: str, username: str, role: Role
    ) -> Member:
        context = info.context
        member = await data.set_member_role(
            context.store, context.items, organization, username, role, caller=context.caller
        )
        return Member.from_record(member)

    @mutation_with_cost(writes(data.create_team), ORGANIZATION_ADMINS)
    async def create_team(self, info: Info, organization: str, name: str) -> Team:
        context = info.context
        team = await data.create_team(context.store, organization, name, caller=context.caller)
        return Team.from_record(team)
