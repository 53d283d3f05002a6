"""Repositories, their issues and stars: records, gapless issue numbers and exact star
counts."""

from __future__ import annotations

import asyncio
import logging
import random
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from data import validation
from data.callers import AUTHOR_KEY, OPEN, Caller, author_of
from data.clock import new_token, now
from data.collections import PageRead, Prefetched, load_with_pages
from data.creates import put_new
from keys import repos as repo_keys
from keys.codecs import format_timestamp, parse_timestamp
from keys.errors import Conflict, Forbidden, NotFound
from keys.repos import IssueState as IssueState
from keys.table import TABLE
from store.client import TRANSACT_CALLS, Store
from store.cost import worst_case
from store.cursors import Binding
from store.errors import ConditionFailed, TransactionCanceled
from store.loaders import ItemLoader
from store.pagination import PageArgs, Paginator
from store.requests import (
    Filter,
    Item,
    transaction_delete,
    transaction_put,
    transaction_update,
    update_request,
)

logger = logging.getLogger("dynagate.repos")

# openIssue re-reads the counter and tries again when another call took the number, with
# random pauses growing to about a second; past the last attempt it answers CONFLICT.
OPEN_ISSUE_ATTEMPTS = 40
_PAUSE_STEP = 0.005
_PAUSE_MAX = 1.0
REPO_TYPE = "REPO"


@dataclass(frozen=True)
class Repo:
    owner: str
    name: str
    description: str | None
    created_at: datetime
    star_count: int

    @classmethod
    def from_item(cls, item: Item) -> Repo:
        return cls(
            owner=item["owner"],
            name=item["name"],
            description=item.get("description"),
            created_at=parse_timestamp(item["createdAt"]),
            star_count=item["starCount"],
        )


@dataclass(frozen=True)
class Issue:
    number: int
    title: str
    state: IssueState
    created_at: datetime
    # Who opened it; None for an issue opened in open mode.
    author: str | None

    @classmethod
    def from_item(cls, item: Item) -> Issue:
        return cls(
            number=item["number"],
            title=item["title"],
            state=IssueState(item["state"]),
            created_at=parse_timestamp(item["createdAt"]),
            author=author_of(item),
        )


@dataclass(frozen=True)
class Star:
    username: str
    starred_at: datetime

    @classmethod
    def from_item(cls, item: Item) -> Star:
        return cls(item["username"], parse_timestamp(item["starredAt"]))


def _names(owner: str, name: str) -> tuple[str, str]:
    return validation.ident(owner, "owner"), validation.ident(name, "name")


def repo_item(owner: str, name: str, description: str | None) -> Item:
    item: Item = {
        **repo_keys.repo_key(owner, name),
        "type": REPO_TYPE,
        "owner": owner,
        "name": name,
        "createdAt": format_timestamp(now()),
        "starCount": 0,
        "issueCount": 0,
    }
    if description is not None:
        item["description"] = validation.text(description, "description", multiline=True)
    return item


@worst_case(requests=1)
async def create_repo(store: Store, owner: str, name: str, description: str | None) -> Repo:
    item = repo_item(*_names(owner, name), description)
    await put_new(store, item, f"repository {owner}/{name} already exists")
    return Repo.from_item(item)


# One lock per repository being numbered in this process (dropped when no call holds it).
_OPENING: weakref.WeakValueDictionary[tuple[str, str], asyncio.Lock] = weakref.WeakValueDictionary()


@worst_case(requests=1 + OPEN_ISSUE_ATTEMPTS, items=1)
async def open_issue(
    store: Store, owner: str, name: str, title: str, *, caller: Caller = OPEN
) -> Issue:
    """The next issue of the repository: its counter and the issue change in one transaction.

    The counter update is conditional on the value read, so two calls can never take the
    same number, and a number is used only if its issue is written: no gaps, no repeats.
    A call that lost the race learns the new count from the cancellation itself, so each
    attempt after the first read is one call: at most `1 + OPEN_ISSUE_ATTEMPTS` in all.
    Calls for one repository take turns within a process, so they race only with other
    processes.
    """
    owner, name = _names(owner, name)
    validation.text(title, "title")
    turn = _OPENING.setdefault((owner.lower(), name.lower()), asyncio.Lock())
    async with turn:
        return await _open_issue(store, caller, owner, name, title)


async def _open_issue(store: Store, caller: Caller, owner: str, name: str, title: str) -> Issue:
    key = repo_keys.repo_key(owner, name)
    repo = await store.get(key, consistent=True)
    for attempt in range(OPEN_ISSUE_ATTEMPTS):
        if repo is None:
            raise NotFound(f"repository {owner}/{name} does not exist")
        previous = int(repo["issueCount"])
        number = previous + 1
        if number > repo_keys.ISSUE_NUMBER.maximum:
            raise Conflict(f"repository {owner}/{name} has used every issue number")
        created = format_timestamp(now())
        issue = {
            **repo_keys.issue_key(owner, name, number),
            "type": "ISSUE",
            "number": number,
            "title": title,
            "state": IssueState.OPEN,
            "createdAt": created,
            "updatedAt": created,
            **caller.authored(),
        }
        counter = update_request(
            store.table,
            key,
            set_values={"issueCount": number},
            condition="#issueCount = :previous",
            condition_values={":previous": previous},
            old_on_failure=True,
        )
        actions = [
            transaction_update(counter),
            transaction_put(store.table, issue, must_be_new=True),
        ]
        try:
            await store.transact(actions, resend_conflicts=False)
        except TransactionCanceled as exc:
            if exc.failed(0):
                # Another call took this number first: the stored repository (or its
                # absence) came back with the cancellation.
                repo = exc.items[0]
            elif exc.reasons[:1] != ["TransactionConflict"]:
                raise exc.as_error("the issue could not be opened; try again") from exc
            await asyncio.sleep(random.uniform(0, min(_PAUSE_STEP * 2**attempt, _PAUSE_MAX)))
            continue
        if repo_keys.past_warning_level(number):
            logger.warning(
                "repository %s/%s opened issue %d: past 30%% of the %d-digit issue-number key",
                owner,
                name,
                number,
                repo_keys.ISSUE_NUMBER_WIDTH,
            )
        return Issue.from_item(issue)
    raise Conflict(f"repository {owner}/{name} is taking many issues at once; try again")


@worst_case(requests=1)
async def close_issue(
    store: Store, items: ItemLoader, owner: str, name: str, number: int, *, caller: Caller = OPEN
) -> Issue:
    """Close an issue as the repository's owner (known from the arguments) or as its author,
    whom the update's own condition checks: the refusal brings back the stored issue, or
    nothing when there is none, which tells FORBIDDEN from NOT_FOUND with no read."""
    owner, name = _names(owner, name)
    validation.number(number, "number", 1, repo_keys.ISSUE_NUMBER.maximum)
    author = _author_required(caller, owner)
    key = repo_keys.issue_key(owner, name, number)
    request = update_request(
        store.table,
        key,
        set_values={"state": IssueState.CLOSED, "updatedAt": format_timestamp(now())},
        expect=None if author is None else {AUTHOR_KEY: author},
        # The stored issue on a refusal, and a move whose answers were lost found done.
        token=new_token(),
    )
    try:
        issue = await store.update(request)
    except ConditionFailed as exc:
        if exc.item is None:
            raise NotFound(f"repository {owner}/{name} has no issue {number}") from None
        raise Forbidden(
            f"issue {number} of {owner}/{name} is neither yours nor in your repository"
        ) from None
    items.refresh(key, issue)
    return Issue.from_item(issue)


def _author_required(caller: Caller, owner: str) -> str | None:
    """The author key the issue must hold for `caller` to close it; None when any will do."""
    if caller.is_user(owner):
        return None
    return caller.restriction("sign in to close an issue")


@worst_case(requests=TRANSACT_CALLS + 1, items=1)
async def star_repo(store: Store, items: ItemLoader, owner: str, name: str, user: str) -> Repo:
    """Star once: the star and the count change together, and a second star changes nothing."""
    owner, name = _names(owner, name)
    star = {
        **repo_keys.star_key(owner, name, validation.ident(user, "username")),
        "type": "STAR",
        "username": user,
        "starredAt": format_timestamp(now()),
    }
    count = update_request(store.table, repo_keys.repo_key(owner, name), add={"starCount": 1})
    actions = [transaction_put(store.table, star, must_be_new=True), transaction_update(count)]
    return await _change_stars(store, items, owner, name, actions)


@worst_case(requests=TRANSACT_CALLS + 1, items=1)
async def unstar_repo(store: Store, items: ItemLoader, owner: str, name: str, user: str) -> Repo:
    """Unstar: removing a star that is not there changes nothing."""
    owner, name = _names(owner, name)
    key = repo_keys.star_key(owner, name, validation.ident(user, "username"))
    count = update_request(store.table, repo_keys.repo_key(owner, name), add={"starCount": -1})
    actions = [transaction_delete(store.table, key, must_exist=True), transaction_update(count)]
    return await _change_stars(store, items, owner, name, actions)


async def _change_stars(
    store: Store, items: ItemLoader, owner: str, name: str, actions: list[Item]
) -> Repo:
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        # The second action needs the repository; the first failing alone means the star
        # was already there (or already gone), which is no change at all.
        if exc.failed(1):
            raise NotFound(f"repository {owner}/{name} does not exist") from exc
        if not exc.failed(0):
            raise exc.as_error("the star could not be changed; try again") from exc
    key = repo_keys.repo_key(owner, name)
    repo = await store.get(key, consistent=True)
    if repo is None:
        raise NotFound(f"repository {owner}/{name} does not exist")
    items.refresh(key, repo)
    return Repo.from_item(repo)


def issues_read(owner: str, name: str, args: PageArgs, state: IssueState | None) -> PageRead[Issue]:
    """Highest number first. A state is a FilterExpression: docs/design.md says why."""
    owner, name = _names(owner, name)
    condition = repo_keys.repo_issues(owner, name)
    # The repository item passes too, for the page read together with it.
    in_state = (
        None
        if state is None
        else Filter(
            "#state = :state OR #type = :repo",
            {":state": state, ":repo": REPO_TYPE},
            {"#state": "state", "#type": "type"},
            passes_parent=True,
        )
    )
    binding = Binding("Repo.issues", condition.partition, {"state": state})
    parent = repo_keys.repo_key(owner, name)[TABLE.sort_key]
    return PageRead(
        condition,
        binding,
        args,
        forward=False,
        record=Issue.from_item,
        filter=in_state,
        parent=parent,
    )


def stars_read(owner: str, name: str, args: PageArgs) -> PageRead[Star]:
    """Usernames A→Z, ignoring case."""
    owner, name = _names(owner, name)
    condition = repo_keys.repo_stars(owner, name)
    binding = Binding("Repo.stars", condition.partition, {})
    parent = repo_keys.repo_key(owner, name)[TABLE.sort_key]
    return PageRead(condition, binding, args, forward=True, record=Star.from_item, parent=parent)


async def load_repo(
    items: ItemLoader,
    pages: Paginator,
    owner: str,
    name: str,
    reads: Mapping[str, PageRead[Any]],
) -> tuple[Repo | None, Prefetched]:
    """The repository, with the first pages of `reads` read in the same Queries."""
    key = repo_keys.repo_key(*_names(owner, name))
    item, prefetched = await load_with_pages(items, key, pages, reads)
    return (None if item is None else Repo.from_item(item)), prefetched
