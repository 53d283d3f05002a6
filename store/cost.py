"""The cost report of one GraphQL request, summed from DynamoDB's own figures; and the
worst case each access pattern declares on itself, which the bound of an operation uses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
# The DynamoDB operations that write: a capacity figure not split into read and write units
# is theirs in write units.
WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})


@dataclass(frozen=True)
class Worst:
    """The most DynamoDB calls an access pattern makes, its own retries included, and the
    most items its reads take."""

    requests: int
    items: int = 0


# By the access pattern's qualified name.
_DECLARED: dict[str, Worst] = {}


def worst_case(requests: int, items: int = 0) -> Callable[[F], F]:
    """Declares an access pattern's worst case on the access pattern itself."""

    def declare(function: F) -> F:
        _DECLARED[qualified_name(function)] = Worst(requests, items)
        return function

    return declare


def qualified_name(function: Callable[..., Any]) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def declared(function: Callable[..., Any]) -> Worst:
    """The worst case `function` declares (KeyError: it declares none)."""
    return _DECLARED[qualified_name(function)]


def every_declared() -> Mapping[str, Worst]:
    """Each access pattern that declares a worst case, by qualified name."""
    return dict(_DECLARED)


@dataclass
class Cost:
    requests: int = 0
    read_capacity_units: float = 0.0
    write_capacity_units: float = 0.0
    items_scanned: int = 0
    items_returned: int = 0
    # Calls refused because they would have passed the request's bound (not reported to
    # the client: a cost model too low is ours to fix, counted in /metrics).
    past_bound: int = 0
    # Reads answered from the read cache (`store/cache/reads.py`), and the capacity
    # DynamoDB would have consumed for them.
    cached_requests: int = 0
    saved_read_capacity_units: float = 0.0
    # The calls by DynamoDB operation ("Query", "TransactWriteItems"): `requests`, named.
    operations: dict[str, int] = field(default_factory=dict)

    def record(
        self,
        operation: str,
        response: Mapping[str, Any],
        *,
        scanned: int | None = None,
        returned: int = 0,
    ) -> None:
        """Add one call of the DynamoDB `operation`: its consumed capacity and the items it
        read and returned.

        Point reads report no ScannedCount; for them what was returned is what was read.
        """
        self.requests += 1
        self.operations[operation] = self.operations.get(operation, 0) + 1
        consumed = response.get("ConsumedCapacity") or []
        for entry in consumed if isinstance(consumed, list) else [consumed]:
            read = entry.get("ReadCapacityUnits")
            write = entry.get("WriteCapacityUnits")
            if read is None and write is None:
                total = float(entry.get("CapacityUnits", 0.0))
                read, write = (0.0, total) if operation in WRITES else (total, 0.0)
            self.read_capacity_units += float(read or 0.0)
            self.write_capacity_units += float(write or 0.0)
        self.items_scanned += returned if scanned is None else scanned
        self.items_returned += returned

    def cached(self, read_capacity_units: float) -> None:
        """Add one read answered from the read cache."""
        self.cached_requests += 1
        self.saved_read_capacity_units += read_capacity_units

    def add(self, other: Cost) -> None:
        """Count `other`'s calls in these (a batch's operations in its request)."""
        self.requests += other.requests
        self.read_capacity_units += other.read_capacity_units
        self.write_capacity_units += other.write_capacity_units
        self.items_scanned += other.items_scanned
        self.items_returned += other.items_returned
        self.past_bound += other.past_bound
        self.cached_requests += other.cached_requests
        self.saved_read_capacity_units += other.saved_read_capacity_units
        for operation, calls in other.operations.items():
            self.operations[operation] = self.operations.get(operation, 0) + calls

    def copied(self) -> Cost:
        """These figures as they stand, apart from what is counted next."""
        return replace(self, operations=dict(self.operations))

    def as_dict(self, *, cached: bool = False) -> dict[str, int | float | dict[str, int]]:
        """The report's figures; with `cached` (the read cache is on), what it saved."""
        report: dict[str, int | float | dict[str, int]] = {
            "requests": self.requests,
            "readCapacityUnits": round(self.read_capacity_units, 4),
            "writeCapacityUnits": round(self.write_capacity_units, 4),
            "itemsScanned": self.items_scanned,
            "itemsReturned": self.items_returned,
            "operations": dict(sorted(self.operations.items())),
        }
        if cached:
            report["cachedRequests"] = self.cached_requests
            report["savedReadCapacityUnits"] = round(self.saved_read_capacity_units, 4)
        return report
