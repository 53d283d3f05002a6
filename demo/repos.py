"""What no declaration covers of the demo's repositories, plugged in through the model's
hook (docs/model.md#the-hook): gapless issue numbers and exact star counts, written over
the declared entities (`demo/model/repos.py`), whose keys and items they render."""

from __future__ import annotations

import asyncio
import logging
import random
import weakref
from typing import Any

from demo.counts import counted_put
from demo.model.repos import ISSUE, ISSUE_NUMBER_MAX, REPO, STAR
from dynagate import (
    OPEN,
    TRANSACT_CALLS,
    Caller,
    Conflict,
    Item,
    ItemLoader,
    NotFound,
    Record,
    Store,
    TransactionCanceled,
    checked,
    described,
    new_items,
    now,
    record,
    transaction_delete,
    transaction_put,
    transaction_update,
    update_request,
    worst_case,
)

logger = logging.getLogger("dynagate.repos")

# openIssue re-reads the counter and tries again when another call took the number, with
# random pauses growing to about a second; past the last attempt it answers CONFLICT.
OPEN_ISSUE_ATTEMPTS = 40
_PAUSE_STEP = 0.005
_PAUSE_MAX = 1.0
# 30% of the numbers the key's width can hold: 30,000,000 for eight digits.
ISSUE_WARNING_LEVEL = (ISSUE_NUMBER_MAX + 1) * 3 // 10


def _repo(owner: str, name: str) -> dict[str, Any]:
    """The repository's key values, checked as its attributes."""
    return {n: checked(REPO.attributes[n], v, n) for n, v in (("owner", owner), ("name", name))}


def _missing(names: dict[str, Any]) -> NotFound:
    return NotFound(f"{described(REPO, names)} does not exist")


# One lock per repository being numbered in this process (dropped when no call holds it).
_OPENING: weakref.WeakValueDictionary[tuple[str, str], asyncio.Lock] = weakref.WeakValueDictionary()


@worst_case(requests=1 + OPEN_ISSUE_ATTEMPTS, items=1)
async def open_issue(
    store: Store, owner: str, name: str, title: str, *, caller: Caller = OPEN
) -> Record:
    """The next issue of the repository: its counter and the issue change in one transaction.

    The counter update is conditional on the value read, so two calls can never take the
    same number, and a number is used only if its issue is written: no gaps, no repeats.
    A call that lost the race learns the new count from the cancellation itself, so each
    attempt after the first read is one call: at most `1 + OPEN_ISSUE_ATTEMPTS` in all.
    Calls for one repository take turns within a process, so they race only with other
    processes.
    """
    names = _repo(owner, name)
    checked(ISSUE.attributes["title"], title, "title")
    turn = _OPENING.setdefault((names["owner"].lower(), names["name"].lower()), asyncio.Lock())
    async with turn:
        return await _open_issue(store, caller, names, title)


async def _open_issue(store: Store, caller: Caller, names: dict[str, Any], title: str) -> Record:
    key = REPO.primary_key(names)
    repo = await store.get(key, consistent=True)
    for attempt in range(OPEN_ISSUE_ATTEMPTS):
        if repo is None:
            raise _missing(names)
        previous = int(repo["issueCount"])
        number = previous + 1
        if number > ISSUE_NUMBER_MAX:
            raise Conflict(f"{described(REPO, names)} has used every issue number")
        current = now()
        given = {**names, "number": number, "title": title}
        _, issue, _ = new_items(ISSUE, given, caller=caller, created=current, current=current)
        actions = counted_put(
            store,
            issue,
            key,
            "#issueCount = :previous",
            set_values={"issueCount": number},
            condition_values={":previous": previous},
        )
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
        if number > ISSUE_WARNING_LEVEL:
            logger.warning(
                "repository %s/%s opened issue %d: past 30%% of the %d-digit issue-number key",
                names["owner"],
                names["name"],
                number,
                len(str(ISSUE_NUMBER_MAX)),
            )
        return record(ISSUE, issue)
    raise Conflict(f"{described(REPO, names)} is taking many issues at once; try again")


@worst_case(requests=TRANSACT_CALLS + 1, items=1)
async def star_repo(
    store: Store, items: ItemLoader, owner: str, name: str, username: str
) -> Record:
    """Star once: the star and the count change together, and a second star changes nothing."""
    names = _repo(owner, name)
    given = {**names, "username": username}
    current = now()
    _, star, _ = new_items(STAR, given, caller=OPEN, created=current, current=current)
    count = update_request(store.table, REPO.primary_key(names), add={"starCount": 1})
    actions = [
        transaction_put(store.table, star, new_on=store.layout.table),
        transaction_update(count),
    ]
    return await _change_stars(store, items, names, actions)


@worst_case(requests=TRANSACT_CALLS + 1, items=1)
async def unstar_repo(
    store: Store, items: ItemLoader, owner: str, name: str, username: str
) -> Record:
    """Unstar: removing a star that is not there changes nothing."""
    names = _repo(owner, name)
    star = {**names, "username": checked(STAR.attributes["username"], username, "username")}
    count = update_request(store.table, REPO.primary_key(names), add={"starCount": -1})
    actions = [
        transaction_delete(store.table, STAR.primary_key(star), must_exist=True),
        transaction_update(count),
    ]
    return await _change_stars(store, items, names, actions)


async def _change_stars(
    store: Store, items: ItemLoader, names: dict[str, Any], actions: list[Item]
) -> Record:
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        # The second action needs the repository; the first failing alone means the star
        # was already there (or already gone), which is no change at all.
        if exc.failed(1):
            raise _missing(names) from exc
        if not exc.failed(0):
            raise exc.as_error("the star could not be changed; try again") from exc
    key = REPO.primary_key(names)
    repo = await store.get(key, consistent=True)
    if repo is None:
        raise _missing(names)
    items.refresh(key, repo)
    return record(REPO, repo)
