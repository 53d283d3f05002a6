"""The typed per-request context handed to every resolver."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from data.callers import OPEN, Caller
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

    @property
    def cost(self) -> Cost:
        return self.store.cost

    def cost_report(self) -> dict[str, Any]:
        """`extensions.cost`: what was consumed, the bound, and the caller's budget."""
        report: dict[str, Any] = {**self.cost.as_dict()}
        if self.estimated is not None:
            report["estimated"] = self.estimated
        if self.budget is not None:
            report["budget"] = self.budget()
        return report

    @classmethod
    def create(
        cls, client: DynamoDBClient, table: str, cursors: CursorCodec, caller: Caller = OPEN
    ) -> Context:
        """A fresh context: its own cost report and loader cache, a shared client."""
        store = Store(client, table)
        return cls(
            store=store, items=ItemLoader(store), pages=Paginator(store, cursors), caller=caller
        )
