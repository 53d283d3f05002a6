"""The small declarations an entity is made of: its keys, in the classic form
(`key("EVENT", "day", "id")`) or written as a table holds them (`template("ORG#${orgId}")`),
and its parent, owner, readers, discriminator and sparse predicates."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from keys.template import Casing, TemplateError, Written, parse_template
from model.errors import ModelError


@dataclass(frozen=True)
class Key:
    """A key template over attributes: the `label`, then each attribute's segment (the
    classic form), or a written template's literal texts around them."""

    label: str
    attributes: tuple[str, ...] = ()
    written: Written | None = None

    @property
    def head(self) -> tuple[str, bool]:
        """The literal text every key of it starts with, and whether that is the whole key
        (no attribute in it)."""
        if self.written is None:
            return (f"{self.label}#" if self.attributes else self.label, not self.attributes)
        head = self.written.texts[0] if self.attributes else self.written.label
        if self.written.casing == "lower":
            head = head.lower()
        elif self.written.casing == "upper":
            head = head.upper()
        return head, not self.attributes

    def may_meet(self, other: Key) -> bool:
        """Whether a key of this template could equal a key of `other`, judged by their
        literal heads alone."""
        (mine, whole), (theirs, whole_too) = self.head, other.head
        if whole and whole_too:
            return mine == theirs
        if whole:
            return mine.startswith(theirs)
        if whole_too:
            return theirs.startswith(mine)
        return mine.startswith(theirs) or theirs.startswith(mine)

    @property
    def shape(self) -> str:
        """What tells its keys from another template's: the label, or the written text."""
        if self.written is None:
            return self.label
        return repr((self.written.texts, self.written.casing))


def key(label: str, *attributes: str) -> Key:
    """`key("EVENT", "day", "id")`: `EVENT#<day>#<id>`."""
    return Key(label, attributes)


def template(text: str, *, casing: Casing = "none") -> Key:
    """A key written as the table holds it: literal text and `${attribute}`s in any order
    (`"ORG#${orgId}"`, `"$shop#order_${id}"`, `"${status}#${placedAt}"`), stored as given,
    in upper or in lower case."""
    try:
        written = parse_template(text, casing)
    except TemplateError as exc:
        raise ModelError(str(exc)) from None
    return Key(written.label, written.names, written)


@dataclass(frozen=True)
class Keys:
    """An entity's partition and sort key on one index (or the table)."""

    partition: Key
    sort: Key


def same(one: Key) -> Keys:
    """The partition key and the sort key alike: an entity heading its own collection."""
    return Keys(one, one)


@dataclass(frozen=True)
class Parent:
    """The entity whose collection this one belongs to, and which of this entity's
    attributes hold the parent's (`{"queueId": "id"}`): a child is created only under an
    existing parent."""

    entity: str
    attributes: Mapping[str, str]
    # The child's field answering its parent (`Comment.product`), read through the loader.
    field: str | None = None


@dataclass(frozen=True)
class Owner:
    """Whom the entity belongs to: `attribute` holds their username (an `Identifier`,
    compared exactly, or a `Handle`, ignoring case), and `noun` is how rules name them
    ("customer"). A pattern with `access="owner"` is theirs (and admins'): decided on the
    token where its arguments hold the owner, else on the entity read. Their children's
    `writer` updates are theirs too (a repository's owner closes any of its issues)."""

    attribute: str
    noun: str


@dataclass(frozen=True)
class Readers:
    """Who may read an entity's items (or one attribute), wherever a query reaches them,
    beside admins: its `owner` (the entity's `Owner`), members of any of `groups` (from the
    token's groups claims), the owner of its parent (`parent_owner`: an event's organizer
    reads its orders), or any signed-in caller (`signed_in`)."""

    owner: bool = False
    groups: tuple[str, ...] = ()
    parent_owner: bool = False
    signed_in: bool = False

    @property
    def described(self) -> str:
        """How refusals and docs say it: "its attendee or the group staff"."""
        who = ["admins"]
        if self.owner:
            who.append("its owner")
        if self.parent_owner:
            who.append("its parent's owner")
        who += [f"members of {g!r}" for g in self.groups]
        if self.signed_in:
            who.append("signed-in callers")
        return ", ".join(who[:-1]) + f" or {who[-1]}" if len(who) > 1 else who[0]


def readers(
    *,
    owner: bool = False,
    groups: tuple[str, ...] | list[str] = (),
    parent_owner: bool = False,
    signed_in: bool = False,
) -> Readers:
    """`readers(owner=True, groups=["staff"])`: who may read, beside admins."""
    return Readers(owner, tuple(groups), parent_owner, signed_in)


@dataclass(frozen=True)
class Discriminator:
    """How an item says which entity it is: `attribute` holds `value` (the entity's name in
    upper case, unless given), with the constants `more` written beside it, as the tool
    that writes the table writes them (ElectroDB's `__edb_e__` and `__edb_v__`,
    OneTable's `_type`)."""

    attribute: str = "type"
    value: str | None = None
    more: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Only:
    """A sparse index: an item is in it only while `attribute` holds one of `values`."""

    attribute: str
    values: tuple[Any, ...]

    def holds(self, values: Mapping[str, Any]) -> bool:
        return values.get(self.attribute) in self.values


def only(attribute: str, *values: Any) -> Only:
    return Only(attribute, values)
