"""What a model module imports: the declarations (`model`), and the parts of the engine that
a model's hand-written fields and hooks build on (docs/model.md#the-hook). A model imports
from here, never from the engine's own packages, whose names may move; the import
contracts (`pyproject.toml`) hold the demo and the examples to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from data import validation as validation

# Who asks, and the clock.
from data.callers import OPEN as OPEN
from data.callers import Caller as Caller
from data.clock import new_token as new_token
from data.clock import now as now
from data.copies import verify as copies_verify

# What a model's `verify` hook checks and repairs: copies, and the map's short counts.
# An entity's records and writes, as the derived fields make them.
from data.entities import Record as Record
from data.entities import checked as checked
from data.entities import described as described
from data.entities import record as record
from data.entity_lists import list_read as list_read
from data.places.counts import rebuild_short_counts as rebuild_short_counts
from data.places.counts import short_count_differences as short_count_differences
from data.writes.creates import put_new as put_new
from data.writes.entities import new_items as new_items

# The error vocabulary: every refusal a hand-written field or hook raises.
from errors.vocabulary import BadUserInput as BadUserInput
from errors.vocabulary import Conflict as Conflict
from errors.vocabulary import DynagateError as DynagateError
from errors.vocabulary import Forbidden as Forbidden
from errors.vocabulary import NotFound as NotFound
from gateway.served_model import Face as Face

# The declarations: entities, keys, access patterns, the table's layout.
from model import CLASSIC as CLASSIC
from model import GSI1 as GSI1
from model import GSI2 as GSI2
from model import GSI3 as GSI3
from model import TABLE as TABLE
from model import Access as Access
from model import Attribute as Attribute
from model import Author as Author
from model import Choice as Choice
from model import Code as Code
from model import Coordinate as Coordinate
from model import Copies as Copies
from model import Counter as Counter
from model import Create as Create
from model import Delete as Delete
from model import Discriminator as Discriminator
from model import Email as Email
from model import Entity as Entity
from model import Flag as Flag
from model import GeneratedId as GeneratedId
from model import Geohash as Geohash
from model import Group as Group
from model import Handle as Handle
from model import Heatmap as Heatmap
from model import Identifier as Identifier
from model import Index as Index
from model import Json as Json
from model import Key as Key
from model import Keys as Keys
from model import Layout as Layout
from model import Lines as Lines
from model import ListOf as ListOf
from model import Lookup as Lookup
from model import Model as Model
from model import ModelError as ModelError
from model import Moves as Moves
from model import Near as Near
from model import Nearest as Nearest
from model import Number as Number
from model import NumberSet as NumberSet
from model import Only as Only
from model import Owner as Owner
from model import Parent as Parent
from model import Pattern as Pattern
from model import Places as Places
from model import Range as Range
from model import Readers as Readers
from model import Real as Real
from model import Text as Text
from model import TextSet as TextSet
from model import Timestamp as Timestamp
from model import Total as Total
from model import Update as Update
from model import Version as Version
from model import group as group
from model import key as key
from model import local_index as local_index
from model import moves as moves
from model import only as only
from model import readers as readers
from model import same as same
from model import template as template

# Hand-written root fields: their rules, their worst case, their arguments.
from resolvers.access import AUTHOR as AUTHOR
from resolvers.access import SignedIn as SignedIn
from resolvers.access import Stored as Stored
from resolvers.access import Themselves as Themselves
from resolvers.context import Context as Context
from resolvers.cost import mutation_with_cost as mutation_with_cost
from resolvers.cost import writes as writes
from resolvers.derived_arguments import REQUIRED as REQUIRED
from resolvers.derived_arguments import enum as enum
from resolvers.derived_arguments import signed as signed
from resolvers.derived_roots import Roots as Roots

# The table, for a hand-written access pattern: the store, its requests, its refusals.
from store.client import TRANSACT_CALLS as TRANSACT_CALLS
from store.client import DynamoDBClient as DynamoDBClient
from store.client import Store as Store
from store.cost import worst_case as worst_case
from store.errors import ConditionFailed as ConditionFailed
from store.errors import TransactionCanceled as TransactionCanceled
from store.loaders import ItemLoader as ItemLoader
from store.pagination import PageArgs as PageArgs
from store.requests import Item as Item
from store.requests import condition_check as condition_check
from store.requests import expecting as expecting
from store.requests import transaction_delete as transaction_delete
from store.requests import transaction_put as transaction_put
from store.requests import transaction_update as transaction_update
from store.requests import update_request as update_request

__all__ = [
    "AUTHOR",
    "CLASSIC",
    "GSI1",
    "GSI2",
    "GSI3",
    "OPEN",
    "REQUIRED",
    "SEED_USER",
    "TABLE",
    "TRANSACT_CALLS",
    "Access",
    "Attribute",
    "Author",
    "BadUserInput",
    "Caller",
    "Choice",
    "Code",
    "ConditionFailed",
    "Conflict",
    "Context",
    "Coordinate",
    "Copies",
    "Counter",
    "Create",
    "Delete",
    "Discriminator",
    "DynagateError",
    "DynamoDBClient",
    "Email",
    "Entity",
    "Face",
    "Flag",
    "Forbidden",
    "GeneratedId",
    "Geohash",
    "Group",
    "Handle",
    "Heatmap",
    "Identifier",
    "Index",
    "Item",
    "ItemLoader",
    "Json",
    "Key",
    "Keys",
    "Layout",
    "Lines",
    "ListOf",
    "Lookup",
    "Model",
    "ModelError",
    "Moves",
    "Near",
    "Nearest",
    "NotFound",
    "Number",
    "NumberSet",
    "Only",
    "Owner",
    "PageArgs",
    "Parent",
    "Pattern",
    "Places",
    "Range",
    "Readers",
    "Real",
    "Record",
    "Roots",
    "Seeding",
    "SignedIn",
    "Store",
    "Stored",
    "Text",
    "TextSet",
    "Themselves",
    "Timestamp",
    "Total",
    "TransactionCanceled",
    "Update",
    "Version",
    "checked",
    "condition_check",
    "copies_verify",
    "described",
    "enum",
    "expecting",
    "group",
    "key",
    "list_read",
    "local_index",
    "moves",
    "mutation_with_cost",
    "new_items",
    "new_token",
    "now",
    "only",
    "put_new",
    "readers",
    "rebuild_short_counts",
    "record",
    "same",
    "short_count_differences",
    "signed",
    "template",
    "transaction_delete",
    "transaction_put",
    "transaction_update",
    "update_request",
    "validation",
    "worst_case",
    "writes",
]

if TYPE_CHECKING:
    from gateway.cli.seeding import SEED_USER as SEED_USER
    from gateway.cli.seeding import Seeding as Seeding


def __getattr__(name: str) -> Any:
    """The seed hook's helper, loaded when a command seeds, not when the model is served."""
    if name in ("Seeding", "SEED_USER"):
        from gateway.cli import seeding

        return getattr(seeding, name)
    raise AttributeError(f"module 'dynagate' has no attribute {name!r}")
