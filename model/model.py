"""A model: entities and their access patterns, checked once when it is built, so what
the engine derives from it cannot fail at run time for want of a declaration."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar

from keys.table import TABLE, Index, Layout
from model.attributes import Choice
from model.children import check_parent_delete
from model.entities import Discriminator, Entity
from model.errors import ModelError
from model.layout_checks import check_indexes, mixed
from model.list_checks import check_list, on
from model.patterns import (
    Create,
    Delete,
    Heatmap,
    ListOf,
    Lookup,
    Near,
    Nearest,
    Pattern,
    Update,
)
from model.reach_checks import check_reach

P = TypeVar("P", Lookup, ListOf, Create, Update, Delete, Near, Heatmap, Nearest)


@dataclass(frozen=True)
class Model:
    entities: tuple[Entity, ...]
    patterns: tuple[Pattern, ...]
    # The table's layout (`keys/table.py`): declared for a table that exists already, else
    # the classic one dynagate makes, with the indexes the entities use.
    layout: Layout | None = None

    def __post_init__(self) -> None:
        names = Counter(entity.name for entity in self.entities)
        twice = sorted(name for name, count in names.items() if count > 1)
        if twice:
            raise ModelError(f"entities declared twice: {twice}")
        for entity in self.entities:
            _check_parent(self, entity)
        _check_collisions(self.entities)
        _check_places_labels(self.entities)
        for pattern in self.patterns:
            if pattern.entity not in self.entities:
                raise ModelError(f"{pattern.field}: {pattern.entity.name} is not in the model")
            if isinstance(pattern, ListOf):
                check_list(pattern, self.parent_of(pattern.entity), self.entities)
            elif isinstance(pattern, Update):
                _check_update(pattern)
            elif isinstance(pattern, Create):
                _check_create(pattern)
            elif isinstance(pattern, Near | Heatmap | Nearest):
                _check_places_read(pattern)
            if isinstance(pattern, Update | Delete):
                _check_writer(self, pattern)
            _check_owner(pattern)
        _check_whole_lists(self)
        check_reach(self)
        _check_names(self)
        check_indexes(self)
        for pattern in self.of_kind(ListOf):
            # Found once, where the model knows every entity: the list's pages then keep
            # only its entity's items, by their discriminator. A discriminator declared as
            # a table's other app writes it says that app may keep items of entities the
            # model does not declare, in any range: they are passed over too.
            declared = pattern.entity.discriminator != Discriminator()
            object.__setattr__(pattern, "mixed", declared or mixed(self, pattern))

    @property
    def indexes(self) -> tuple[Index, ...]:
        """The secondary indexes the table needs: the layout's, else those its entities and
        their copies use, by name."""
        if self.layout is not None:
            return self.layout.indexes
        used = {
            index
            for entity in self.entities
            for index in entity.declared_keys
            if not index.is_table
        }
        return tuple(sorted(used, key=lambda index: index.name or ""))

    @property
    def table_layout(self) -> Layout:
        """The table's layout: the declared one, else the classic table with the indexes
        the entities use."""
        if self.layout is not None:
            return self.layout
        return Layout(TABLE, self.indexes)

    def entity(self, name: str) -> Entity:
        for entity in self.entities:
            if entity.name == name:
                return entity
        raise ModelError(f"no entity {name!r} in the model")

    def parent_of(self, entity: Entity) -> Entity | None:
        return None if entity.parent is None else self.entity(entity.parent.entity)

    def children_of(self, entity: Entity) -> list[Entity]:
        """The entities whose parent is `entity`."""
        return [e for e in self.entities if self.parent_of(e) is entity]

    def of_kind(self, kind: type[P]) -> Iterator[P]:
        return (pattern for pattern in self.patterns if isinstance(pattern, kind))

    def lists_under(self, parent: Entity) -> list[ListOf]:
        """The lists that are a connection field of `parent`'s type."""
        return [
            p for p in self.of_kind(ListOf) if not p.root and self.parent_of(p.entity) is parent
        ]


def _check_parent(model: Model, entity: Entity) -> None:
    if entity.parent is None:
        return
    parent = model.entity(entity.parent.entity)
    for mine, theirs in entity.parent.attributes.items():
        if mine not in entity.attributes or theirs not in parent.attributes:
            raise ModelError(
                f"{entity.name}'s parent {parent.name}: {mine!r} → {theirs!r} names an"
                " attribute either lacks"
            )
    lacking = sorted(set(parent.key_attributes) - set(entity.parent.attributes.values()))
    if lacking:
        raise ModelError(f"{entity.name}'s parent {parent.name}: nothing holds its key's {lacking}")


def _check_whole_lists(model: Model) -> None:
    """A whole list holds at most its count only if no derived create can pass it: the
    entity's creates are the hook's, which keep the count."""
    for pattern in model.of_kind(ListOf):
        creates = [c.field for c in model.of_kind(Create) if c.entity is pattern.entity]
        if pattern.whole is not None and creates:
            raise ModelError(
                f"{pattern.entity.name} list {pattern.field!r}: a whole list of at most"
                f" {pattern.whole}, but {creates} add any number; keep the count in the"
                " hook's create"
            )


def _check_owner(pattern: Pattern) -> None:
    """`owner` access needs an owner, and a field whose arguments name it (a lookup or a
    create), or that reads the entity, whose owner is then checked (a lookup)."""
    accesses = [pattern.access]
    if isinstance(pattern, ListOf | Near) and pattern.subscription is not None:
        accesses.append(pattern.subscription_access)
    if "owner" not in accesses:
        return
    where = f"{pattern.entity.name} {pattern.field!r}"
    owner = pattern.entity.owner
    if owner is None:
        raise ModelError(f"{where}: access 'owner' needs the entity's Owner")
    if isinstance(pattern, Lookup | Create):
        return
    entity = pattern.entity
    if isinstance(pattern, Update | Delete):
        if entity.copies is None and entity.places is None:
            return  # decided by the write's own condition on the owner
        raise ModelError(f"{where}: an owner's writes are for entities without copies or places")
    if isinstance(pattern, ListOf) and (pattern.access != "owner" or pattern.root):
        keys = pattern.entity.keys_on(pattern.index)
        if keys is not None and owner.attribute in keys.partition.attributes:
            return  # its arguments (a root list's, a subscription's) name the owner
    raise ModelError(
        f"{where}: access 'owner' is for lookups, creates, updates, deletes, and root lists"
        " and the subscriptions of lists whose partition is the owner's"
    )


def _check_places_read(pattern: Near | Heatmap | Nearest) -> None:
    if pattern.entity.places is None:
        raise ModelError(f"{pattern.field}: {pattern.entity.name} declares no places")
    accesses = [pattern.access]
    if isinstance(pattern, Near) and pattern.subscription is not None:
        accesses.append(pattern.subscription_access)
    if "writer" in accesses:
        raise ModelError(f"{pattern.field}: `writer` decides writes only; not a read's access")


def _check_places_labels(entities: tuple[Entity, ...]) -> None:
    """Each entity's places and cells in partitions of their own: no two entities share a
    label, nor does a key's."""
    seen: dict[str, str] = {}
    for entity in entities:
        labels = [] if entity.places is None else [entity.places.places, entity.places.cells]
        for label in labels:
            other = seen.setdefault(label, entity.name)
            if other != entity.name:
                raise ModelError(f"{entity.name} and {other} both keep places under {label!r}")
    for entity in entities:
        for keys in entity.declared_keys.values():
            for label in (keys.partition.label, keys.sort.label):
                if label in seen:
                    raise ModelError(
                        f"{entity.name}'s key label {label!r} is {seen[label]}'s places label"
                    )


def _check_create(pattern: Create) -> None:
    imported = [a for a in pattern.entity.attributes.values() if getattr(a, "imported", False)]
    if imported and pattern.access == "anyone":
        raise ModelError(
            f"{pattern.entity.name} {pattern.field!r}: an import is for admins, of signed-in"
            " callers: not `anyone`"
        )


def _check_writer(model: Model, pattern: Update | Delete) -> None:
    """Only an author can be held to a `writer` rule; a child cannot move to another
    parent (nothing would check the new one exists); a parent is not deleted from under
    its children unless its delete says what becomes of them."""
    entity = pattern.entity
    where = f"{entity.name} {pattern.field!r}"
    if pattern.access == "writer" and entity.author is None:
        raise ModelError(f"{where}: access 'writer' needs an Author attribute to hold to")
    if pattern.access == "parent_owner":
        parent = model.parent_of(entity)
        if (
            parent is None
            or parent.owner is None
            or entity.parent is None
            or not set(entity.parent.attributes) <= set(entity.key_attributes)
            or entity.copies is not None
            or entity.places is not None
        ):
            raise ModelError(
                f"{where}: access 'parent_owner' is for updates and deletes of an entity whose"
                " key names its parent, a parent that declares its Owner (no copies or places)"
            )
    if isinstance(pattern, Update) and entity.parent is not None:
        moved = sorted(set(pattern.changes) & set(entity.parent.attributes))
        if moved:
            raise ModelError(f"{where}: {moved} hold its parent's key, which an update keeps")
    if isinstance(pattern, Delete):
        check_parent_delete(pattern, model.children_of)


def _check_update(pattern: Update) -> None:
    entity = pattern.entity
    where = f"{entity.name} update {pattern.field!r}"
    if not pattern.changes and not pattern.sets:
        raise ModelError(f"{where} changes nothing")
    held = {*entity.key_attributes, *(() if entity.parent is None else entity.parent.attributes)}
    choices = entity.attributes_of(Choice)
    for name, value in pattern.sets.items():
        attribute = choices.get(name)
        if attribute is None or name in held or name in pattern.changes:
            raise ModelError(
                f"{where}: it sets {name!r}, not a choice it may set alone (outside its key"
                " and its parent's)"
            )
        if not isinstance(value, attribute.values):
            raise ModelError(f"{where}: it sets {name!r} to {value!r}, not one of its values")
    if not pattern.changes and pattern.moves:
        raise ModelError(f"{where}: moves need a change given")
    if not pattern.at_least_one and entity.copies is None:
        raise ModelError(f"{where}: `at_least_one=False` needs copies (an update that reads)")
    for name in pattern.changes:
        kind = entity.attributes.get(name)
        if kind is None or not kind.changeable:
            raise ModelError(f"{where}: {name!r} is not an attribute a client may change")
        if name in entity.key_attributes:
            raise ModelError(f"{where}: {name!r} is part of the primary key")
    for transitions in pattern.moves:
        attribute = choices.get(transitions.attribute)
        if transitions.attribute not in pattern.changes or attribute is None:
            raise ModelError(
                f"{where}: moves of {transitions.attribute!r}, not a choice it changes"
            )
        named = {v for start, ends in transitions.allowed for v in (start, *ends)}
        if not all(isinstance(v, attribute.values) for v in named):
            raise ModelError(f"{where}: moves of {transitions.attribute!r} name other values")
        if attribute.settable and transitions.admins_only:
            raise ModelError(
                f"{where}: {transitions.attribute!r} is settable, so a create could give the"
                " values only admins may move it to"
            )
    # What this update cannot change (a time stamped on create, an attribute outside its
    # changes) is read first, when a key needs it.
    updatable = {*pattern.changes, *pattern.sets}
    fixed = {n for n, a in entity.attributes.items() if not a.changeable or n not in updatable}
    known = {*entity.key_attributes, *fixed, *pattern.changes, *pattern.sets}
    changed = {*pattern.changes, *pattern.sets, *entity.write_stamps}
    rendered = set(entity.rerendered(changed))
    for index, predicate in entity.sparse.items():
        if predicate.attribute in changed:
            rendered.update(index.attributes)  # entering the index: every key is written
        elif index.partition_key in rendered:
            raise ModelError(
                f"{where}: it re-renders {index.partition_key} of the sparse {on(index)}"
                f" without changing {predicate.attribute!r}, which decides whether the item"
                " is there"
            )
    for key_attribute in sorted(rendered):
        segments = {s.name for s in entity.templates[key_attribute].segments}
        lacking = sorted(segments - known)
        if lacking:
            raise ModelError(
                f"{where}: the key {key_attribute} uses a changed attribute, and {lacking} that"
                " the update neither knows nor changes"
            )


def _check_collisions(entities: tuple[Entity, ...]) -> None:
    """Two entities whose keys on one index share both labels could render the same key."""
    seen: dict[tuple[Index, str, str], str] = {}
    for entity in entities:
        declared = [(i, k.partition.shape, k.sort.shape) for i, k in entity.declared_keys.items()]
        if entity.copies is not None:  # the copies' place in the entity's own partition
            declared.append((entity.table, entity.key.partition.label, entity.copies.label))
        for labels in declared:
            index, partition, sort = labels
            other = seen.setdefault(labels, entity.name)
            if other != entity.name:
                raise ModelError(
                    f"{entity.name} and {other} keys on {on(index)} can collide: both"
                    f" {partition} / {sort}"
                )


def _check_names(model: Model) -> None:
    """The names the GraphQL schema gets from the model are each given once."""
    types: list[str] = []
    for entity in model.entities:
        types += [entity.name, f"{entity.name}Connection", f"{entity.name}Edge"]
    roots: dict[str, list[str]] = {"Query": [], "Mutation": [], "Subscription": []}
    for pattern in model.patterns:
        if isinstance(pattern, Lookup | Heatmap):
            roots["Query"].append(pattern.field)
        elif isinstance(pattern, Nearest):
            roots["Query"].append(pattern.field)
            types += [f"{pattern.entity.name}Nearby{kind}" for kind in ("Connection", "Edge")]
        elif isinstance(pattern, Near):
            roots["Query"].append(pattern.field)
            types.append(f"{pattern.entity.name}Search")
            if pattern.subscription is not None:
                roots["Subscription"].append(pattern.subscription)
        elif isinstance(pattern, Create | Update):
            roots["Mutation"].append(pattern.field)
            types.append(_capital(pattern.field) + "Input")
        elif isinstance(pattern, Delete):
            roots["Mutation"].append(pattern.field)
        elif pattern.subscription is not None:
            roots["Subscription"].append(pattern.subscription)
        if isinstance(pattern, ListOf) and pattern.root:
            roots["Query"].append(pattern.field)
    # The types every viewport and heatmap field shares.
    if any(True for _ in model.of_kind(Near)) or any(True for _ in model.of_kind(Heatmap)):
        types.append("Viewport")
    if any(True for _ in model.of_kind(Heatmap)):
        types += ["Heatmap", "Cell"]
    # One change type per entity, whichever of its lists are followed.
    followed: list[ListOf | Near] = [*model.of_kind(ListOf), *model.of_kind(Near)]
    types += sorted({f"{p.entity.name}Change" for p in followed if p.subscription})
    # A choice's enum is a GraphQL enum type, named after its class: one class per name.
    enums = {a.values for e in model.entities for a in e.attributes_of(Choice).values()}
    types += [enum.__name__ for enum in enums]
    for where, names in [("type", types), *((f"{r} field", n) for r, n in roots.items())]:
        clashes = sorted(name for name, count in Counter(names).items() if count > 1)
        if clashes:
            raise ModelError(f"generated {where} names clash: {clashes}")


def _capital(name: str) -> str:
    return name[0].upper() + name[1:]
