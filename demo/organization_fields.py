"""The fields of the organizations' hook (`demo/organizations.py`): `createOrganization`,
`addMember`, `setMemberRole` and `createTeam`, answering with the declared entities'
types (`Roots.type_of`)."""

from __future__ import annotations

from typing import Any

import strawberry

from demo import organizations
from demo.model.organizations import MEMBER, ORGANIZATION, TEAM, Role
from resolvers.access import SignedIn, Stored
from resolvers.context import Context
from resolvers.cost import mutation_with_cost, writes
from resolvers.derived_arguments import REQUIRED, enum, signed
from resolvers.derived_roots import Roots

Info = strawberry.Info[Context, None]
ORGANIZATION_ADMINS = Stored("ADMIN members of the organization (its creator is its first)")
FIRST_ADMIN = SignedIn("any signed-in caller, who becomes its first ADMIN member")
enum(Role)  # the stored roles are the schema's enum


@strawberry.input
class CreateOrganizationInput:
    name: str


@strawberry.input
class AddMemberInput:
    organization: str
    username: str
    name: str
    role: Role


def organization_mutations(derived: Roots) -> type[Any]:
    """One transaction each, held to the caller being an ADMIN member (but the first)."""

    async def create_organization(self: Any, info: Info, input: CreateOrganizationInput) -> Any:
        context = info.context
        made = await organizations.create_organization(
            context.store, input.name, caller=context.caller
        )
        return derived.node(ORGANIZATION, made)

    # A caller adding themselves is refused after two reads at most.
    async def add_member(self: Any, info: Info, input: AddMemberInput) -> Any:
        context = info.context
        added = await organizations.add_member(
            context.store,
            input.organization,
            input.username,
            input.name,
            input.role,
            caller=context.caller,
        )
        return derived.node(MEMBER, added)

    # One UpdateItem; for an ADMIN member changing another's role, a transaction and up to
    # two reads of the member (one read of the organization when refused instead); for any
    # other demotion, a read of the admins index, a transaction and up to two reads.
    async def set_member_role(
        self: Any, info: Info, organization: str, username: str, role: Role
    ) -> Any:
        context = info.context
        changed = await organizations.set_member_role(
            context.store, context.items, organization, username, role, caller=context.caller
        )
        return derived.node(MEMBER, changed)

    async def create_team(self: Any, info: Info, organization: str, name: str) -> Any:
        context = info.context
        made = await organizations.create_team(
            context.store, organization, name, caller=context.caller
        )
        return derived.node(TEAM, made)

    named = {"organization": (str, REQUIRED)}
    fields = {
        "createOrganization": mutation_with_cost(
            writes(organizations.create_organization), FIRST_ADMIN
        )(
            signed(
                create_organization,
                "createOrganization",
                {"input": (CreateOrganizationInput, REQUIRED)},
                derived.type_of(ORGANIZATION),
            )
        ),
        "addMember": mutation_with_cost(writes(organizations.add_member), ORGANIZATION_ADMINS)(
            signed(
                add_member,
                "addMember",
                {"input": (AddMemberInput, REQUIRED)},
                derived.type_of(MEMBER),
            )
        ),
        "setMemberRole": mutation_with_cost(
            writes(organizations.set_member_role), ORGANIZATION_ADMINS
        )(
            signed(
                set_member_role,
                "setMemberRole",
                {**named, "username": (str, REQUIRED), "role": (Role, REQUIRED)},
                derived.type_of(MEMBER),
            )
        ),
        "createTeam": mutation_with_cost(writes(organizations.create_team), ORGANIZATION_ADMINS)(
            signed(
                create_team,
                "createTeam",
                {**named, "name": (str, REQUIRED)},
                derived.type_of(TEAM),
            )
        ),
    }
    return strawberry.type(type("OrganizationsMutation", (), fields))
