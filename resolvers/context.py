"""The typed per-request context handed to every resolver."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from data.callers import OPEN, Caller
from data.feed import ChangeFeed
from data.idempotency import MalformedKey
from model import CLASSIC, Layout
from store.cache.reads import CachedReads
from store.client import Store
from store.cost import Cost
from store.cursors import CursorCodec
from store.loaders import ItemLoader
from store.pagination import Paginator

if TYPE_CHECKING:
    from store.client import DynamoDBClient


@dataclass
class Context:
    store: Store
    items: ItemLoader
    pages: Paginator
    # The bound computed before execution, as `extensions.cost.estimated` reports it.
    estimated: dict[str, int] | None = None
    # Arguments the bound picked to fit the limits (`cost.Tune`), by response key.
    chosen: Mapping[str, Any] = field(default_factory=dict)
    # The caller's rate-limit budget once this request's cost is drawn, as
    # `extensions.cost.budget` reports it; None without a rate limit.
    budget: Callable[[], dict[str, float]] | None = None
    # Who is asking; everyone may do everything in open mode.
    caller: Caller = OPEN
    # The process's change feed, for subscriptions (None where none is served), and how
    # many undelivered events one subscription may hold.
    changes: ChangeFeed | None = None
    subscription_buffer: int = 100
    # Told of the cost of each subscription event once it is answered (the rate limit).
    charge: Callable[[Cost], None] | None = None
    # Safe retries: the request's Idempotency-Key, whose it is (the rate limit's bucket),
    # and the answer of the first request with that key when this one repeats it.
    idempotency_key: str | MalformedKey | None = None
    who: str = ""
    replayed: str | None = None
    # Bound the operation, run nothing: a batch is bounded whole before any of it runs.
    bounding_only: bool = False
    # Documents the request sent with their hashes, registered once they ran (shared by
    # the operations of a batch).
    sent_documents: set[str] = field(default_factory=set)

    @property
    def cost(self) -> Cost:
        return self.store.cost

    def cost_report(self) -> dict[str, Any]:
        """`extensions.cost`: what was consumed, the bound, and the caller's budget."""
        report: dict[str, Any] = self.cost.as_dict(cached=self.store.cache is not None)
        if self.estimated is not None:
            report["estimated"] = self.estimated
        if self.budget is not None:
            report["budget"] = self.budget()
        return report

    def next_event(self) -> None:
        """A subscription's next event is answered on its own: its cost (charged to the
        caller), loaders and request budget start afresh; what came before is charged."""
        if self.charge is not None and self.cost.requests:
            self.charge(self.cost)
        previous = self.store
        store = previous.sibling()
        store.budget = previous.budget
        self.store, self.items = store, ItemLoader(store)
        self.pages = Paginator(store, self.pages.cursors)

    def for_operation(self) -> Context:
        """A context of its own for one operation of a connection (each subscription
        answers its events on its own), sharing the connection's caller and feed."""
        store = self.store
        fresh = Context.create(
            store.client, store.table, self.pages.cursors, self.caller, store.cache, store.layout
        )
        fresh.store.tracing = store.tracing
        fresh.changes, fresh.subscription_buffer = self.changes, self.subscription_buffer
        fresh.charge, fresh.budget = self.charge, self.budget
        fresh.sent_documents = self.sent_documents
        return fresh

    @classmethod
    def create(
        cls,
        client: DynamoDBClient,
        table: str,
        cursors: CursorCodec,
        caller: Caller = OPEN,
        cache: CachedReads | None = None,
        layout: Layout = CLASSIC,
    ) -> Context:
        """A fresh context: its own cost report and loader cache, a shared client and
        read cache, on the table of `layout` (the served model's)."""
        store = Store(client, table, cache=cache, layout=layout)
        return cls(
            store=store, items=ItemLoader(store), pages=Paginator(store, cursors), caller=caller
        )
