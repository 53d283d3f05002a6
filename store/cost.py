"""The cost report of one GraphQL request, summed from DynamoDB's own figures."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Operation = Literal["read", "write"]


@dataclass
class Cost:
    requests: int = 0
    read_capacity_units: float = 0.0
    write_capacity_units: float = 0.0
    items_scanned: int = 0
    items_returned: int = 0

    def record(
        self,
        operation: Operation,
        response: Mapping[str, Any],
        *,
        scanned: int | None = None,
        returned: int = 0,
    ) -> None:
        """Add one call: its consumed capacity and the items it read and returned.

        Point reads report no ScannedCount; for them what was returned is what was read.
        """
        self.requests += 1
        consumed = response.get("ConsumedCapacity") or []
        for entry in consumed if isinstance(consumed, list) else [consumed]:
            read = entry.get("ReadCapacityUnits")
            write = entry.get("WriteCapacityUnits")
            if read is None and write is None:
                total = float(entry.get("CapacityUnits", 0.0))
                read, write = (total, 0.0) if operation == "read" else (0.0, total)
            self.read_capacity_units += float(read or 0.0)
            self.write_capacity_units += float(write or 0.0)
        self.items_scanned += returned if scanned is None else scanned
        self.items_returned += returned

    def as_dict(self) -> dict[str, int | float]:
        return {
            "requests": self.requests,
            "readCapacityUnits": round(self.read_capacity_units, 4),
            "writeCapacityUnits": round(self.write_capacity_units, 4),
            "itemsScanned": self.items_scanned,
            "itemsReturned": self.items_returned,
        }
