"""The checks of each attribute an entity declares: its name (none of the engine's, its
discriminator's or a key's), the name it is stored under, and each kind's own bounds."""

from __future__ import annotations

from math import isfinite
from typing import TYPE_CHECKING

from model.attributes import (
    Attribute,
    Author,
    Choice,
    Json,
    Lines,
    Number,
    NumberSet,
    Real,
    Text,
    TextSet,
    Timestamp,
    Total,
    Version,
)
from model.errors import ModelError

if TYPE_CHECKING:
    from model.entities import Entity

# Attributes the engine writes itself on items, or uses for its own fields.
ENGINE_ATTRIBUTES = frozenset(
    {
        "type",
        "author",
        "authorKey",
        "writeToken",
        "expiresAt",
        "record",
        "prefetched",
        "version",
        "removing",
    }
)
# GraphQL's Int: 32 bits, signed.
INT_MAX = 2**31 - 1
MOST_LINES = 100
# DynamoDB's largest item, less room for keys, names and the engine's own attributes.
ITEM_ROOM = 400 * 1024 - 4 * 1024


def _check_stored(entity: Entity, name: str, attribute: Attribute, where: str) -> None:
    """A name of its own in the item: no other attribute's, key's or the engine's, and
    only where the engine reads and writes through it (not copies, places or an author)."""
    stored = attribute.stored
    others = {a.stored or n for n, a in entity.attributes.items() if n != name}
    keys = {a for index in entity.declared_keys for a in index.attributes}
    if not stored or not stored.isidentifier() or stored in others | keys | ENGINE_ATTRIBUTES:
        raise ModelError(
            f"{where}: stored as {stored!r}, which is no name of letters, digits and '_', or"
            " a name another attribute, a key or the engine holds"
        )
    if entity.copies is not None or entity.places is not None or isinstance(attribute, Author):
        raise ModelError(
            f"{where}: stored under another name, which an entity with copies or places, and"
            " an author, do not take"
        )


def check_attribute(entity: Entity, name: str, attribute: Attribute) -> None:
    where = f"{entity.name}'s attribute {name!r}"
    if name in ENGINE_ATTRIBUTES and not (name == "author" and isinstance(attribute, Author)):
        raise ModelError(f"{where}: the name is the engine's own ({sorted(ENGINE_ATTRIBUTES)})")
    if name in entity.kind or attribute.stored in entity.kind:
        raise ModelError(f"{where}: the name is its discriminator's ({sorted(entity.kind)})")
    if attribute.stored is not None:
        _check_stored(entity, name, attribute, where)
    keys = {a for index in entity.declared_keys for a in index.attributes}
    if name in keys:
        raise ModelError(f"{where}: the name is a key attribute of its table or an index")
    if (
        isinstance(attribute, Number)
        and not -INT_MAX - 1 <= attribute.low <= attribute.high <= INT_MAX
    ):
        raise ModelError(f"{where}: low to high must be in order, within GraphQL's 32-bit Int")
    if isinstance(attribute, Choice) and (
        attribute.initial is not None and not isinstance(attribute.initial, attribute.values)
    ):
        raise ModelError(f"{where}: its initial value is not one of its values")
    if isinstance(attribute, Choice) and attribute.settable and attribute.initial is None:
        raise ModelError(
            f"{where}: `settable` needs an initial value, for a create that leaves it out (a"
            " choice without one is always given)"
        )
    if isinstance(attribute, Timestamp) and attribute.imported and attribute.stamped != "create":
        raise ModelError(f"{where}: only a time stamped on create may be imported")
    if isinstance(attribute, Lines) and (
        not attribute.fields
        or attribute.numbered in attribute.fields
        or not all(
            isinstance(f, Text | Number) and not f.optional for f in attribute.fields.values()
        )
        or not 1 <= attribute.most <= MOST_LINES
        or attribute.optional
    ):
        raise ModelError(
            f"{where}: lines need fields (texts and numbers, none optional or named"
            f" {attribute.numbered!r}), at most {MOST_LINES} of them, and are not optional"
        )
    if isinstance(attribute, Total):
        lines = entity.attributes.get(attribute.lines)
        numbers = (
            [] if not isinstance(lines, Lines) else [lines.fields.get(n) for n in attribute.of]
        )
        if not numbers or not all(isinstance(n, Number) and n.low >= 0 for n in numbers):
            raise ModelError(
                f"{where}: a total of {list(attribute.of)} needs lines {attribute.lines!r}"
                " with those numbers, none negative"
            )
        if not 0 < attribute.high <= INT_MAX:
            raise ModelError(f"{where}: its most must be within GraphQL's 32-bit Int")
    _check_stored_value(entity, attribute, where)


# The most values a set may declare, and the most bytes of JSON an attribute may hold.
SET_MOST_DECLARED = 1000
JSON_MOST = 64 * 1024


def _check_stored_value(entity: Entity, attribute: Attribute, where: str) -> None:
    """The kinds of values as other apps store them, and the version."""
    if isinstance(attribute, Real) and not (
        isfinite(attribute.low) and isfinite(attribute.high) and attribute.low <= attribute.high
    ):
        raise ModelError(f"{where}: low to high must be finite numbers, in order")
    if isinstance(attribute, TextSet | NumberSet) and not 1 <= attribute.most <= SET_MOST_DECLARED:
        raise ModelError(f"{where}: a set holds 1 to {SET_MOST_DECLARED} values")
    if isinstance(attribute, TextSet) and not 1 <= attribute.max_length <= 10_000:
        raise ModelError(f"{where}: each text of a set is 1 to 10,000 characters")
    if isinstance(attribute, NumberSet) and not (
        -INT_MAX - 1 <= attribute.low <= attribute.high <= INT_MAX
    ):
        raise ModelError(f"{where}: low to high must be in order, within GraphQL's 32-bit Int")
    if isinstance(attribute, Json) and not 2 <= attribute.limit <= JSON_MOST:
        raise ModelError(f"{where}: JSON of 2 to {JSON_MOST:,} bytes")
    if isinstance(attribute, Version):
        others = [a for a in entity.attributes.values() if isinstance(a, Version)]
        if len(others) > 1 or entity.copies is not None or entity.places is not None:
            raise ModelError(
                f"{where}: one version per entity, and none on an entity with copies or"
                " places (the engine versions those itself)"
            )


def check_readers(entity: Entity) -> None:
    """An entity's readers, and its fields': an owner to be, groups named, no key field
    (keys name an item in changes and cursors), no entity found by place (its markers are
    public)."""
    where = f"{entity.name}'s readers"
    rules = [entity.readers, *(a.readers for a in entity.attributes.values())]
    for rule in rules:
        if rule is None:
            continue
        if rule.owner and entity.owner is None:
            raise ModelError(f"{where}: readers(owner=True) needs the entity's Owner")
        if any(not g or not isinstance(g, str) for g in rule.groups):
            raise ModelError(f"{where}: a group is named by a non-empty text")
        if rule.parent_owner and entity.parent is None:
            raise ModelError(f"{where}: readers(parent_owner=True) needs a parent")
    if entity.readers is not None and entity.places is not None:
        raise ModelError(f"{where}: an entity found by place is public (its markers are)")
    for name, attribute in entity.attributes.items():
        if attribute.readers is not None and name in entity.key_attributes:
            raise ModelError(f"{entity.name}'s field {name!r}: a key field is read with its item")
        if attribute.readers is not None and attribute.readers.parent_owner:
            raise ModelError(
                f"{entity.name}'s field {name!r}: a field's readers are the item's owner,"
                " groups or signed-in callers, decided on the item alone"
            )
