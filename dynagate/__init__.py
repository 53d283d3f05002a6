"""What a model module imports: every declaration (`model`: entities, keys, access
patterns, the table's layout), its face (`Face`, `Roots`, `Seeding`), and the parts of the
engine that its hand-written fields and hooks build on (docs/model.md#the-hook): the
error vocabulary; who asks and the clock; an entity's records and writes as the derived
fields make them; the rules, worst cases and arguments of a root field; the store, its
requests and refusals; and what a `verify` hook checks and repairs (copies, the map's short
counts). A model imports from here, never from the engine's own packages, whose names may
move; an import contract (`pyproject.toml`) holds the demo and the examples to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import model
from data import validation
from data.callers import OPEN, Caller
from data.clock import new_token, now
from data.copies import verify as copies_verify
from data.entities import Record, checked, described, record
from data.entity_lists import list_read
from data.places.counts import rebuild_short_counts, short_count_differences
from data.writes.creates import put_new
from data.writes.entities import new_items
from errors.vocabulary import BadUserInput, Conflict, DynagateError, Forbidden, NotFound
from gateway.served_model import Face
from model import *  # noqa: F403  (every declaration, as `model` exports them)
from resolvers.access import AUTHOR, SignedIn, Stored, Themselves
from resolvers.context import Context
from resolvers.derived_arguments import REQUIRED, enum, signed
from resolvers.derived_roots import Roots
from resolvers.field_costs import mutation_with_cost, writes
from store.client import TRANSACT_CALLS, DynamoDBClient, Store
from store.cost import worst_case
from store.errors import ConditionFailed, TransactionCanceled
from store.loaders import ItemLoader
from store.pagination import PageArgs
from store.requests import (
    Item,
    condition_check,
    expecting,
    transaction_delete,
    transaction_put,
    transaction_update,
    update_request,
)

__all__ = [
    "AUTHOR",
    "OPEN",
    "REQUIRED",
    "SEED_USER",
    "TRANSACT_CALLS",
    "BadUserInput",
    "Caller",
    "ConditionFailed",
    "Conflict",
    "Context",
    "DynagateError",
    "DynamoDBClient",
    "Face",
    "Forbidden",
    "Item",
    "ItemLoader",
    "NotFound",
    "PageArgs",
    "Record",
    "Roots",
    "Seeding",
    "SignedIn",
    "Store",
    "Stored",
    "Themselves",
    "TransactionCanceled",
    "checked",
    "condition_check",
    "copies_verify",
    "described",
    "enum",
    "expecting",
    "list_read",
    "mutation_with_cost",
    "new_items",
    "new_token",
    "now",
    "put_new",
    "rebuild_short_counts",
    "record",
    "short_count_differences",
    "signed",
    "transaction_delete",
    "transaction_put",
    "transaction_update",
    "update_request",
    "validation",
    "worst_case",
    "writes",
]
__all__ += model.__all__  # every declaration

if TYPE_CHECKING:
    from gateway.cli.seeding import SEED_USER, Seeding


def __getattr__(name: str) -> Any:
    """The seed hook's helper, loaded when a command seeds, not when the model is served."""
    if name in ("Seeding", "SEED_USER"):
        from gateway.cli import seeding

        return getattr(seeding, name)
    raise AttributeError(f"module 'dynagate' has no attribute {name!r}")
