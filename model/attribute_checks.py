"""The checks of each attribute an entity declares: its name (none of the engine's, its
discriminator's or a key's), the name it is stored under, and each kind's own bounds (the
kind checks them itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from model.attributes import Attribute
from model.attributes.base import INT_MAX as INT_MAX
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
    if entity.copies is not None or entity.places is not None or attribute.engine_held:
        raise ModelError(
            f"{where}: stored under another name, which an entity with copies or places, and"
            " an author, do not take"
        )


def check_attribute(entity: Entity, name: str, attribute: Attribute) -> None:
    where = f"{entity.name}'s attribute {name!r}"
    if name in ENGINE_ATTRIBUTES and not (name == "author" and attribute.engine_held):
        raise ModelError(f"{where}: the name is the engine's own ({sorted(ENGINE_ATTRIBUTES)})")
    if name in entity.kind or attribute.stored in entity.kind:
        raise ModelError(f"{where}: the name is its discriminator's ({sorted(entity.kind)})")
    if attribute.stored is not None:
        _check_stored(entity, name, attribute, where)
    keys = {a for index in entity.declared_keys for a in index.attributes}
    if name in keys:
        raise ModelError(f"{where}: the name is a key attribute of its table or an index")
    attribute.check_declaration(entity, where)


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
