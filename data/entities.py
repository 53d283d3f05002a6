"""A declared entity's reads (`model/`): its records, the check of each value a client
gives (each attribute kind's own), an entity by key through the request's loader, and the
pages of a list, the first read with the parent in one Query.

A record is a mapping of the entity's attribute names to their values (timestamps as
`datetime`, choices as their enum), whatever the item's key attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from data import validation
from data.callers import author_of
from data.collections import PageRead, Prefetched, load_with_pages
from model import Entity
from model.attributes import Attribute
from store.loaders import ItemLoader
from store.pagination import Paginator
from store.requests import Item, Key

Record = Mapping[str, Any]


def record(entity: Entity, item: Item) -> Record:
    """The entity's values held by its `item`."""
    return values_of(entity, item, entity.attributes)


def values_of(entity: Entity, item: Item, names: Iterable[str]) -> dict[str, Any]:
    """The values of the attributes `names` held by the entity's `item`."""
    values: dict[str, Any] = {}
    for name in names:
        attribute = entity.attributes[name]
        held = attribute.stored or name
        if attribute.engine_held:
            values[name] = author_of(item)
        elif attribute.optional:
            values[name] = _loaded(attribute, item.get(held))
        elif held in item:
            values[name] = _loaded(attribute, item[held])
        elif attribute.absent is not None:  # a count, a set, a choice's initial value
            values[name] = attribute.absent
        else:  # an item written before it held its keys' attributes apart
            values[name] = _from_key(entity, item, name)  # KeyError: not a whole entity
    return values


def _from_key(entity: Entity, item: Item, name: str) -> Any:
    """The attribute `name` as the item's table key holds it (a handle in lower case)."""
    for attribute in entity.table.attributes:
        template = entity.templates[attribute]
        if any(s.name == name for s in template.segments):
            return template.parse(item[attribute])[name]
    raise KeyError(name)


class Read(Mapping[str, Any]):
    """`record(entity, item)`, each value made when first asked for: a page whose fields
    select three attributes of its items converts those three (`gateway/plans/`)."""

    __slots__ = ("_entity", "_item", "_readers", "_values")

    def __init__(self, entity: Entity, item: Item) -> None:
        self._entity = entity
        self._item = item
        self._readers = _readers(entity)
        self._values: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            read = self._readers[name]  # KeyError: not an attribute
        value = self._values[name] = read(self._item)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._entity.attributes)

    def __len__(self) -> int:
        return len(self._entity.attributes)

    def __repr__(self) -> str:
        return f"Read({dict(self)!r})"


# Each entity's attribute readers, by the entity's identity (kept alive beside them).
_READERS: dict[int, tuple[Entity, dict[str, Callable[[Item], Any]]]] = {}


def _readers(entity: Entity) -> dict[str, Callable[[Item], Any]]:
    known = _READERS.get(id(entity))
    if known is None or known[0] is not entity:
        known = _READERS[id(entity)] = (entity, {n: _reader(entity, n) for n in entity.attributes})
    return known[1]


def _reader(entity: Entity, name: str) -> Callable[[Item], Any]:
    """How `values_of` reads the attribute `name` from an item, made once."""
    attribute = entity.attributes[name]
    if attribute.engine_held:
        return author_of
    held, convert, absent = attribute.stored or name, attribute.from_stored, attribute.absent
    if attribute.optional:

        def optional(item: Item) -> Any:
            value = item.get(held)
            return None if value is None else convert(value)

        return optional

    def read(item: Item) -> Any:
        if held in item:
            value = item[held]
            return None if value is None else convert(value)
        if absent is not None:  # a count, a set, a choice's initial value
            return absent
        return _from_key(entity, item, name)  # KeyError: not a whole entity

    return read


@dataclass(frozen=True)
class RecordOf:
    """`record` of one entity, equal for equal entities: two reads of one page compare
    equal (`data.collections.page_for`); `lazy`, each value made when asked for (`Read`)."""

    entity: Entity
    lazy: bool = False

    def __call__(self, item: Item) -> Record:
        return Read(self.entity, item) if self.lazy else record(self.entity, item)


def most_bytes(entity: Entity) -> int:
    """The most bytes one of the entity's items takes, keys and names included."""
    return validation.ITEM_OVERHEAD_BYTES + sum(a.most_bytes for a in entity.attributes.values())


def stored(entity: Entity, values: Mapping[str, Any]) -> Item:
    """The item attributes that hold `values` (the authors' are the caller's to write)."""
    held = {
        entity.stored_name(name): entity.attributes[name].to_stored(value)
        for name, value in values.items()
        if value is not None
    }
    return {name: value for name, value in held.items() if value is not None}


def emptied(entity: Entity, values: Mapping[str, Any]) -> list[str]:
    """The stored names of the sets `values` empties: an update removes them."""
    return [
        entity.stored_name(name)
        for name, value in values.items()
        if entity.attributes[name].many and not value
    ]


def checked(attribute: Attribute, value: Any, field: str) -> Any:
    """A client's `value` for `attribute` as it is kept, or BAD_USER_INPUT naming `field`."""
    return attribute.accepted(value, field)


def key_of(entity: Entity, arguments: Mapping[str, Any]) -> Key | None:
    """The primary key `arguments` name (each checked as its attribute), or None when they
    are valid but can name no such entity (an id that is not a KSUID, say): a miss."""
    values = {
        name: checked(entity.attributes[name], arguments[name], name)
        for name in entity.key_attributes
    }
    try:
        return entity.primary_key(values)
    except ValueError:
        return None


def described(entity: Entity, arguments: Mapping[str, Any]) -> str:
    """How messages name the entity the key `arguments` name, with the values of its key
    alone: `ticket '2VQp…'`; a key of several attributes names each, as a person reads
    them: `order (eventId 'ev1', id '3N7h…')`."""
    names = entity.key_attributes
    if len(names) == 1:
        return f"{entity.noun} {_value(arguments[names[0]])}"
    parts = ", ".join(f"{name} {_value(arguments[name])}" for name in names)
    return f"{entity.noun} ({parts})"


def _value(value: Any) -> str:
    """A number as it is, anything else quoted."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return repr(str(value))


async def load(items: ItemLoader, entity: Entity, arguments: Mapping[str, Any]) -> Record | None:
    key = key_of(entity, arguments)
    item = None if key is None else await items.load_item(key)
    return None if item is None else record(entity, item)


async def load_with_lists(
    items: ItemLoader,
    pages: Paginator,
    entity: Entity,
    arguments: Mapping[str, Any],
    reads: Mapping[str, PageRead[Any]],
) -> tuple[Record | None, Prefetched]:
    """The entity, with the first pages of `reads` read in the same Queries."""
    key = key_of(entity, arguments)
    if key is None:
        return None, {}
    item, prefetched = await load_with_pages(items, key, pages, reads)
    return (None if item is None else record(entity, item)), prefetched


def _loaded(attribute: Attribute, value: Any) -> Any:
    return None if value is None else attribute.from_stored(value)
