"""The strategies of keeping as kinds any entity can use, and their checks: copies for
multi-value filters (power-set duplication, docs/model.md#copies) and places for viewports and cell
counts (geohash partitions, docs/model.md#places)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from keys.codecs import ANY, DELIMITERS
from keys.map import Places
from keys.table import Index
from model.attributes import Attribute, Coordinate, Geohash
from model.attributes.base import MOST_SET_VALUES as MOST_SET_VALUES
from model.errors import ModelError

if TYPE_CHECKING:
    from model.entities import Entity, Key


@dataclass(frozen=True)
class Copies:
    """Power-set duplication (docs/model.md#copies): the item is copied, in its own partition, into
    every list a filter can ask for, so that each filter is one Query on one list. A
    filter asks, for each of `sets`, any set of its values (`{"rating": "ratings"}`: the
    attribute and the argument naming the set; none given: all) and, for each of `either`,
    one value or none (any). A copy's keys on `index` are `partition`, extended by a segment
    per filter attribute, and `sort`; its sort key in the partition is `label`, extended
    likewise. `either` doubles the copies; a set of n values multiplies them by 2^(n-1)."""

    index: Index
    partition: Key
    sort: Key
    either: tuple[str, ...] = ()
    sets: Mapping[str, str] = field(default_factory=dict)
    label: str = "COPY"

    @property
    def filters(self) -> tuple[str, ...]:
        return (*self.either, *self.sets)


# A copied item's copies and its own item, changed in one transaction: an update may put
# every new copy and delete every old one, within TransactWriteItems' 100 actions.
MOST_COPIES = 49
TRANSACTION_BYTES = 4_000_000


def domain(attribute: Attribute) -> tuple[Any, ...]:
    """The values a set filter over `attribute` can hold, in order (empty: not a small
    domain)."""
    return attribute.domain


def delimited(attribute: Attribute) -> bool:
    """Whether one of the values of the attribute's domain (a choice's) holds a key delimiter
    or is a whole segment meaning any value, which no key may hold."""
    return any(DELIMITERS.intersection(str(v)) or str(v) == ANY for v in attribute.domain)


def copies_made(entity: Entity) -> int:
    """How many copies of each item `entity` keeps (0: it keeps none)."""
    copies = entity.copies
    if copies is None:
        return 0
    values = sum(len(domain(entity.attributes[name])) - 1 for name in copies.sets)
    return 1 << (len(copies.either) + values)


def check_places(entity: Entity, places: Places) -> None:
    where = f"{entity.name}'s places"
    coordinates = entity.attributes_of(Coordinate).values()
    axes = sorted(a.axis for a in coordinates)
    if axes != ["lat", "lon"] or len(entity.attributes_of(Geohash)) != 1:
        raise ModelError(f"{where}: it needs one Coordinate of each axis and one Geohash")
    if any(a.optional for a in coordinates):
        raise ModelError(f"{where}: its position is required")
    if (
        entity.key.partition != entity.key.sort
        or entity.copies is not None
        or entity.sparse
        or entity.parent is not None
    ):
        raise ModelError(
            f"{where}: it heads its own partition (PK = SK), with no parent, copies or sparse index"
        )
    for label in (places.places, places.cells):
        if not label.isalnum() or label[-1].isdigit():
            raise ModelError(
                f"{where}: the label {label!r} is letters and digits, ending with a letter"
                " (cells of lengths 1 and 2 add theirs)"
            )
    if places.places == places.cells:
        raise ModelError(f"{where}: places and cells need labels of their own")


def check_copies(entity: Entity, copies: Copies) -> None:
    where = f"{entity.name}'s copies on {_on(copies.index)}"
    if copies.index in entity.all_keys or copies.index.is_table:
        raise ModelError(f"{where}: the index holds the copies only, not {entity.name}'s item")
    if entity.key.partition != entity.key.sort:
        raise ModelError(f"{where}: copies live in the item's own partition (PK = SK)")
    if entity.sparse:
        raise ModelError(f"{where}: an entity with copies has no sparse index")
    if any(k.written is not None for k in (entity.key.partition, copies.partition, copies.sort)):
        raise ModelError(f"{where}: copies are keyed in the classic form, key(label, ...)")
    if not copies.label.isalnum():
        raise ModelError(f"{where}: the label {copies.label!r} is letters and digits")
    for name in copies.filters:
        attribute = entity.attributes.get(name)
        if attribute is None or attribute.codec is None or attribute.optional:
            raise ModelError(f"{where}: {name!r} is not a required attribute a key can hold")
        if delimited(attribute):
            raise ModelError(f"{where}: a value of {name!r} holds a key delimiter")
        if name in copies.sets and len(domain(attribute)) < 2:
            raise ModelError(
                f"{where}: a set of {name!r} needs a choice or a number of 2 to"
                f" {MOST_SET_VALUES} values"
            )
    if len(set(copies.filters)) < len(copies.filters) or not copies.filters:
        raise ModelError(f"{where}: give each filter once, at least one")
    made = copies_made(entity)
    if made > MOST_COPIES:
        raise ModelError(f"{where}: {made} copies of each item; at most {MOST_COPIES}")
    item_bytes = sum(a.most_bytes for a in entity.attributes.values())
    if (2 * made + 1) * item_bytes > TRANSACTION_BYTES:
        raise ModelError(f"{where}: an update's transaction could exceed 4 MB; fewer copies")


def _on(index: Index) -> str:
    return index.name or "the table"
