"""The context each operation runs with, as the gateway makes it: the resolvers' own
(`resolvers/context.py`), the request it answers (`gateway/request_scope.py`), and what the
gateway learns of the operation as it runs."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from gateway.request_scope import RequestScope
from resolvers.context import Context


@dataclass
class OperationState:
    """What the gateway learns of one operation as it runs: the bound computed before
    execution (`extensions.cost.estimated`), and the first answer when the operation
    repeats an Idempotency-Key. `bounding_only`: bound it and run nothing (a batch is
    bounded whole before any of it runs)."""

    bounding_only: bool = False
    estimated: dict[str, int] | None = None
    replayed: str | None = None


@dataclass(frozen=True, kw_only=True)
class OperationContext(Context):
    """The context an operation runs with: the resolvers' own, and the request it answers
    with what the gateway learns of the operation."""

    request: RequestScope
    operation: OperationState = field(default_factory=OperationState)

    def for_operation(
        self, *, bounding_only: bool = False, request: RequestScope | None = None
    ) -> OperationContext:
        """A context of its own for one operation of the same request, or of `request` (an
        operation over a socket is a request of its own)."""
        return replace(
            self,
            reads=self.reads.fresh(),
            request=self.request if request is None else request,
            operation=OperationState(bounding_only=bounding_only),
        )

    def cost_report(self) -> dict[str, Any]:
        """`extensions.cost`: what was consumed, the bound, and the caller's budget."""
        report: dict[str, Any] = self.cost.as_dict(cached=self.store.cache is not None)
        if self.operation.estimated is not None:
            report["estimated"] = self.operation.estimated
        if self.request.budget is not None:
            report["budget"] = self.request.budget()
        return report
