"""Declarations of entities and their access patterns, from which the engine derives keys,
item shapes, writes, bounds, cursors, GraphQL fields and subscriptions (docs/model.md)."""

from model.attributes import (
    Attribute,
    Author,
    Choice,
    GeneratedId,
    Identifier,
    Number,
    Text,
    Timestamp,
)
from model.entities import Entity, Key, Keys, ModelError, Only, Parent, key, only, same
from model.model import Model
from model.patterns import (
    Access,
    Create,
    Delete,
    ListOf,
    Lookup,
    Moves,
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
    "Create",
    "Delete",
    "Entity",
    "GeneratedId",
    "Identifier",
    "Key",
    "Keys",
    "ListOf",
    "Lookup",
    "Model",
    "ModelError",
    "Moves",
    "Number",
    "Only",
    "Parent",
    "Pattern",
    "Range",
    "Text",
    "Timestamp",
    "Update",
    "key",
    "moves",
    "only",
    "same",
]
