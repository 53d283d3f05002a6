"""`dynagate remove`: a parent and every entity below it, in steps, for a parent with more
below it than one transaction removes (`data/writes/parents.py`).

The job takes the parent's mark over (an operator's command outranks a request's removal)
and renews it at every step, so no child is created meanwhile. Each step reads a batch of
each child entity's children and removes them, as many per transaction as fit in 100
actions, each held to what was read; a child changed meanwhile is read again at the next
step. When no child is found (an index waited out), the parent goes, held to the mark.
Killed at any point, the job run again takes the mark over and goes on from what is left:
what it removed is gone, and nothing it did not remove was touched.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from data.callers import OPEN
from data.clock import now
from data.entities import described
from data.writes.keeping import Action
from data.writes.kinds import keeping_of
from data.writes.parents import (
    INDEX_SETTLE,
    MOST_ACTIONS,
    close,
    places_below,
    read_children,
)
from data.writes.removal_marks import REMOVING, mark_of
from errors.vocabulary import Conflict
from model import Entity, Model
from store.client import Store
from store.errors import ConditionFailed, TransactionCanceled
from store.requests import Item, update_request

# The children of each entity one step reads.
STEP = 200
# Steps in a row that remove nothing, their children changing each time, before giving up.
STALLED_STEPS = 5


@dataclass
class Removed:
    """What the job removed, by entity name, and the steps it took."""

    counts: dict[str, int] = field(default_factory=dict)
    steps: int = 0


async def remove_in_steps(
    store: Store,
    model: Model,
    entity: Entity,
    arguments: Mapping[str, Any],
    *,
    report: Callable[[Removed], None] = lambda removed: None,
) -> Removed:
    """Remove the parent `arguments` name and everything below it (see the module)."""
    mark, parent = await close(
        store, entity, arguments, caller=OPEN, writer_only=False, take_over=True
    )
    key = keeping_of(entity).own_key(entity, parent)
    below = places_below(model, entity)
    lagging = any(not place.exact for place in below)
    removed = Removed()
    gone: set[tuple[str, ...]] = set()  # still in a lagging index for moments
    stalled = settled = 0
    while True:
        mark, parent = await _renewed(store, entity, arguments, key, mark)
        found = [await read_children(store, place, parent, entity, STEP) for place in below]
        batches = _batches(store.table, found, gone)
        if not batches:
            if lagging and not settled:
                settled = 1
                await asyncio.sleep(INDEX_SETTLE)  # what an index still lags behind shows now
                continue
            await _remove_parent(store, entity, arguments, parent, mark)
            removed.counts[entity.name] = 1
            report(removed)
            return removed
        settled = 0
        progress = 0
        for actions, children in batches:
            try:
                await store.transact(actions)
            except TransactionCanceled:
                continue  # one of them changed since read: read again at the next step
            for name, child_key in children:
                removed.counts[name] = removed.counts.get(name, 0) + 1
                gone.add(child_key)
            progress += len(children)
        removed.steps += 1
        report(removed)
        stalled = 0 if progress else stalled + 1
        if stalled >= STALLED_STEPS:
            raise Conflict(
                f"the entities below {described(entity, arguments)} keep changing; run the"
                " removal again"
            )


def _batches(
    table: str, found: list[Any], gone: set[tuple[str, ...]]
) -> list[tuple[list[Action], list[tuple[str, tuple[str, ...]]]]]:
    """The found children's removals, packed into transactions of at most 100 actions,
    with the children each removes; those removed already (an index lagging) left out."""
    batches: list[tuple[list[Action], list[tuple[str, tuple[str, ...]]]]] = []
    actions: list[Action] = []
    children: list[tuple[str, tuple[str, ...]]] = []
    for one in found:
        child = one.place.child
        for item in one.items:
            child_key = tuple(sorted(keeping_of(child).own_key(child, item).values()))
            if child_key in gone:
                continue
            more = keeping_of(child).removal(table, child, item, {})
            if actions and len(actions) + len(more) > MOST_ACTIONS:
                batches.append((actions, children))
                actions, children = [], []
            actions += more
            children.append((child.name, child_key))
    if actions:
        batches.append((actions, children))
    return batches


async def _renewed(
    store: Store, entity: Entity, arguments: Mapping[str, Any], key: dict[str, Any], mark: str
) -> tuple[str, Item]:
    """The mark made new (its lease starts again), and the parent as it is now."""
    renewed = mark_of(now())
    request = update_request(
        store.table,
        key,
        set_values={REMOVING: renewed},
        expect={REMOVING: mark},
        old_on_failure=True,
    )
    try:
        return renewed, await store.update(request)
    except ConditionFailed as exc:
        whose = "is gone" if exc.item is None else "is being removed by another run"
        raise Conflict(f"{described(entity, arguments)} {whose}; the removal stops") from None


async def _remove_parent(
    store: Store, entity: Entity, arguments: Mapping[str, Any], parent: Item, mark: str
) -> None:
    try:
        actions = keeping_of(entity).removal(store.table, entity, parent, {REMOVING: mark})
        await store.transact(actions)
    except TransactionCanceled as exc:
        raise exc.as_error(
            f"{described(entity, arguments)} changed meanwhile; run the removal again"
        ) from exc
