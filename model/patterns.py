"""Access patterns as declarations: what a client may ask of an entity, and who may.

From each the engine derives the key condition, the cursor's binding, the loader path, the
worst case for the bound, the GraphQL field with its arguments and resolver, and, for a
list, the subscription's matching.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from keys.table import Index
from model.entities import Entity
from model.errors import ModelError
from model.kinds import Copies

# Who may use a field (docs/identity.md): decided on the token before any read, but for
# `writer`, which the write's own condition decides (the entity's author, or an admin), and
# `owner` (the entity's `Owner`, or an admin), decided on the token where the arguments
# name the owner, else on the entity read; `parent_owner` (an update by the owner of the
# entity's parent), decided by a ConditionCheck on the parent in the write's transaction.
Named = Literal["anyone", "signed_in", "author", "admins", "writer", "owner", "parent_owner"]


@dataclass(frozen=True)
class Group:
    """Members of any of `names` (the token's groups claims), and admins: decided on the
    token, before any read."""

    names: tuple[str, ...]


def group(*names: str) -> Group:
    """`access=group("staff", "organizers")`."""
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ModelError("group(...) names one group or more, each a non-empty text")
    return Group(names)


Access = Named | Group


@dataclass(frozen=True)
class Lookup:
    """A root field answering one entity by its primary key's attributes (through the
    request's loader: lookups of one request coalesce)."""

    entity: Entity
    field: str
    access: Access = "signed_in"


@dataclass(frozen=True)
class Range:
    """A range on one sort-key segment: the argument `argument` (`{from, to}`, both
    inclusive, at least one) bounds the attribute `attribute`."""

    attribute: str
    argument: str


@dataclass(frozen=True)
class ListOf:
    """The entities of one partition on `index`, by their sort key: a connection field of
    the parent's type, whose partition it is (an item collection), or with `root`, a Query
    field whose required arguments are the partition's attributes.

    The key condition is equality on the partition and the entity's sort-key label, then on
    the leading segments `equal` (optional arguments, given in order), then `range` on the
    next one. `descending`: largest sort key first; `direction` lets the client choose.
    `unnarrowed`: another index, read when none of `equal` is given; its keys have the same
    partition and a sort key that begins with the range's attribute (an order's time,
    without its status before it). A root list's `at` fixes attributes of its partition (no
    argument gives them): the one partition of a sparse index, say.
    `subscription`: the root field that follows the list's changes (ADDED, CHANGED, REMOVED,
    filtered by the same arguments, but the direction), open to `subscription_access`."""

    entity: Entity
    index: Index
    field: str
    descending: bool = False
    equal: tuple[str, ...] = ()
    range: Range | None = None
    # Choices a page may be filtered by (a FilterExpression: a narrow set with a high hit
    # rate, as open issues among closed ones; its pages are refilled and their cost shows it).
    filtered: tuple[str, ...] = ()
    direction: bool = False
    unnarrowed: Index | None = None
    root: bool = False
    at: Mapping[str, Any] = dataclasses.field(default_factory=dict, hash=False)
    # For a root list (a list below its parent is reached through the parent's field).
    access: Access | None = None
    description: str | None = None
    subscription: str | None = None
    subscription_access: Access = "signed_in"
    subscription_description: str | None = None
    # Whether the subscription also takes the range (False: every change, whatever the
    # range's attribute holds).
    subscription_range: bool = True
    # A plain list of every item instead of a connection, in key order: at most this many,
    # which the writes keep (an organization's at most 100 teams), read in one Query.
    whole: int | None = None
    # Whether another entity's items may lie in its key range, so that its pages keep only
    # the entity's own by their discriminator: found by the model, not declared.
    mixed: bool = dataclasses.field(default=False, compare=False)

    @property
    def narrowing(self) -> tuple[str, ...]:
        """The sort-key segments its arguments narrow, in order."""
        return self.equal + (() if self.range is None else (self.range.attribute,))

    @property
    def copies(self) -> Copies | None:
        """The entity's copies, where the list reads them (it is on their index)."""
        return self.entity.copies_on(self.index)

    @property
    def either(self) -> tuple[str, ...]:
        """The copies' filters of one value or any, where the list reads copies."""
        return () if self.copies is None else self.copies.either

    @property
    def sets(self) -> Mapping[str, str]:
        """The copies' set filters (attribute: argument), where the list reads copies."""
        return {} if self.copies is None else self.copies.sets

    def index_for(self, equal: Mapping[str, Any]) -> Index:
        """The index read for these equalities (None: not given)."""
        if self.unnarrowed is not None and all(equal.get(n) is None for n in self.equal):
            return self.unnarrowed
        return self.index


@dataclass(frozen=True)
class Create:
    """A mutation making a new entity from an input of its given attributes; under its
    parent, which must exist. `done` is how messages say it ("opened")."""

    entity: Entity
    field: str
    access: Access = "author"
    done: str = "created"


@dataclass(frozen=True)
class Moves:
    """State transitions as data: the values `attribute` may move to from each value; an
    update to any other is refused, decided by the write's own condition."""

    attribute: str
    allowed: tuple[tuple[Any, tuple[Any, ...]], ...]
    # The values only admins may move it to (a refund), whoever else the field lets in.
    admins_only: tuple[Any, ...] = ()

    def sources(self, value: Any) -> tuple[Any, ...]:
        """The values from which `attribute` may move to `value`."""
        return tuple(start for start, ends in self.allowed if value in ends)


def moves(
    attribute: str, allowed: Mapping[Any, Iterable[Any]], *, admins_only: Iterable[Any] = ()
) -> Moves:
    """`moves("status", {OPEN: [SHIPPED, CANCELLED], SHIPPED: [DELIVERED]})`; with
    `admins_only=[REFUNDED]`, only admins move it there."""
    return Moves(
        attribute,
        tuple((start, tuple(ends)) for start, ends in allowed.items()),
        tuple(admins_only),
    )


@dataclass(frozen=True)
class Update:
    """A mutation changing some of `changes` (at least one) of the entity its key names.
    Every key that uses a changed attribute is re-rendered in the same write; a timestamp
    stamped on every write only moves forward; `moves` are the transitions a choice may make."""

    entity: Entity
    field: str
    changes: tuple[str, ...]
    access: Access = "writer"
    description: str | None = None
    moves: tuple[Moves, ...] = ()
    # False: giving none of `changes` answers the entity as stored (for an entity with
    # copies, whose update reads it first anyway).
    at_least_one: bool = True
    # Arguments of the field itself, each required (`setOrderStatus(id, status)`), rather
    # than an input object whose changes are optional.
    inline: bool = False
    # Values every call sets, no argument giving them (`closeIssue` sets `state: CLOSED`).
    sets: Mapping[str, Any] = dataclasses.field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Delete:
    """A mutation removing the entity its key names, answering true; a missing one is
    NOT_FOUND. With `access="writer"` only its author (or an admin) may, which the delete's
    own condition decides. Of a parent, `children` says what becomes of the entities below
    it: `refuse` (CONFLICT naming them while any exist) or `remove` (with it, in one
    transaction; more than one holds is `dynagate remove`'s work)."""

    entity: Entity
    field: str
    access: Access = "writer"
    children: Literal["refuse", "remove"] = "refuse"


@dataclass(frozen=True)
class Near:
    """A Query field answering the entities inside a viewport (docs/model.md#places), at
    most `limit`
    (default 100) and whether there are more: `<Entity>Search`; the viewport at most 0.5
    degrees a side, read by key ranges over its geohash cells. `subscription`: the root
    field that follows the entities entering, changing in or leaving a viewport."""

    entity: Entity
    field: str
    access: Access = "anyone"
    description: str | None = None
    subscription: str | None = None
    subscription_access: Access = "anyone"
    subscription_description: str | None = None


@dataclass(frozen=True)
class Heatmap:
    """A Query field answering exact counts of the entities in the geohash cells of one
    length (`precision`, 1 to 8, or left out the largest the view and the limits allow)
    that meet a viewport (docs/model.md#places)."""

    entity: Entity
    field: str
    access: Access = "anyone"
    description: str | None = None


# The largest `max_radius` a model may declare, in metres: a place partition is 156 km
# from south to north, so a circle of this radius meets at most a few of them.
MOST_RADIUS = 100_000.0


@dataclass(frozen=True)
class Nearest:
    """A Query field answering the entities within `radiusMeters` of a point (`latitude`,
    `longitude`), nearest first by great-circle distance, ties by the entity's key: a
    connection paged by `first` and `after` whose edges carry `distanceMeters` (the entity's
    places, read cell by cell nearest first, `keys/nearest.py`); the radius at most
    `max_radius` metres (up to `MOST_RADIUS`)."""

    entity: Entity
    field: str
    access: Access = "anyone"
    description: str | None = None
    max_radius: float = 50_000.0

    def __post_init__(self) -> None:
        radius = self.max_radius
        if isinstance(radius, bool) or not isinstance(radius, int | float):
            raise ModelError(f"{self.field}: max_radius is a number of metres")
        if not 0 < radius <= MOST_RADIUS:
            raise ModelError(
                f"{self.field}: max_radius {radius:g} is outside 0 to {MOST_RADIUS:,.0f} metres"
            )


Pattern = Lookup | ListOf | Create | Update | Delete | Near | Heatmap | Nearest
