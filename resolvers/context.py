"""The typed context handed to every resolver: who asks, what the operation reads through,
and the change feed its subscriptions follow.

The context is immutable: an operation of its own (of a batch, or over a socket) is a
`dataclasses.replace` of it with fresh reads. What the gateway knows of the request (its
id, its bound, its idempotency key) is the gateway's, not the resolvers'
(`gateway/request_scope.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from data.callers import OPEN, Caller
from data.feed import ChangeFeed
from store.client import Store
from store.cost import Cost
from store.cursors import CursorCodec
from store.loaders import ItemLoader
from store.pagination import Paginator


@dataclass
class Reads:
    """What one operation reads through: the store (its cost and request budget), the item
    loader and the paginator, and the arguments its bound chose to fit the limits
    (`cost.Tune`, by response key; set once, before execution)."""

    store: Store
    items: ItemLoader
    pages: Paginator
    chosen: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def on(cls, store: Store, cursors: CursorCodec) -> Reads:
        return cls(store, ItemLoader(store), Paginator(store, cursors))

    def fresh(self) -> Reads:
        """Reads of their own on the same table, cache and cursors, at no cost yet."""
        return Reads.on(self.store.sibling(), self.pages.cursors)

    def restart(self) -> None:
        """Start afresh, within the same request budget: a subscription's next event."""
        fresh, budget = self.fresh(), self.store.budget
        self.store, self.items, self.pages = fresh.store, fresh.items, fresh.pages
        self.store.budget = budget


@dataclass(frozen=True)
class Context:
    reads: Reads
    # Who is asking; everyone may do everything in open mode.
    caller: Caller = OPEN
    # The process's change feed, for subscriptions (None where none is served), and how
    # many undelivered events one subscription may hold.
    changes: ChangeFeed | None = None
    subscription_buffer: int = 100
    # Told of the cost of each subscription event once it is answered (the rate limit).
    charge: Callable[[Cost], None] | None = None

    @property
    def store(self) -> Store:
        return self.reads.store

    @property
    def items(self) -> ItemLoader:
        return self.reads.items

    @property
    def pages(self) -> Paginator:
        return self.reads.pages

    @property
    def cost(self) -> Cost:
        return self.reads.store.cost

    def next_event(self) -> None:
        """A subscription's next event is answered on its own: its cost (charged to the
        caller), loaders and request budget start afresh; what came before is charged."""
        if self.charge is not None and self.cost.requests:
            self.charge(self.cost)
        self.reads.restart()

    def for_operation(self) -> Context:
        """A context of its own for one operation (of a batch, or of a connection: each
        subscription answers its events on its own), sharing the caller and the feed."""
        return replace(self, reads=self.reads.fresh())
