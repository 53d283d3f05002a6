"""How an entity's items are kept — its own item alone, with a copy in every list a filter
can ask for (`model.Copies`, docs/model.md#copies), or with its place and cell counts
(`model.Places`, docs/model.md#places) — as one interface, chosen once per entity
(`data/writes/kinds.py`). Each kind says what a new entity writes beside its own item, how
an entity is changed and removed, what that costs, and what removing one read entity writes
(a parent's removal takes its children so). The entity's writes (`data/writes/entities.py`)
ask it and never look at the kind again."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from data.callers import Caller
from data.entities import Record
from model import Access, Entity, Moves
from store.client import Store
from store.loaders import ItemLoader
from store.requests import Item, Key

Action = dict[str, Any]


@dataclass(frozen=True)
class Change:
    """An update as asked: of the entity `arguments` name, the checked `values`, by
    `caller`; held to its writer (`writer_only`), its owner (`owner_only`) or its parent's
    owner (`parent_owner_of`); a choice moving only as `transitions` allow. `asked`: every
    attribute the update may change, given or not (what a key it re-renders may need)."""

    arguments: Mapping[str, Any]
    values: Mapping[str, Any]
    caller: Caller
    writer_only: bool
    transitions: Sequence[Moves] = ()
    asked: frozenset[str] = frozenset()
    owner_only: bool = False
    parent_owner_of: Entity | None = None


@dataclass(frozen=True)
class Removing:
    """A delete as asked: of the entity `arguments` name, by `caller`, under the same rules
    as a `Change`."""

    arguments: Mapping[str, Any]
    caller: Caller
    writer_only: bool
    owner_only: bool = False
    parent_owner_of: Entity | None = None


class ReadFirst:
    """The words of a kind whose update and delete read the item (consistently), then write
    it with what it keeps beside it in one transaction, its rule held from the read: what
    that transaction `updates` and `deletes` write."""

    updates: ClassVar[str]
    deletes: ClassVar[str]

    def update_said(self, key: str, access: Access) -> tuple[str, int]:
        return f"GetItem (consistent), then {self.updates}", 0

    def delete_said(self, access: Access) -> tuple[str, int]:
        return f"GetItem (consistent), then {self.deletes}", 0


class Keeping(Protocol):
    # An update giving nothing answers the entity as stored: it is read first anyway.
    answers_unchanged: bool

    def derive(self, entity: Entity, values: dict[str, Any]) -> None:
        """Add to a new entity's `values` what the kind derives from them."""

    def written(self, entity: Entity, item: Item) -> tuple[Item, list[Item]]:
        """A new entity's own item as written (its type, its version), and the items
        written beside it in the same transaction."""

    def create_calls(self) -> int:
        """The most calls a create makes with no parent to check."""

    async def create(
        self, store: Store, entity: Entity, item: Item, beside: list[Item], done: str
    ) -> None:
        """Write a new entity with no parent to check: CONFLICT when its key is taken."""

    def update_calls(self, entity: Entity, changes: Iterable[str]) -> tuple[int, int]:
        """The most calls an update of `changes` makes, and the items its reads take."""

    def update_said(self, key: str, access: Access) -> tuple[str, int]:
        """The requests an update of the item keyed `key` makes under `access`, in words
        (`dynagate model check`, the schema's descriptions), and the calls and items its
        rule reads beyond `update_calls`."""

    async def update(
        self, store: Store, items: ItemLoader, entity: Entity, change: Change
    ) -> Record:
        """Make `change`, answering the entity as it is then."""

    def delete_calls(self, entity: Entity) -> tuple[int, int]:
        """The most calls a delete makes, and the items its reads take."""

    def delete_said(self, access: Access) -> tuple[str, int]:
        """The requests a delete makes under `access`, in words, and the calls and items
        its rule reads beyond `delete_calls`."""

    async def delete(
        self, store: Store, items: ItemLoader, entity: Entity, removing: Removing
    ) -> bool:
        """Remove the entity `removing` names, with all it keeps."""

    def own_key(self, entity: Entity, item: Item) -> Key:
        """The table key of the entity's own item, from an item of it read."""

    def removal(
        self, table: str, entity: Entity, item: Item, held: Mapping[str, Any]
    ) -> list[Action]:
        """The actions removing the entity read as `item`, the own item's first: only while
        it is as read, and holds `held`."""

    def removal_size(self, entity: Entity) -> int:
        """How many actions `removal` makes."""
