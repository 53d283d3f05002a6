"""The fields of the organizations' hook (`demo/organizations.py`): `createOrganization`,
`addMember`, `setMemberRole` and `createTeam`, answering with the declared entities'
types (`Roots.type_of`)."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry

from demo import organizations
from demo.model.organizations import MEMBER, ORGANIZATION, TEAM, Role
from dynagate import (
    REQUIRED,
    Context,
    Roots,
    SignedIn,
    Stored,
    enum,
    mutation_with_cost,
    signed,
    writes,
)

Info = strawberry.Info[Context, None]
ORGANIZATION_ADMINS = Stored("ADMIN members of the organization (its creator is its first)")
FIRST_ADMIN = SignedIn("any signed-in caller, who becomes its first ADMIN member")
enum(Role)  # the stored roles are the schema's enum


ORGANIZATION_NAME = "The organization's name, in any case."
USERNAME = "The member's username, in any case."


@strawberry.input(description="The organization to create, its caller its first ADMIN member.")
class CreateOrganizationInput:
    name: str = strawberry.field(description="Its name: 1 to 64 letters, digits, '.', '_', '-'.")


@strawberry.input(description="The member to add to an organization, and their role.")
class AddMemberInput:
    organization: str = strawberry.field(description=ORGANIZATION_NAME)
    username: str = strawberry.field(description=USERNAME)
    name: str = strawberry.field(description="The member's name as shown, 1 to 200 characters.")
    role: Role = strawberry.field(description="What the member may do in it.")


def _argument(kind: Any, description: str) -> Any:
    """An argument's type, with its description."""
    return Annotated[kind, strawberry.argument(description=description)]


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

    named = {"organization": (_argument(str, ORGANIZATION_NAME), REQUIRED)}
    fields = {
        "createOrganization": mutation_with_cost(
            writes(organizations.create_organization), FIRST_ADMIN
        )(
            signed(
                create_organization,
                "createOrganization",
                {"input": (_argument(CreateOrganizationInput, "The new organization."), REQUIRED)},
                derived.type_of(ORGANIZATION),
            )
        ),
        "addMember": mutation_with_cost(writes(organizations.add_member), ORGANIZATION_ADMINS)(
            signed(
                add_member,
                "addMember",
                {"input": (_argument(AddMemberInput, "The new member."), REQUIRED)},
                derived.type_of(MEMBER),
            )
        ),
        "setMemberRole": mutation_with_cost(
            writes(organizations.set_member_role), ORGANIZATION_ADMINS
        )(
            signed(
                set_member_role,
                "setMemberRole",
                {
                    **named,
                    "username": (_argument(str, USERNAME), REQUIRED),
                    "role": (_argument(Role, "The member's new role."), REQUIRED),
                },
                derived.type_of(MEMBER),
            )
        ),
        "createTeam": mutation_with_cost(writes(organizations.create_team), ORGANIZATION_ADMINS)(
            signed(
                create_team,
                "createTeam",
                {**named, "name": (_argument(str, "The new team's name."), REQUIRED)},
                derived.type_of(TEAM),
            )
        ),
    }
    said = {
        "createOrganization": "Creates an organization, its caller its first ADMIN member.",
        "addMember": "Adds a member to an organization, by one of its ADMIN members.",
        "setMemberRole": "Changes a member's role, keeping the organization's last ADMIN.",
        "createTeam": "Creates a team in an organization, at most 100 of them.",
    }
    for name, description in said.items():
        fields[name].description = description
    return strawberry.type(type("OrganizationsMutation", (), fields))
