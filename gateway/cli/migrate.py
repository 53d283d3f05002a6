"""`dynagate migrate plan|apply` and the model's part of `dynagate verify`: the table and its
items compared with the model, and brought to it (docs/model.md#changing-a-model).

Exit codes: `plan` 0 when nothing is to change, 1 when `apply` has work or items are left
as they are, 2 when the model asks what no migration does (an index's keys changed in
place); `apply` and `verify` 0
when every item is the model's, 1 when some are left (reported), 2 as `plan`.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from data.migration.checkpoint import Checkpoint, MigrationBusy
from data.migration.items import fingerprint
from data.migration.passes import Pass, Tally, WriteBudget, index_attributes, run
from gateway.cli.errors import CommandFailed
from gateway.served_model import declared
from gateway.settings import Settings
from keys.table import Index
from model import Model
from store.client import Store
from store.tables import add_index, describe, differing_indexes, missing_indexes

if TYPE_CHECKING:
    from store.client import DynamoDBClient

# How long `apply` waits for DynamoDB to build one index (a large table's takes a while).
INDEX_WAIT_SECONDS = 6 * 3600.0
SHOWN = 10


@dataclass(frozen=True)
class TableState:
    description: dict[str, Any]
    missing: list[Index]
    differing: list[str]
    unused: list[str]


async def table_state(client: DynamoDBClient, table: str, model: Model) -> TableState:
    description = await describe(client, table)
    if description is None:
        raise CommandFailed(f"table {table!r} does not exist: run `dynagate create-table` first")
    wanted = {index.name for index in model.indexes}
    found = [i["IndexName"] for i in description.get("GlobalSecondaryIndexes", [])]
    return TableState(
        description,
        missing_indexes(description, model.indexes),
        differing_indexes(description, model.indexes),
        sorted(name for name in found if name not in wanted),
    )


def index_lines(state: TableState) -> list[str]:
    lines = [f"  add index {i.name} ({', '.join(i.attributes)})" for i in state.missing]
    lines += [f"  refused: {line}" for line in state.differing]
    lines += [f"  index {name} is not the model's: left as it is" for name in state.unused]
    return lines


def item_lines(tally: Tally, *, done: bool) -> list[str]:
    """What a pass found (`done`: and wrote)."""
    of_model = sum(tally.items.values())
    by_entity = ", ".join(f"{name} {count:,}" for name, count in sorted(tally.items.items()))
    others = sum(tally.others.values())
    derived = sum(tally.derived.values())
    lines = [
        f"scanned {tally.scanned:,} items: {of_model:,} of the model"
        + (f" ({by_entity})" if by_entity else "")
        + (f", {derived:,} derived from them (places, cell counts)" if derived else "")
        + (f", {others:,} of the engine or of no entity of the model" if others else "")
    ]
    verb = "written" if done else "to write"
    for (entity, described), count in sorted(tally.changes.items()):
        lines.append(f"  {entity}: {count:,} items {verb}: {described}")
    for entity, count in sorted(tally.copies.items()):
        repaired = "repaired" if done else "differ"
        lines.append(f"  {entity}: the copies of {count:,} items {repaired}")
    for left in tally.unmigrated[:SHOWN]:
        key = f"{left.key['PK']} / {left.key['SK']}"
        lines.append(f"  {left.entity.name} {key} is left as it is: {left.reason}")
    if len(tally.unmigrated) > SHOWN:
        lines.append(f"  … and {len(tally.unmigrated) - SHOWN:,} more left as they are")
    if tally.skipped:
        lines.append(f"  {tally.skipped:,} items changed meanwhile, again and again: run again")
    return lines


def _bar(state: TableState, description: str) -> tqdm[Any]:
    total = state.description.get("ItemCount") or None
    return tqdm(total=total, desc=description, unit="item", unit_scale=True)


def plan(args: argparse.Namespace) -> int:
    settings = Settings.from_env(serving=False)
    model = declared(settings.model)

    async def go() -> tuple[TableState, Tally]:
        async with settings.open_client() as client:
            state = await table_state(client, settings.table, model)
            attributes = index_attributes(
                model, state.description.get("GlobalSecondaryIndexes", [])
            )
            store = Store(client, settings.table, layout=model.table_layout)
            check = Pass(store, model, attributes, apply=False)
            with _bar(state, "reading items") as bar:
                tally = await run(check, args.segments, bar.update)
            return state, tally

    state, tally = asyncio.run(go())
    lines = [f"table {settings.table!r} and model {settings.model!r}:"]
    lines += index_lines(state) + item_lines(tally, done=False)
    work = len(state.missing) + tally.pending
    if state.differing:
        verdict, code = "refused: an index's keys cannot change in place (docs/model.md)", 2
    elif work:
        verdict, code = "run `dynagate migrate apply` to make these changes", 1
    elif tally.unmigrated:
        verdict, code = "no migration changes the items left as they are: see above", 1
    else:
        verdict, code = "nothing to change", 0
    print("\n".join([*lines, verdict]))
    return code


def apply(args: argparse.Namespace) -> int:
    settings = Settings.from_env(serving=False)
    model = declared(settings.model)
    say: Callable[[str], None] = lambda line: print(line, flush=True)  # noqa: E731

    async def go() -> tuple[TableState, Tally, float, float]:
        async with settings.open_client() as client:
            state = await table_state(client, settings.table, model)
            if state.differing:
                return state, Tally(), 0.0, 0.0
            for index in state.missing:
                say(f"adding index {index.name}; DynamoDB builds it from the items it holds")
                await add_index(client, settings.table, index, INDEX_WAIT_SECONDS)
                say(f"index {index.name} is active")
            described = (await describe(client, settings.table)) or state.description
            attributes = index_attributes(model, described.get("GlobalSecondaryIndexes", []))
            store = Store(client, settings.table, layout=model.table_layout)
            budget = WriteBudget(args.max_wcu)
            migration = Pass(store, model, attributes, apply=True, budget=budget)
            checkpoint = Checkpoint(store, fingerprint(model.entities, attributes), args.segments)
            started = time.monotonic()
            with _bar(state, "migrating items") as bar:
                try:
                    tally = await run(migration, args.segments, bar.update, checkpoint)
                except MigrationBusy as exc:
                    raise CommandFailed(str(exc)) from None
            return state, tally, budget.spent, time.monotonic() - started

    state, tally, spent, seconds = asyncio.run(go())
    if state.differing:
        print("\n".join(["refused:", *index_lines(state)]))
        return 2
    rate = spent / seconds if seconds > 0 else 0.0
    lines = item_lines(tally, done=True)
    lines.append(
        f"{spent:,.0f} write units in {seconds:,.1f} s ({rate:,.1f} a second;"
        f" at most {args.max_wcu:,})"
    )
    left = bool(tally.unmigrated or tally.skipped)
    lines.append("items left as they are: see above" if left else "the items are the model's")
    print("\n".join(lines))
    return int(left)


async def verify_items(
    client: DynamoDBClient, table: str, model: Model, *, repair: bool, segments: int
) -> tuple[list[str], int]:
    """`dynagate verify`'s check of every item the model derives (index keys, defaults,
    copies), repaired with `repair`."""
    state = await table_state(client, table, model)
    attributes = index_attributes(model, state.description.get("GlobalSecondaryIndexes", []))
    check = Pass(Store(client, table, layout=model.table_layout), model, attributes, apply=repair)
    with _bar(state, "verifying items") as bar:
        tally = await run(check, segments, bar.update)
    lines = ["the items the model derives:", *index_lines(state), *item_lines(tally, done=repair)]
    differs = tally.pending and not repair
    left = bool(state.missing or state.differing or differs or tally.unmigrated or tally.skipped)
    lines.append("differences remain" if left else "clean")
    return lines, int(left)
