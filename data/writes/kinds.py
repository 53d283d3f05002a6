"""The kind of keeping of each entity (`data/writes/keeping.py`): the one place that tells
them apart."""

from __future__ import annotations

from data.copies.writes import Copied
from data.places.keeping import Placed
from data.writes.keeping import Keeping
from data.writes.plain import Plain
from model import Entity

PLAIN, COPIED, PLACED = Plain(), Copied(), Placed()


def keeping_of(entity: Entity) -> Keeping:
    """How `entity`'s items are kept: with copies, by place, or as its own item alone."""
    if entity.copies is not None:
        return COPIED
    if entity.places is not None:
        return PLACED
    return PLAIN
