"""The fields of the repositories' hook (`demo/repos.py`): `openIssue`, `starRepo` and
`unstarRepo`, answering with the declared entities' types, which exist once the model's
root types are made (`Roots.type_of`)."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry

from demo import repos
from demo.model.repos import ISSUE, REPO
from dynagate import (
    AUTHOR,
    REQUIRED,
    Context,
    Roots,
    Themselves,
    mutation_with_cost,
    signed,
    writes,
)

Info = strawberry.Info[Context, None]
AS_USERNAME = Themselves("the caller, as `username`", "username", "username", fold_case=True)
OWNER = "The repository's owner, in any case."
NAME = "The repository's name, in any case."
NAMED = {
    "owner": (Annotated[str, strawberry.argument(description=OWNER)], REQUIRED),
    "name": (Annotated[str, strawberry.argument(description=NAME)], REQUIRED),
    "username": (
        Annotated[str, strawberry.argument(description="Whose star: the caller's username.")],
        REQUIRED,
    ),
}


@strawberry.input(description="The repository to open an issue in, and the issue's title.")
class OpenIssueInput:
    owner: str = strawberry.field(description=OWNER)
    name: str = strawberry.field(description=NAME)
    title: str = strawberry.field(description="The issue's title, 1 to 200 characters.")


def issue_mutation(derived: Roots) -> type[Any]:
    """`openIssue`: the next number of the repository, gapless."""

    async def open_issue(self: Any, info: Info, input: OpenIssueInput) -> Any:
        context = info.context
        opened = await repos.open_issue(
            context.store, input.owner, input.name, input.title, caller=context.caller
        )
        return derived.node(ISSUE, opened)

    issue = Annotated[OpenIssueInput, strawberry.argument(description="The issue to open.")]
    parameters = {"input": (issue, REQUIRED)}
    field = mutation_with_cost(writes(repos.open_issue), AUTHOR)(
        signed(open_issue, "openIssue", parameters, derived.type_of(ISSUE))
    )
    field.description = (
        "Opens an issue numbered after the repository's last, gapless: its counter and the"
        " issue in one transaction."
    )
    return strawberry.type(type("OpenIssueMutation", (), {"openIssue": field}))


def star_mutations(derived: Roots) -> type[Any]:
    """`starRepo` and `unstarRepo`: the star and the repository's count, together."""

    async def star(self: Any, info: Info, owner: str, name: str, username: str) -> Any:
        context = info.context
        starred = await repos.star_repo(context.store, context.items, owner, name, username)
        return derived.node(REPO, starred)

    async def unstar(self: Any, info: Info, owner: str, name: str, username: str) -> Any:
        context = info.context
        unstarred = await repos.unstar_repo(context.store, context.items, owner, name, username)
        return derived.node(REPO, unstarred)

    repo = derived.type_of(REPO)
    fields = {
        "starRepo": mutation_with_cost(writes(repos.star_repo), AS_USERNAME)(
            signed(star, "starRepo", NAMED, repo)
        ),
        "unstarRepo": mutation_with_cost(writes(repos.unstar_repo), AS_USERNAME)(
            signed(unstar, "unstarRepo", NAMED, repo)
        ),
    }
    fields["starRepo"].description = "Stars a repository: the star and its count together."
    fields["unstarRepo"].description = "Takes a star back: the star and its count together."
    return strawberry.type(type("StarMutation", (), fields))
