"""What a model asks of an item the table holds (`dynagate migrate`, `dynagate verify`),
pure: the index keys its values render, the defaults it lacks, and whether its copies are
to be checked.

An item is the model's when its `type` is an entity's label and its table key one that
entity renders. What the model derives from it:

    sets      key attributes of an index it is in that it lacks or holds stale (a new
              index, a key template changed, a sparse index it now enters), and the
              `initial` value of a choice it lacks
    removes   key attributes of an index it is no longer in (its predicate no longer
              holds, or its entity no longer uses the index)
    copies    the entity keeps copies: they are compared with the item's (`data/copies/verify.py`)

An item whose table key the model would render otherwise (a primary key template changed)
is left alone and reported: moving an item is a new item, which no migration writes
behind a client's back. So is one lacking a value the model has no default for.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum
from typing import Any

from data.entities import record, stored
from errors.vocabulary import DynagateError
from keys import map as map_keys
from model import Choice, Entity, Model
from store.requests import Item, Key


@dataclass(frozen=True)
class ItemChange:
    """What one item needs, and the values it was read with, on which the write insists
    (`expect`; None: the attribute must still be absent) so that a client's write since
    is never overwritten with keys rendered from older values."""

    entity: Entity
    key: Key
    sets: Mapping[str, Any] = field(default_factory=dict)
    removes: tuple[str, ...] = ()
    expect: Mapping[str, Any] = field(default_factory=dict)
    # An item the entity derives from its own (a place item): not counted as one of it.
    derived: bool = False

    @property
    def writes(self) -> bool:
        return bool(self.sets or self.removes)

    def described(self) -> str:
        """`GSI4PK, GSI4SK given; GSI3PK, GSI3SK removed`."""
        parts = []
        if self.sets:
            parts.append(f"{', '.join(sorted(self.sets))} given")
        if self.removes:
            parts.append(f"{', '.join(self.removes)} removed")
        return "; ".join(parts)


@dataclass(frozen=True)
class Unmigrated:
    """An item of the model that no migration changes, and why."""

    entity: Entity
    key: Key
    reason: str


@dataclass(frozen=True)
class Derived:
    """An item an entity derives that no migration changes: a cell count of an entity kept
    by place (`dynagate verify` checks the counts)."""

    entity: Entity


@dataclass(frozen=True)
class Engine:
    """An item that is not the model's: the engine's own, or of no entity it declares."""

    type: str


Found = ItemChange | Unmigrated | Derived | Engine


def entity_labels(model: Model) -> dict[str, Entity]:
    """Each entity by its items' discriminator value (that of the place items of an entity
    kept by place, whose own item is known by its key)."""
    return {entity.kind[entity.discriminator.attribute]: entity for entity in model.entities}


def change_of(labels: Mapping[str, Entity], index_attributes: Iterable[str], item: Item) -> Found:
    """What the model asks of `item`; `index_attributes` are the key attributes of every
    index of the model and of the table (those an item may need to leave)."""
    entity = next((e for e in labels.values() if e.is_kind_of(item)), None)
    placed = [e for e in labels.values() if e.places is not None]
    if entity is None or entity.places is not None:
        for one in placed:
            found = _of_places(one, index_attributes, item)
            if found is not None:
                return found
    if entity is None:
        return Engine(str(item.get("type", "")))
    pk, sk = entity.table.attributes
    key = {pk: str(item[pk]), sk: str(item[sk])}
    if not entity.owns(key[pk], key[sk]):
        return Unmigrated(entity, key, "its table key is not one the model renders")
    return _own(entity, key, index_attributes, item)


def _of_places(entity: Entity, index_attributes: Iterable[str], item: Item) -> Found | None:
    """The item, when it is one that an entity kept by place keeps: its own item (which
    holds no discriminator: its place item does), a place item, which takes the defaults
    its own item takes, or a cell count; None otherwise."""
    places = entity.places
    assert places is not None
    pk, sk = entity.table.attributes
    partition, sort = item.get(pk), item.get(sk)
    if not isinstance(partition, str) or not isinstance(sort, str):
        return None
    key = {pk: partition, sk: sort}
    kept = map_keys.kept_by(places, partition)
    if kept == "cell":
        return Derived(entity)
    if kept == "place" and entity.is_kind_of(item):
        defaults = _defaults(entity, item)
        expect = {name: None for name in defaults}
        return ItemChange(entity, key, defaults, (), expect, derived=True)
    told = entity.discriminator.attribute
    if kept is None and told not in item and entity.owns(partition, sort):
        return _own(entity, key, index_attributes, item)
    return None


def _own(entity: Entity, key: Key, index_attributes: Iterable[str], item: Item) -> Found:
    """What the model asks of an entity's own item, keyed `key`."""
    pk, sk = entity.table.attributes
    defaults = _defaults(entity, item)
    try:
        values = record(entity, {**item, **defaults})
    except KeyError as exc:
        return Unmigrated(
            entity,
            key,
            f"it lacks {exc.args[0]!r}, which has no default: declare it optional=True, or"
            " a Choice with an initial value, or give the item one",
        )
    except (TypeError, ValueError, DynagateError) as exc:
        return Unmigrated(entity, key, f"its values are not the model's ({_said(exc)})")
    try:
        expected = entity.item_keys(values)
    except (KeyError, TypeError, ValueError, DynagateError) as exc:
        return Unmigrated(entity, key, f"its values render no keys ({_said(exc)})")
    if (expected[pk], expected[sk]) != (key[pk], key[sk]):
        return Unmigrated(
            entity, key, f"the model keys it as {expected[pk]} / {expected[sk]}: a new item"
        )
    sets = {a: v for a, v in expected.items() if a not in (pk, sk) and item.get(a) != v}
    sets.update(defaults)
    removes = tuple(sorted(a for a in set(index_attributes) if a in item and a not in expected))
    sources = _sources(entity, (*sets, *removes)) - set(defaults)
    expect = {name: item.get(name) for name in sorted({*sources, *sets, *removes})}
    return ItemChange(entity, key, sets, removes, expect)


def _defaults(entity: Entity, item: Item) -> dict[str, Any]:
    """The stored initial values of the choices the item lacks (added since it was written)."""
    lacking = {
        name: attribute.starts_at
        for name, attribute in entity.attributes.items()
        if attribute.starts_at is not None
        and not attribute.optional
        and entity.stored_name(name) not in item
    }
    return stored(entity, lacking)


def _sources(entity: Entity, attributes: Iterable[str]) -> set[str]:
    """The entity's attributes that the keys `attributes` render from, and the predicates
    of its sparse indexes those keys are of."""
    templates = entity.templates
    names = {s.name for a in attributes if a in templates for s in templates[a].segments}
    for index, only in entity.sparse.items():
        if set(index.attributes) & set(attributes):
            names.add(only.attribute)
    return {entity.stored_name(name) for name in names}


def _said(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def fingerprint(entities: Iterable[Entity], index_attributes: Iterable[str]) -> str:
    """A digest of all the model derives from items (each key's label, segments and their
    codecs, sparse predicates, copies, defaults) and of the attributes a pass may remove:
    a checkpoint is resumed only by the pass that wrote it."""
    shapes: list[str] = [",".join(sorted(index_attributes))]
    for entity in entities:
        templates = {**entity.templates, **entity.copy_templates}
        shapes.append(entity.label)
        shapes += sorted(f"{a}={_canonical(t)}" for a, t in templates.items())
        shapes += sorted(f"{i.name}?{_canonical(o)}" for i, o in entity.sparse.items())
        shapes += sorted(
            f"{n}:{_canonical(a.initial)}" for n, a in entity.attributes_of(Choice).items()
        )
    return hashlib.sha256("\n".join(shapes).encode()).hexdigest()[:16]


def _canonical(value: Any) -> str:
    """The same text for equal values in every process (a set's order is not)."""
    if isinstance(value, Enum):
        return repr(value.value)
    if is_dataclass(value) and not isinstance(value, type):
        parts = (f"{f.name}={_canonical(getattr(value, f.name))}" for f in fields(value))
        return f"{type(value).__name__}({', '.join(parts)})"
    if isinstance(value, set | frozenset):
        return "{" + ", ".join(sorted(_canonical(v) for v in value)) + "}"
    if isinstance(value, tuple | list):
        return "(" + ", ".join(_canonical(v) for v in value) + ")"
    if isinstance(value, type) and issubclass(value, Enum):
        return f"{value.__name__}{[m.value for m in value]}"
    return repr(value)
