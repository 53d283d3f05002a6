"""The table and its secondary indexes, declared once.

Indexes are overloaded: each entity decides what its `GSInPK`/`GSInSK` attributes hold,
and an item without them stays out of that index (a sparse index).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Projection = Literal["ALL", "KEYS_ONLY"]


@dataclass(frozen=True)
class Index:
    """The table itself (`name is None`) or one global secondary index."""

    name: str | None
    partition_key: str
    sort_key: str
    projection: Projection = "ALL"

    @property
    def attributes(self) -> tuple[str, str]:
        return (self.partition_key, self.sort_key)


TABLE = Index(None, "PK", "SK")
# Overloaded: orders of a customer by time, comment lists, tickets of a queue by updatedAt.
GSI1 = Index("GSI1", "GSI1PK", "GSI1SK")
# Composite sort keys: orders of a customer by status, then placement time.
GSI2 = Index("GSI2", "GSI2PK", "GSI2SK")
# Sparse: only items that carry GSI3PK: orders while they are PLACED, organizations and
# their ADMIN members.
GSI3 = Index("GSI3", "GSI3PK", "GSI3SK")

SECONDARY_INDEXES: tuple[Index, ...] = (GSI1, GSI2, GSI3)


def entity_key(key: str) -> dict[str, str]:
    """The primary key of an entity that is its own item collection head: PK = SK."""
    return {TABLE.partition_key: key, TABLE.sort_key: key}


def index_named(name: str | None) -> Index:
    for index in (TABLE, *SECONDARY_INDEXES):
        if index.name == name:
            return index
    raise KeyError(name)


def page_key_attributes(index: Index) -> tuple[str, ...]:
    """The attributes of a LastEvaluatedKey / ExclusiveStartKey on `index`."""
    return TABLE.attributes if index is TABLE else (*TABLE.attributes, *index.attributes)
