"""The demo's repositories, issues and stars, from their declarations
(`demo/model/repos.py`) and the model's hook (`demo/repos.py`), called as the tests call
each area's access patterns; and their keys, as the key tests look at them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from data import entities, entity_lists
from data.callers import OPEN, Caller
from data.collections import PageRead, Prefetched
from data.writes import entities as entity_writes
from demo import repos as hook
from demo.model import MODEL
from demo.model.repos import ISSUE, ISSUE_NUMBER_MAX, REPO, STAR, IssueState
from keys.codecs import NumberCodec
from keys.conditions import KeyCondition
from keys.table import TABLE
from model import ListOf, Update
from resolvers.derived_access import owns_parent
from store.client import TRANSACT_CALLS, Store
from store.cost import worst_case
from store.loaders import ItemLoader
from store.pagination import PageArgs, Paginator
from tests.records import Fields, RecordOf

__all__ = ["IssueState"]
[ISSUES] = [p for p in MODEL.of_kind(ListOf) if p.entity is ISSUE]
[STARS] = [p for p in MODEL.of_kind(ListOf) if p.entity is STAR]
[CLOSE] = [p for p in MODEL.of_kind(Update) if p.entity is ISSUE]
OPEN_ISSUE_ATTEMPTS = hook.OPEN_ISSUE_ATTEMPTS


Repo = RecordOf(REPO)
Issue = RecordOf(ISSUE)


@worst_case(requests=entity_writes.create_calls(MODEL, REPO))
async def create_repo(store: Store, owner: str, name: str, description: str | None) -> Fields:
    given = {"owner": owner, "name": name, "description": description}
    return Repo.of(await entity_writes.create(store, MODEL, REPO, given, caller=OPEN))


@worst_case(requests=1 + OPEN_ISSUE_ATTEMPTS, items=1)
async def open_issue(
    store: Store, owner: str, name: str, title: str, *, caller: Caller = OPEN
) -> Fields:
    return Issue.of(await hook.open_issue(store, owner, name, title, caller=caller))


_CLOSE, _CLOSE_ITEMS = entity_writes.update_calls(ISSUE, tuple(CLOSE.sets))


@worst_case(requests=_CLOSE, items=_CLOSE_ITEMS)
async def close_issue(
    store: Store, items: ItemLoader, owner: str, name: str, number: int, *, caller: Caller = OPEN
) -> Fields:
    arguments = {"owner": owner, "name": name, "number": number}
    # The repository's owner closes any of its issues; anyone else only their own.
    writer_only = not owns_parent(ISSUE, REPO, arguments, caller)
    closed = await entity_writes.update(
        store, items, ISSUE, arguments, {}, caller=caller, writer_only=writer_only, sets=CLOSE.sets
    )
    return Issue.of(closed)


@worst_case(requests=TRANSACT_CALLS + 1, items=1)
async def star_repo(store: Store, items: ItemLoader, owner: str, name: str, user: str) -> Fields:
    return Repo.of(await hook.star_repo(store, items, owner, name, user))


@worst_case(requests=TRANSACT_CALLS + 1, items=1)
async def unstar_repo(store: Store, items: ItemLoader, owner: str, name: str, user: str) -> Fields:
    return Repo.of(await hook.unstar_repo(store, items, owner, name, user))


def issues_read(
    owner: str, name: str, args: PageArgs, state: IssueState | None
) -> PageRead[entities.Record]:
    narrowing = entity_lists.narrowed(ISSUES, {}, only={"state": state})
    return entity_lists.list_read(ISSUES, REPO, {"owner": owner, "name": name}, args, narrowing)


def stars_read(owner: str, name: str, args: PageArgs) -> PageRead[entities.Record]:
    return entity_lists.list_read(STARS, REPO, {"owner": owner, "name": name}, args)


async def load_repo(
    items: ItemLoader,
    pages: Paginator,
    owner: str,
    name: str,
    reads: Mapping[str, PageRead[Any]],
) -> tuple[Fields | None, Prefetched]:
    names = {"owner": owner, "name": name}
    found, prefetched = await entities.load_with_lists(items, pages, REPO, names, reads)
    return (None if found is None else Repo.of(found)), prefetched


def issue_changes(
    owner: str, name: str, state: IssueState | None
) -> tuple[tuple[str, str], Callable[[Any], bool]]:
    """The topic `issueChanges` follows for these arguments, and which states match."""
    narrowed = entity_lists.narrowed(ISSUES, {}, only={"state": state})
    wanted = entity_lists.topic_of(ISSUE, ("owner", "name"), {"owner": owner, "name": name})
    return ("issueChanges", wanted), lambda state: narrowed.contains(ISSUES, state)


# ---- keys, as the key tests look at them -------------------------------------------------

REPO_TEMPLATE = REPO.templates[TABLE.partition_key]
ISSUE_TEMPLATE = ISSUE.templates[TABLE.sort_key]
STAR_TEMPLATE = STAR.templates[TABLE.sort_key]
ISSUE_NUMBER = NumberCodec(len(str(ISSUE_NUMBER_MAX)))
ISSUE_WARNING_LEVEL = hook.ISSUE_WARNING_LEVEL


def repo_key(owner: str, name: str) -> dict[str, str]:
    return REPO.primary_key({"owner": owner, "name": name})


def issue_key(owner: str, name: str, number: int) -> dict[str, str]:
    return ISSUE.primary_key({"owner": owner, "name": name, "number": number})


def star_key(owner: str, name: str, username: str) -> dict[str, str]:
    return STAR.primary_key({"owner": owner, "name": name, "username": username})


def repo_issues(owner: str, name: str) -> KeyCondition:
    return issues_read(owner, name, PageArgs(1, False, None), None).condition


def repo_stars(owner: str, name: str) -> KeyCondition:
    return stars_read(owner, name, PageArgs(1, False, None)).condition


def past_warning_level(number: int) -> bool:
    return number > ISSUE_WARNING_LEVEL
