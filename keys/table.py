"""A table's layout as data: the key attributes of the table and of each secondary index,
their types and what each index projects.

The layout is a model's (docs/model.md): a team declares the one its table already has
(`pk`/`sk`, `gsi1`, …), and the classic layout below is the one dynagate makes for a table
of its own. Indexes are overloaded: each entity decides what an index's key attributes hold
on its items, and an item without them stays out of that index (a sparse index).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Projection = Literal["ALL", "KEYS_ONLY", "INCLUDE"]
# DynamoDB's key attribute types: string, number, binary.
KeyType = Literal["S", "N", "B"]
KEY_TYPES: tuple[KeyType, ...] = ("S", "N", "B")
# DynamoDB's limits per table.
MOST_GLOBAL_INDEXES = 20
MOST_LOCAL_INDEXES = 5
# DynamoDB's limit on the non-key attributes all of a table's INCLUDE projections name.
MOST_INCLUDED = 100


class LayoutError(ValueError):
    """A layout DynamoDB would refuse, or that contradicts itself."""


@dataclass(frozen=True)
class Index:
    """The table itself (`name is None`) or one secondary index: its key attributes and
    their types, and for an index what it projects (`INCLUDE`: the keys and `included`).
    A local index (`local=True`) shares the table's partition key."""

    name: str | None
    partition_key: str
    sort_key: str
    projection: Projection = "ALL"
    types: tuple[KeyType, KeyType] = ("S", "S")
    included: tuple[str, ...] = ()
    local: bool = False

    def __post_init__(self) -> None:
        where = f"index {self.name!r}" if self.name else "the table"
        if not self.partition_key or not self.sort_key or self.partition_key == self.sort_key:
            raise LayoutError(f"{where}: a partition key and a sort key, two attributes")
        if any(t not in KEY_TYPES for t in self.types) or len(self.types) != 2:
            raise LayoutError(f"{where}: key types are two of {list(KEY_TYPES)}")
        if (self.projection == "INCLUDE") != bool(self.included):
            raise LayoutError(f"{where}: INCLUDE, and only INCLUDE, names its attributes")
        if self.name is None and (self.local or self.projection != "ALL"):
            raise LayoutError("the table is neither local nor projected: it holds everything")

    @property
    def attributes(self) -> tuple[str, str]:
        return (self.partition_key, self.sort_key)

    @property
    def is_table(self) -> bool:
        return self.name is None

    def type_of(self, attribute: str) -> KeyType:
        return dict(zip(self.attributes, self.types, strict=True))[attribute]


def local_index(
    name: str,
    table: Index,
    sort_key: str,
    *,
    projection: Projection = "ALL",
    sort_type: KeyType = "S",
    included: tuple[str, ...] = (),
) -> Index:
    """A local secondary index of `table`: its partition key, another sort key."""
    return Index(
        name,
        table.partition_key,
        sort_key,
        projection,
        (table.types[0], sort_type),
        included,
        local=True,
    )


@dataclass(frozen=True)
class Layout:
    """The table and every secondary index it has (those no entity uses included, so that
    the live table can be compared with it)."""

    table: Index
    indexes: tuple[Index, ...] = ()

    def __post_init__(self) -> None:
        if not self.table.is_table:
            raise LayoutError(f"the layout's table is an index ({self.table.name!r})")
        names = [i.name for i in self.indexes]
        if None in names or len(set(names)) != len(names):
            raise LayoutError(f"every index has a name of its own: {names}")
        local = [i for i in self.indexes if i.local]
        if len(local) > MOST_LOCAL_INDEXES or len(self.indexes) - len(local) > (
            MOST_GLOBAL_INDEXES
        ):
            raise LayoutError(
                f"DynamoDB allows {MOST_GLOBAL_INDEXES} global and {MOST_LOCAL_INDEXES}"
                f" local indexes: {len(self.indexes) - len(local)} and {len(local)} declared"
            )
        for index in local:
            if index.partition_key != self.table.partition_key:
                raise LayoutError(
                    f"local index {index.name!r}: its partition key is the table's"
                    f" ({self.table.partition_key!r}), not {index.partition_key!r}"
                )
        types: dict[str, KeyType] = {}
        for index in self.all:
            for attribute, kind in zip(index.attributes, index.types, strict=True):
                if types.setdefault(attribute, kind) != kind:
                    raise LayoutError(
                        f"the key attribute {attribute!r} is typed {types[attribute]} and"
                        f" {kind}: one attribute has one type"
                    )
        included = {a for index in self.indexes for a in index.included}
        if len(included) > MOST_INCLUDED:
            raise LayoutError(
                f"INCLUDE projections name {len(included)} attributes; DynamoDB allows"
                f" {MOST_INCLUDED}"
            )

    @property
    def all(self) -> tuple[Index, ...]:
        """The table, then its indexes."""
        return (self.table, *self.indexes)

    @property
    def key_attributes(self) -> frozenset[str]:
        """Every attribute that is a key of the table or of an index."""
        return frozenset(a for index in self.all for a in index.attributes)

    def index(self, name: str | None) -> Index:
        for index in self.all:
            if index.name == name:
                return index
        raise KeyError(name)

    def page_key_attributes(self, index: Index) -> tuple[str, ...]:
        """The attributes of a LastEvaluatedKey / ExclusiveStartKey on `index`."""
        if index.is_table:
            return self.table.attributes
        return tuple(dict.fromkeys((*self.table.attributes, *index.attributes)))

    def primary_key(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """The table's key attributes of `item`."""
        return {a: item[a] for a in self.table.attributes}

    def same_key(self, partition: Any, sort: Any) -> dict[str, Any]:
        """A primary key from its two values."""
        return {self.table.partition_key: partition, self.table.sort_key: sort}

    def typed(self) -> dict[str, KeyType]:
        """Each key attribute and its type."""
        return {
            a: t for index in self.all for a, t in zip(index.attributes, index.types, strict=True)
        }

    def with_indexes(self, indexes: Iterable[Index]) -> Layout:
        """This layout with `indexes` added where it lacks them (by name)."""
        named = {i.name for i in self.indexes}
        return Layout(self.table, (*self.indexes, *(i for i in indexes if i.name not in named)))


# The layout of a table dynagate makes itself when a model declares none: `PK`/`SK`, and
# three overloaded global indexes (the second for composite sort keys, the third sparse).
TABLE = Index(None, "PK", "SK")
GSI1 = Index("GSI1", "GSI1PK", "GSI1SK")
GSI2 = Index("GSI2", "GSI2PK", "GSI2SK")
GSI3 = Index("GSI3", "GSI3PK", "GSI3SK")
CLASSIC = Layout(TABLE, (GSI1, GSI2, GSI3))
