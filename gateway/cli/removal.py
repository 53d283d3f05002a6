"""`dynagate remove ENTITY NAME=VALUE…`: a parent and everything below it, in steps
(`data/writes/removal_steps.py`), for a parent with more below it than its delete removes in one
call (docs/model.md#removing-a-parent). Resumable: stopped at any point and run again, it
goes on with what is left. Exit status: 0 removed, 1 not (the reason printed)."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from typing import Any

from data.entities import checked
from data.writes.removal_steps import Removed, remove_in_steps
from errors.vocabulary import DynagateError
from gateway.cli.errors import CommandFailed
from gateway.served_model import declared
from gateway.settings import Settings
from model import Entity, Model
from store.client import Store


def remove(args: argparse.Namespace) -> int:
    settings = Settings.from_env(serving=False)
    model = declared(settings.model)
    entity = _parent(model, args.entity)
    arguments = key_arguments(entity, args.key)

    def report(removed: Removed) -> None:
        counts = ", ".join(f"{n} {name}" for name, n in sorted(removed.counts.items()))
        print(f"step {removed.steps}: removed {counts or 'nothing yet'}", flush=True)

    async def go() -> Removed:
        async with settings.open_client() as client:
            store = Store(client, settings.table, layout=model.table_layout)
            return await remove_in_steps(store, model, entity, arguments, report=report)

    try:
        removed = asyncio.run(go())
    except DynagateError as exc:
        raise CommandFailed(str(exc)) from None
    below = sum(n for name, n in removed.counts.items() if name != entity.name)
    print(f"removed {entity.noun} {' '.join(args.key)} and {below:,} entities below it")
    return 0


def _parent(model: Model, name: str) -> Entity:
    found = [e for e in model.entities if e.name == name]
    if not found:
        names = ", ".join(e.name for e in model.entities)
        raise CommandFailed(f"the model has no entity {name!r} (it has {names})")
    entity = found[0]
    if not model.children_of(entity):
        raise CommandFailed(f"{name} is the parent of no entity: remove it with its mutation")
    return entity


def key_arguments(entity: Entity, pairs: Sequence[str]) -> dict[str, Any]:
    """`id=v1` … as the entity's key values, each checked as a client's would be."""
    given: dict[str, str] = {}
    for pair in pairs:
        name, sign, value = pair.partition("=")
        if not sign or name not in entity.key_attributes:
            wanted = " ".join(f"{n}=…" for n in entity.key_attributes)
            raise CommandFailed(f"{pair!r}: give the {entity.noun}'s key as {wanted}")
        given[name] = value
    missing = [n for n in entity.key_attributes if n not in given]
    if missing:
        raise CommandFailed(f"give the {entity.noun}'s {', '.join(missing)}")
    values = {}
    for name, text in given.items():
        attribute = entity.attributes[name]
        try:
            values[name] = checked(attribute, attribute.from_text(text), name)
        except (ValueError, DynagateError) as exc:
            raise CommandFailed(f"{name}={text!r}: {exc}") from None
    return values
