"""What a model's table layout holds it to (`Model` calls these once it is built): every
index an entity uses is the layout's and typed as its keys render, each list reads an
index that projects its entity, no key looks like the engine's own items, and which lists
may meet another entity's items in their range."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from keys.table import TABLE, Index, Layout, LayoutError
from model.errors import ModelError
from model.list_checks import on
from model.patterns import ListOf

if TYPE_CHECKING:
    from model.model import Model


# The labels of the engine's own items (trusted documents, idempotency records, stream
# leases, a migration's checkpoint): no entity's key may render one of them.
ENGINE_LABELS = frozenset({"DOCUMENTS", "DOCUMENT", "IDEMPOTENCY", "STREAMLEASE", "MIGRATION"})


def check_indexes(model: Model) -> None:
    """One index per name, its key attributes no entity's attribute; no key labelled as
    the engine's own items are."""
    if model.layout is None:
        named: dict[str | None, Index] = {TABLE.name: TABLE}
        for index in model.indexes:
            other = named.setdefault(index.name, index)
            if other != index:
                raise ModelError(
                    f"two indexes named {index.name!r}: {other.attributes} and {index.attributes}"
                )
        shared = {a for index in (TABLE, *model.indexes) for a in index.attributes}
        if len(shared) != 2 * (1 + len(model.indexes)):
            raise ModelError("two indexes share a key attribute: each needs its own two")
    try:
        layout = model.table_layout
    except LayoutError as exc:
        raise ModelError(f"the layout: {exc}") from None
    used = {index for entity in model.entities for index in entity.declared_keys}
    for index in sorted(used - set(layout.all), key=lambda index: index.name or ""):
        raise ModelError(
            f"{on(index)} ({', '.join(index.attributes)}) is used by an entity but is not"
            " the layout's: declare it in Model(layout=...) as the table has it"
        )
    if layout.table.types != ("S", "S"):
        raise ModelError(
            f"the table's keys are typed {' and '.join(layout.table.types)}: the engine keys"
            " its own items (documents, Idempotency-Key records, stream leases) as strings"
        )
    for entity in model.entities:
        for index in entity.declared_keys:
            for attribute in index.attributes:
                if index.type_of(attribute) == "B":
                    raise ModelError(
                        f"{entity.name}'s key on {on(index)}: {attribute!r} is typed B, and"
                        " keys rendered from templates are strings (S) or numbers (N)"
                    )
    for pattern in model.of_kind(ListOf):
        check_projection(layout, pattern, pattern.index)
        if pattern.unnarrowed is not None:
            check_projection(layout, pattern, pattern.unnarrowed)
    keys = layout.key_attributes
    for entity in model.entities:
        if entity.label in ENGINE_LABELS:
            raise ModelError(
                f"{entity.name}: its items' type {entity.label!r} is the engine's own"
                f" ({sorted(ENGINE_LABELS)})"
            )
        clash = sorted(keys & set(entity.attributes))
        if clash:
            raise ModelError(f"{entity.name}'s attributes {clash} are index keys")
        for keys_of in entity.declared_keys.values():
            for label in (keys_of.partition.label, keys_of.sort.label):
                if re.split("[#/~]", label.lstrip("#"))[0] in ENGINE_LABELS:
                    raise ModelError(
                        f"{entity.name}'s key label {label!r} is the engine's own"
                        f" ({sorted(ENGINE_LABELS)})"
                    )


def check_projection(layout: Layout, pattern: ListOf, index: Index) -> None:
    """A list reads its items' attributes from the index: it must project them all."""
    if index.projection == "ALL":
        return
    projected = layout.key_attributes | set(index.included)
    lacking = sorted({*pattern.entity.attributes, "type"} - projected)
    if lacking:
        raise ModelError(
            f"{pattern.entity.name} list {pattern.field!r} reads {on(index)}, which projects"
            f" {index.projection} without {lacking}: project them (INCLUDE or ALL), or list"
            " on another index"
        )


def mixed(model: Model, pattern: ListOf) -> bool:
    """Whether another entity's keys on the list's index could fall in its key range: the
    partition and the sort key both could meet (an entity's parent, read with its
    children, is let through by its own filter)."""
    entity = pattern.entity
    indexes = [pattern.index, *([] if pattern.unnarrowed is None else [pattern.unnarrowed])]
    for index in indexes:
        mine = entity.keys_on(index)
        if mine is None:
            continue
        for other in model.entities:
            theirs = other.keys_on(index)
            if other is entity or theirs is None:
                continue
            if mine.partition.may_meet(theirs.partition) and mine.sort.may_meet(theirs.sort):
                return True
    return False
