"""Declarations of entities and their access patterns, from which the engine derives keys,
item shapes, writes, bounds, cursors, GraphQL fields and subscriptions (docs/model.md)."""

from keys.map import Places
from model.attributes import (
    Attribute,
    Author,
    Choice,
    Code,
    Coordinate,
    GeneratedId,
    Geohash,
    Identifier,
    Number,
    Text,
    Timestamp,
)
from model.entities import Entity, Key, Keys, Only, Parent, key, only, same
from model.errors import ModelError
from model.kinds import Copies
from model.model import Model
from model.patterns import (
    Access,
    Create,
    Delete,
    Heatmap,
    ListOf,
    Lookup,
    Moves,
    Near,
    Pattern,
    Range,
    Update,
    moves,
)

__all__ = [
    "Access",
    "Attribute",
    "Author",
    "Choice",
    "Code",
    "Coordinate",
    "Copies",
    "Create",
    "Delete",
    "Entity",
    "GeneratedId",
    "Geohash",
    "Heatmap",
    "Identifier",
    "Key",
    "Keys",
    "ListOf",
    "Lookup",
    "Model",
    "ModelError",
    "Moves",
    "Near",
    "Number",
    "Only",
    "Parent",
    "Pattern",
    "Places",
    "Range",
    "Text",
    "Timestamp",
    "Update",
    "key",
    "moves",
    "only",
    "same",
]
