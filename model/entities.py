"""An entity declared once: its attributes, its primary key and its index keys as templates
over its attributes, and the parent whose item collection it belongs to.

    TICKET = Entity(
        "Ticket",
        {"id": GeneratedId(), "queueId": Identifier(shown=False), ...},
        key=same(key("TICKET", "id")),
        indexes={GSI1: Keys(key("QUEUE", "queueId"), key("#TICKET", "updatedAt", "id"))},
        parent=Parent("Queue", {"queueId": "id"}),
    )

From it every key attribute of an item is rendered (`keys/template.py` is the key language),
and an update knows which of them a change of an attribute re-renders.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, TypeVar

from keys.codecs import Codec, OrAnyCodec, SetCodec
from keys.map import Places
from keys.table import TABLE, Index
from keys.template import KeyTemplate, Segment
from model.attribute_checks import ENGINE_ATTRIBUTES as ENGINE_ATTRIBUTES
from model.attribute_checks import INT_MAX as INT_MAX
from model.attribute_checks import ITEM_ROOM, check_attribute, check_readers
from model.attributes import Attribute, Author, Coordinate, Geohash, Timestamp, Version
from model.declarations import Discriminator as Discriminator
from model.declarations import Key as Key
from model.declarations import Keys as Keys
from model.declarations import Only as Only
from model.declarations import Owner as Owner
from model.declarations import Parent as Parent
from model.declarations import Readers as Readers
from model.declarations import key as key
from model.declarations import only as only
from model.declarations import readers as readers
from model.declarations import same as same
from model.declarations import template as template
from model.errors import ModelError
from model.kinds import Copies, check_copies, check_places, delimited, domain

A = TypeVar("A", bound=Attribute)


@dataclass(frozen=True, eq=False)
class Entity:
    """One kind of item; each declared once, so it is equal only to itself."""

    name: str
    attributes: Mapping[str, Attribute]
    key: Keys
    indexes: Mapping[Index, Keys] = field(default_factory=dict)
    parent: Parent | None = None
    # The indexes an item is in only while a predicate holds (docs/model.md: sparse indexes).
    sparse: Mapping[Index, Only] = field(default_factory=dict)
    copies: Copies | None = None
    # The entity is also kept by place (docs/model.md#places), its cells counted (`keys/map.py`).
    places: Places | None = None
    owner: Owner | None = None
    # Who may read its items, wherever a query reaches them (None: whoever the field lets).
    readers: Readers | None = None
    # How messages and rules name it, when not its name in lower case ("repository").
    called: str | None = None
    # The table its primary key is on: the model's layout's (`keys/table.py`).
    table: Index = TABLE
    # The attribute (and constants) that tell its items from other entities'.
    discriminator: Discriminator = field(default_factory=Discriminator)

    def __post_init__(self) -> None:
        for name, declared in self.attributes.items():
            check_attribute(self, name, declared)
        owner = None if self.owner is None else self.attributes.get(self.owner.attribute)
        if self.owner is not None and (owner is None or not owner.names_user):
            raise ModelError(
                f"{self.name}'s owner: {self.owner.attribute!r} is no Identifier or Handle"
            )
        check_readers(self)
        largest = sum(a.most_bytes for a in self.attributes.values())
        if largest > ITEM_ROOM:
            raise ModelError(
                f"{self.name}: its attributes may take {largest:,} bytes, over the"
                f" {ITEM_ROOM:,} an item has besides its keys (DynamoDB's limit is 400 KB)"
            )
        if self.copies is not None:
            check_copies(self, self.copies)
        if self.places is not None:
            # Its place and cell items are keyed on the entity's table.
            object.__setattr__(self, "places", replace(self.places, table=self.table))
            check_places(self, self.places)
        elif self.attributes_of(Geohash):
            raise ModelError(f"{self.name}: a Geohash is made for an entity with places only")
        for index, predicate in self.sparse.items():
            if index not in self.indexes or predicate.attribute not in self.attributes:
                raise ModelError(
                    f"{self.name}'s sparse {_on(index)}: it needs keys there and the attribute"
                    f" {predicate.attribute!r}"
                )
        for index, keys in self.declared_keys.items():
            for held_in, one in zip(index.attributes, (keys.partition, keys.sort), strict=True):
                if index.type_of(held_in) == "N" and not index.is_table:  # the layout's check
                    self._check_number_key(index, held_in, one)
                    continue
                for name in one.attributes:
                    attribute = self.attributes.get(name)
                    where = f"{self.name}'s key {one.label!r} on {index.name or 'the table'}"
                    if attribute is None:
                        raise ModelError(f"{where} names {name!r}, which {self.name} lacks")
                    if attribute.codec is None:
                        raise ModelError(f"{where}: {name!r} cannot be part of a key")
                    if attribute.optional:
                        raise ModelError(f"{where}: {name!r} is optional")
                    if delimited(attribute):
                        raise ModelError(f"{where}: a value of {name!r} holds a key delimiter")
                bare = one.label.lstrip("#")
                if one.written is None and not (bare.isascii() and bare.isalnum()):
                    raise ModelError(
                        f"{self.name}'s key label {one.label!r}: letters and digits, after"
                        " leading '#'s if any (they sort a collection's items before others)"
                    )

    def attributes_of(self, kind: type[A]) -> dict[str, A]:
        """Its attributes of one kind, by name, in the order declared (its version, its
        coordinates)."""
        return {n: a for n, a in self.attributes.items() if isinstance(a, kind)}

    @property
    def position(self) -> tuple[str, str, str]:
        """The names of its latitude, longitude and geohash (an entity with places)."""
        kinds = {type(a): n for n, a in self.attributes_of(Geohash).items()}
        axes = {a.axis: n for n, a in self.attributes_of(Coordinate).items()}
        return axes["lat"], axes["lon"], kinds[Geohash]

    @property
    def declared_keys(self) -> dict[Index, Keys]:
        """Its keys on the table and each index, its copies' included (their filter
        segments aside)."""
        copies = self.copies
        if copies is None:
            return self.all_keys
        return {**self.all_keys, copies.index: Keys(copies.partition, copies.sort)}

    def keys_on(self, index: Index) -> Keys | None:
        return self.declared_keys.get(index)

    def copies_on(self, index: Index) -> Copies | None:
        """Its copies, where `index` is theirs."""
        copies = self.copies
        return copies if copies is not None and copies.index == index else None

    def templates_on(self, index: Index) -> Mapping[str, KeyTemplate]:
        """The key templates its items have on `index`: its copies' on theirs, its own
        elsewhere."""
        return self.templates if self.copies_on(index) is None else self.copy_templates

    @cached_property
    def copy_templates(self) -> dict[str, KeyTemplate]:
        """Each key attribute of a copy and its template: the copy's place in the item's
        partition, and its list's partition (with the filters) and sort key on the index."""
        copies = self.copies
        if copies is None:
            return {}
        filters = tuple(Segment(name, self.filter_codec(name)) for name in copies.filters)
        place = self._template(copies.partition)
        return {
            self.table.partition_key: self.templates[self.table.partition_key],
            self.table.sort_key: KeyTemplate(copies.label, filters),
            copies.index.partition_key: KeyTemplate(place.label, (*place.segments, *filters)),
            copies.index.sort_key: self._template(copies.sort),
        }

    def filter_codec(self, name: str) -> Codec[Any]:
        """How a copy's key holds its filter `name`: one value or any, or a set of values."""
        attribute = self.attributes[name]
        copies = self.copies
        if copies is not None and name in copies.sets:
            return SetCodec(domain(attribute))
        assert attribute.codec is not None  # checked when declared
        return OrAnyCodec(attribute.codec)

    @property
    def label(self) -> str:
        """Its name in upper case: the value of `type` on its items, unless declared."""
        return self.name.upper()

    @cached_property
    def versioned(self) -> dict[str, int] | None:
        """What each change adds to the item's version, if it keeps one (`Version`)."""
        names = [self.stored_name(n) for n in self.attributes_of(Version)]
        return {names[0]: 1} if names else None

    def stored_name(self, name: str) -> str:
        """The item attribute that holds the attribute `name`."""
        return self.attributes[name].stored or name

    @property
    def kind(self) -> dict[str, str]:
        """What each of its items holds to say it is one: the discriminator's attribute and
        value, and the constants written beside them."""
        told = self.discriminator
        return {told.attribute: told.value or self.label, **told.more}

    def is_kind_of(self, item: Mapping[str, Any]) -> bool:
        """Whether `item` says it is one of this entity's (by its discriminator)."""
        told = self.discriminator
        return item.get(told.attribute) == (told.value or self.label)

    @property
    def noun(self) -> str:
        """How messages name it ("ticket")."""
        return self.called or self.field_name

    @property
    def field_name(self) -> str:
        """Its name as a field holding one of it ("ticket", "orderLine")."""
        return self.name[0].lower() + self.name[1:]

    @property
    def plural_field(self) -> str:
        """Its name as a field holding several ("tickets", "orderLines", "branches")."""
        return plural(self.field_name)

    @property
    def all_keys(self) -> dict[Index, Keys]:
        return {self.table: self.key, **self.indexes}

    @cached_property
    def templates(self) -> dict[str, KeyTemplate]:
        """Each key attribute of its items (`PK`, `GSI1SK`, …) and its template."""
        rendered: dict[str, KeyTemplate] = {}
        for index, keys in self.all_keys.items():
            for attribute, one in zip(index.attributes, (keys.partition, keys.sort), strict=True):
                rendered[attribute] = self._template(one, numeric=index.type_of(attribute) == "N")
        return rendered

    @property
    def key_attributes(self) -> tuple[str, ...]:
        """The attributes its primary key is made of, in order."""
        return tuple(dict.fromkeys((*self.key.partition.attributes, *self.key.sort.attributes)))

    @property
    def author(self) -> tuple[str, Author] | None:
        return next(iter(self.attributes_of(Author).items()), None)

    @property
    def write_stamps(self) -> tuple[str, ...]:
        """The timestamps every write sets."""
        stamps = self.attributes_of(Timestamp)
        return tuple(name for name, attribute in stamps.items() if attribute.stamped == "write")

    def primary_key(self, values: Mapping[str, Any]) -> dict[str, str]:
        """`PK` and `SK` of the item with these attribute values (raises ValueError or
        BadUserInput for a value its codec refuses); the table's keys are text."""
        return {k: str(v) for k, v in self._render(self.table.attributes, values).items()}

    def key_values(
        self, values: Mapping[str, Any], only: Iterable[str] | None = None
    ) -> dict[str, Any]:
        """Every key attribute, of the table and of each index (or `only` those)."""
        return self._render(self.templates if only is None else only, values)

    def item_keys(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The key attributes an item with these values carries: those of a sparse index
        only while its predicate holds."""
        left_out = {
            attribute
            for index, predicate in self.sparse.items()
            if not predicate.holds(values)
            for attribute in index.attributes
        }
        return self.key_values(values, [a for a in self.templates if a not in left_out])

    def rerendered(self, changed: Iterable[str]) -> tuple[str, ...]:
        """The key attributes a change of the `changed` attributes renders anew."""
        changed = set(changed)
        return tuple(
            attribute
            for attribute, template in self.templates.items()
            if changed.intersection(s.name for s in template.segments)
        )

    def owns(self, partition: str, sort: str) -> bool:
        """Whether a table key is one of this entity's items."""
        templates = self.templates
        return templates[self.table.partition_key].matches(partition) and templates[
            self.table.sort_key
        ].matches(sort)

    def _render(self, attributes: Iterable[str], values: Mapping[str, Any]) -> dict[str, Any]:
        templates = self.templates
        return {
            name: templates[name].stored(
                **{s.name: values[s.name] for s in templates[name].segments}
            )
            for name in attributes
        }

    def _check_number_key(self, index: Index, held_in: str, one: Key) -> None:
        """A number key (`N`) holds one whole number or epoch time, and nothing else."""
        whole = (
            one.written is not None
            and one.written.texts == ("", "")
            and number_codec(self.attributes.get(one.attributes[0])) is not None
        )
        if not whole or self.attributes[one.attributes[0]].optional:
            raise ModelError(
                f"{self.name}'s key on {_on(index)}: {held_in!r} is a number (N), which holds"
                " one required Number or epoch Timestamp alone: template('${attribute}')"
            )

    def _template(self, one: Key, *, numeric: bool = False) -> KeyTemplate:
        if numeric:
            codec = number_codec(self.attributes[one.attributes[0]])
            assert codec is not None  # checked when declared
            return KeyTemplate("", (Segment(one.attributes[0], codec),), ("", ""), numeric=True)
        segments = []
        for name in one.attributes:
            codec = self.attributes[name].codec
            assert codec is not None  # checked when declared
            segments.append(Segment(name, codec))
        if one.written is None:
            return KeyTemplate(one.label, tuple(segments))
        return KeyTemplate(one.label, tuple(segments), one.written.texts, one.written.casing)


def plural(noun: str) -> str:
    """`repository` → `repositories`, `branch` → `branches`."""
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def number_codec(attribute: Attribute | None) -> Codec[Any] | None:
    """How a number key (`N`) holds `attribute`: a whole number, or a time since 1970."""
    return None if attribute is None else attribute.number_codec


def _on(index: Index) -> str:
    return index.name or "the table"
