"""A copied entity's copies (`model.Copies`) checked against its own item, and repaired
(`dynagate verify`).

An item and its copies are written in one transaction, so they should never disagree;
this offline check proves it, and repairs what a bug, a hand edit or a restore broke. It
Scans the table (in parallel segments, consistent reads), groups the items of each of the
entity's partitions (`COMMENT#<ksuid>`) and compares the copies (`COPY#…`) with what
`data.copies.writes.copies` says the own item implies:

    missing   an expected copy does not exist                  repair: Put it
    stale     a copy differs in any attribute (GSI keys too)   repair: Put the expected item
    extra     a copy whose key is not expected (old language)  repair: Delete it
    orphan    a copy of an item that does not exist            repair: Delete it
    invalid   the item itself cannot imply copies              reported, never repaired

Each item is repaired in TransactWriteItems guarded by a ConditionCheck that its
`version` is still the one scanned (orphans: that the item still does not exist), so an
item changed, made or deleted meanwhile is skipped, never overwritten.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from data.copies.writes import VERSION, copies
from data.entities import checked, record, stored
from errors.vocabulary import DynagateError
from keys.table import Index
from model import Entity
from store import requests
from store.client import Store
from store.errors import TransactionCanceled
from store.requests import (
    Item,
    condition_check,
    expecting_version,
    transaction_delete,
    transaction_put,
)

TRANSACTION_LIMIT = 100
Kind = Literal["missing", "stale", "extra", "orphan"]
Outcome = Literal["repaired", "skipped", "failed", "unrepairable"]
KINDS: tuple[Kind, ...] = get_args(Kind)


@dataclass
class Partition:
    """The items scanned in one of the entity's partitions."""

    primary: Item | None = None
    copies: list[Item] = field(default_factory=list)


@dataclass(frozen=True)
class Difference:
    """How one partition differs from what its own item implies (sort keys)."""

    partition: str
    version: int | None  # of the primary item; None when there is none
    missing: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    orphan: tuple[str, ...] = ()
    invalid: str | None = None
    puts: tuple[Item, ...] = field(default=(), repr=False)  # expected missing and stale copies

    def by_kind(self) -> dict[Kind, tuple[str, ...]]:
        return dict(zip(KINDS, (self.missing, self.stale, self.extra, self.orphan), strict=True))

    @property
    def clean(self) -> bool:
        return self.invalid is None and not any(self.by_kind().values())


# ---- pure: grouping, comparing, planning ----------------------------------------------


def group(entity: Entity, items: Iterable[Item]) -> dict[str, Partition]:
    """The entity's partitions by partition key; items of other entities are left out."""
    partitions: dict[str, Partition] = {}
    pk_name, sk_name = entity.table.attributes
    own, copy = entity.templates[pk_name].prefix(), entity.copy_templates[sk_name].prefix()
    for item in items:
        pk, sk = item[pk_name], item[sk_name]
        if not pk.startswith(own):
            continue
        partition = partitions.setdefault(pk, Partition())
        if sk == pk:
            partition.primary = item
        elif sk.startswith(copy):
            partition.copies.append(item)
    return partitions


def diff(entity: Entity, primary: Item | None, found: Sequence[Item]) -> Difference:
    """What to put or delete so that the copies `found` are exactly those `primary` implies."""
    pk, sk = entity.table.attributes
    stored = {c[sk]: c for c in found}
    if primary is None:
        return Difference(found[0][pk] if found else "", None, orphan=tuple(sorted(stored)))
    partition, version = primary[pk], primary.get("version")
    try:
        _check_stored(entity, primary)
        own = entity.primary_key(record(entity, primary))
        expected = copies(entity, {**primary, VERSION: primary[VERSION]})
    except (KeyError, TypeError, ValueError, DynagateError) as exc:
        return Difference(partition, version, invalid=f"cannot derive its copies: {exc}")
    if own[pk] != partition:
        named = ", ".join(f"its {n} is {primary.get(n)!r}" for n in entity.key_attributes)
        return Difference(partition, version, invalid=named)
    wanted = {c[sk]: c for c in expected}
    missing = tuple(sk for sk in sorted(wanted) if sk not in stored)
    stale = tuple(sk for sk in sorted(wanted) if sk in stored and stored[sk] != wanted[sk])
    return Difference(
        partition,
        version,
        missing=missing,
        stale=stale,
        extra=tuple(sk for sk in sorted(stored) if sk not in wanted),
        puts=tuple(wanted[sk] for sk in (*missing, *stale)),
    )


def _check_stored(entity: Entity, item: Item) -> None:
    """Each of the entity's values in `item` as the engine writes it, else ValueError (or
    BAD_USER_INPUT from its check) naming it."""
    values = record(entity, item)
    for name, attribute in entity.attributes.items():
        if name not in item and attribute.optional:
            continue
        if stored(entity, {name: values[name]}).get(name, item.get(name)) != item.get(name):
            raise ValueError(f"{name!r} is {item.get(name)!r}")
        checked(attribute, values[name], name)


def repair_transactions(
    table: str, keyed: Index, difference: Difference
) -> list[list[dict[str, Any]]]:
    """TransactWriteItems batches that fix `difference`, each guarded by the item's state
    (keys on `keyed`, the layout's table)."""
    if difference.invalid is not None:
        return []
    pk, sk = keyed.attributes
    keys = [{pk: difference.partition, sk: s} for s in (*difference.extra, *difference.orphan)]
    writes = [
        *(transaction_put(table, item) for item in difference.puts),
        *(transaction_delete(table, key) for key in keys),
    ]
    # The item as scanned: at that version, or (for orphans) still not there.
    key = {pk: difference.partition, sk: difference.partition}
    guard = condition_check(table, key, exists=difference.version is not None)
    if difference.version is not None:
        guard = expecting_version(guard, difference.version)
    size = TRANSACTION_LIMIT - 1
    return [[guard, *writes[i : i + size]] for i in range(0, len(writes), size)]


def scan_request(
    entity: Entity, table: str, segment: int, segments: int, start: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One page of one segment, the entity's partitions only (ScannedCount counts all)."""
    pk = entity.table.partition_key
    prefix = (pk, entity.templates[pk].prefix())
    return requests.scan_request(table, segment, segments, partition_prefix=prefix, start=start)


# ---- I/O: scanning and repairing ------------------------------------------------------


async def scan_partitions(
    store: Store, entity: Entity, segments: int, progress: Callable[[int], object]
) -> tuple[list[Item], int]:
    """Every item of the entity's partitions (a parallel Scan), and how many were scanned;
    `progress` is told of each page's scanned count."""
    items: list[Item] = []
    scanned = 0

    async def scan_segment(segment: int) -> None:
        nonlocal scanned
        start: dict[str, Any] | None = None
        while True:
            request = scan_request(entity, store.table, segment, segments, start)
            page = await store.scan(request)
            items.extend(page.items)
            scanned += page.scanned
            progress(page.scanned)
            start = page.last_key
            if start is None:
                return

    await asyncio.gather(*(scan_segment(s) for s in range(segments)))
    return items, scanned


async def repair_one(store: Store, difference: Difference) -> Outcome:
    """Fix one partition unless its own item changed since it was scanned."""
    if difference.invalid is not None:
        return "unrepairable"
    for actions in repair_transactions(store.table, store.layout.table, difference):
        try:
            await store.transact(actions)
        except TransactionCanceled as exc:
            return "skipped" if exc.failed(0) else "failed"
        except DynagateError:
            return "failed"
    return "repaired"
