"""Repositories with their issues and stars (seeds 000 and 001)."""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

import strawberry

from data import repos as data
from data.collections import ENTRY_BYTES, PageRead, Prefetched, page_for
from data.repos import IssueState
from resolvers import lookahead
from resolvers.access import ANYONE, AUTHOR, Stored, Themselves
from resolvers.context import Context
from resolvers.cost import entity, field_with_cost, item_read, mutation_with_cost, page_read, writes
from resolvers.records import FromRecord, mirrored, written_by
from resolvers.relay import NOT_GIVEN, Connection, connection_field, given
from store.pagination import Page, PageArgs

Info = strawberry.Info[Context, None]
AS_USERNAME = Themselves("the caller, as `username`", "username", "username", fold_case=True)
T = TypeVar("T")

# The stored states are the schema's enum.
strawberry.enum(IssueState)


@strawberry.type
class Issue(FromRecord):
    number: int
    title: str
    state: IssueState
    created_at: datetime
    author: str | None = written_by("opened", "an issue")


@strawberry.type
class Star(FromRecord):
    username: str
    starred_at: datetime


@strawberry.type
class Repo:
    owner: str
    name: str
    description: str | None
    created_at: datetime
    star_count: int
    prefetched: strawberry.Private[Prefetched]

    @classmethod
    def from_record(cls, repo: data.Repo, prefetched: Prefetched | None = None) -> Repo:
        return mirrored(cls, repo, prefetched=prefetched or {})

    @connection_field(page_read(ENTRY_BYTES, filtered=lambda args: args.get("state") is not None))
    async def issues(
        self,
        info: Info,
        page: PageArgs,
        state: IssueState | None = NOT_GIVEN,
    ) -> Connection[Issue]:
        """Highest number first."""
        read = data.issues_read(self.owner, self.name, page, given(state))
        return Connection.from_page(await self._page(info, read), Issue.from_record)

    @connection_field(page_read(ENTRY_BYTES))
    async def stars(
        self,
        info: Info,
        page: PageArgs,
    ) -> Connection[Star]:
        """Usernames A→Z, ignoring case."""
        read = data.stars_read(self.owner, self.name, page)
        return Connection.from_page(await self._page(info, read), Star.from_record)

    async def _page(self, info: Info, read: PageRead[T]) -> Page[T]:
        return await page_for(self.prefetched, str(info.path.key), read, info.context.pages)


@strawberry.input
class CreateRepoInput:
    owner: str
    name: str
    description: str | None = NOT_GIVEN


@strawberry.input
class OpenIssueInput:
    owner: str
    name: str
    title: str


@strawberry.type
class ReposQuery:
    # The repository and, in the same Queries, its first pages selected below: each such
    # Query stands in for the page read its field declares.
    @field_with_cost(item_read(entity("Repo", "owner", "name", fold_case=True)), ANYONE)
    async def repo(self, info: Info, owner: str, name: str) -> Repo | None:
        """With `issues` or `stars` selected, the repository and their first page are one
        Query each: the repository item sits between its issues and its stars."""
        reads = lookahead.child_reads(
            info,
            {
                "issues": lambda a: data.issues_read(
                    owner,
                    name,
                    lookahead.page_args(a),
                    lookahead.enum_value(IssueState, a.get("state")),
                ),
                "stars": lambda a: data.stars_read(owner, name, lookahead.page_args(a)),
            },
        )
        repo, prefetched = await data.load_repo(
            info.context.items, info.context.pages, owner, name, reads
        )
        return None if repo is None else Repo.from_record(repo, prefetched)


@strawberry.type
class ReposMutation:
    @mutation_with_cost(
        writes(data.create_repo),
        Themselves("the caller, as `owner`", "input.owner", "owner", fold_case=True),
    )
    async def create_repo(self, info: Info, input: CreateRepoInput) -> Repo:
        repo = await data.create_repo(
            info.context.store, input.owner, input.name, given(input.description)
        )
        return Repo.from_record(repo)

    @mutation_with_cost(writes(data.open_issue), AUTHOR)
    async def open_issue(self, info: Info, input: OpenIssueInput) -> Issue:
        context = info.context
        issue = await data.open_issue(
            context.store, input.owner, input.name, input.title, caller=context.caller
        )
        return Issue.from_record(issue)

    @mutation_with_cost(
        writes(data.close_issue), Stored("the repository's owner or the issue's author")
    )
    async def close_issue(self, info: Info, owner: str, name: str, number: int) -> Issue:
        context = info.context
        issue = await data.close_issue(
            context.store, context.items, owner, name, number, caller=context.caller
        )
        return Issue.from_record(issue)

    @mutation_with_cost(writes(data.star_repo), AS_USERNAME)
    async def star_repo(self, info: Info, owner: str, name: str, username: str) -> Repo:
        context = info.context
        repo = await data.star_repo(context.store, context.items, owner, name, username)
        return Repo.from_record(repo)

    @mutation_with_cost(writes(data.unstar_repo), AS_USERNAME)
    async def unstar_repo(self, info: Info, owner: str, name: str, username: str) -> Repo:
        context = info.context
        repo = await data.unstar_repo(context.store, context.items, owner, name, username)
        return Repo.from_record(repo)
