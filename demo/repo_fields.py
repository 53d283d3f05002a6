"""The fields of the repositories' hook (`demo/repos.py`): `openIssue`, `starRepo` and
`unstarRepo`, answering with the declared entities' types, which exist once the model's
root types are made (`Roots.type_of`)."""

from __future__ import annotations

from typing import Any

import strawberry

from demo import repos
from demo.model.repos import ISSUE, REPO
from resolvers.access import AUTHOR, Themselves
from resolvers.context import Context
from resolvers.cost import mutation_with_cost, writes
from resolvers.derived_arguments import REQUIRED, signed
from resolvers.derived_roots import Roots

Info = strawberry.Info[Context, None]
AS_USERNAME = Themselves("the caller, as `username`", "username", "username", fold_case=True)
NAMED = {"owner": (str, REQUIRED), "name": (str, REQUIRED), "username": (str, REQUIRED)}


@strawberry.input
class OpenIssueInput:
    owner: str
    name: str
    title: str


def issue_mutation(derived: Roots) -> type[Any]:
    """`openIssue`: the next number of the repository, gapless."""

    async def open_issue(self: Any, info: Info, input: OpenIssueInput) -> Any:
        context = info.context
        opened = await repos.open_issue(
            context.store, input.owner, input.name, input.title, caller=context.caller
        )
        return derived.node(ISSUE, opened)

    parameters = {"input": (OpenIssueInput, REQUIRED)}
    field = mutation_with_cost(writes(repos.open_issue), AUTHOR)(
        signed(open_issue, "openIssue", parameters, derived.type_of(ISSUE))
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
    return strawberry.type(type("StarMutation", (), fields))
