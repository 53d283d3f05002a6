"""AWS's documented size and capacity rules, applied to items we build (pure, no network).

Item size (developer guide, "DynamoDB item sizes and formats", CapacityUnitCalculations.html):
each attribute is the UTF-8 length of its name plus its value; a string is its UTF-8 bytes, a
number about 1 byte per two significant digits plus 1, a Boolean or null 1 byte, a list or
map 3 bytes plus 1 per element. Writes round each item up to 1 KB; a transactional write
costs 2 units per KB (read-write-operations.html). Query reads sum the sizes of the items it
evaluates and round the sum up to 4 KB; eventually consistent reads cost half a unit per
4 KB; a filter does not lower the charge (read-write-operations.html, Query filter docs).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from keys.table import GSI1, TABLE
from store.requests import Item, to_attributes

WRITE_UNIT_BYTES = 1024
READ_UNIT_BYTES = 4096


def number_size(text: str) -> int:
    """Bytes of a number: 1 per two significant digits, plus 1 (leading/trailing 0s trimmed)."""
    significant = "".join(c for c in text if c.isdigit()).strip("0")
    return math.ceil(len(significant) / 2) + 1


def value_size(value: Mapping[str, Any]) -> int:
    """Bytes of one attribute value in DynamoDB's wire format (`{"S": "..."}`)."""
    ((kind, data),) = value.items()
    if kind == "S":
        return len(data.encode())
    if kind == "N":
        return number_size(data)
    if kind == "B":
        return len(data)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "L":
        return 3 + sum(1 + value_size(v) for v in data)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + value_size(v) for k, v in data.items())
    raise ValueError(f"no size rule here for attribute type {kind}")


def item_size(item: Item) -> int:
    """Bytes of an item: names plus values, as DynamoDB counts them for capacity."""
    return sum(len(name.encode()) + value_size(v) for name, v in to_attributes(item).items())


def write_units(size: int) -> int:
    """Standard write units of one item: its size rounded up to whole KB (at least 1)."""
    return max(1, math.ceil(size / WRITE_UNIT_BYTES))


def read_units(total_bytes: int, *, consistent: bool = False) -> float:
    """Read units of one Query/GetItem call that evaluated `total_bytes` of items."""
    blocks = max(1, math.ceil(total_bytes / READ_UNIT_BYTES))
    return blocks if consistent else blocks / 2


def key_bytes(item: Item) -> int:
    """UTF-8 bytes of the two key attributes that hold a copy's rating set: SK and GSI1PK."""
    return len(item[TABLE.sort_key].encode()) + len(item[GSI1.partition_key].encode())


@dataclass(frozen=True)
class PostCost:
    """Modelled WCU of one postComment: a ConditionCheck on the product and 33 Puts."""

    condition_check: int  # 2 per KB of the product item
    table_puts: int  # 2 per KB of each Put item (primary + 32 copies)
    gsi1: int  # 1 per KB of each index entry (the 32 copies; projection ALL = whole item)

    @property
    def table(self) -> int:
        return self.condition_check + self.table_puts

    @property
    def total(self) -> int:
        """GSI writes at the standard rate: the documented reading (see the report)."""
        return self.table + self.gsi1

    @property
    def total_gsi_doubled(self) -> int:
        """Upper bound if index writes were also charged at the transactional rate."""
        return self.table + 2 * self.gsi1


def post_cost(product: Item, items: Iterable[Item]) -> PostCost:
    puts = list(items)
    return PostCost(
        condition_check=2 * write_units(item_size(product)),
        table_puts=sum(2 * write_units(item_size(i)) for i in puts),
        gsi1=sum(write_units(item_size(i)) for i in puts if GSI1.partition_key in i),
    )


# The rules above and where they are written; the report prints these.
RULES: tuple[tuple[str, str], ...] = (
    (
        "Item size = sum of UTF-8 lengths of attribute names and values; a number is about"
        " 1 byte per 2 significant digits + 1",
        "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html",
    ),
    (
        "1 write unit per 1 KB (rounded up per item); a transactional write takes 2 per 1 KB;"
        " Query: sum of item sizes rounded up to 4 KB, 0.5 RCU per 4 KB eventually consistent",
        "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html",
    ),
    (
        "Transactions: two underlying reads or writes of every item in the transaction, one to"
        " prepare and one to commit",
        "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html"
        "#transaction-capacity-handling",
    ),
    (
        "GSI: writing a new item that defines the index key takes one write (per 1 KB of the"
        " index entry) in the index; the write's cost is table + index units",
        "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html"
        "#GSI.ThroughputConsiderations.Writes",
    ),
    (
        "A filter expression is applied after the Query has read: same read capacity with or"
        " without it; the 1 MB page limit applies before the filter",
        "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.FilterExpression.html",
    ),
    (
        "NOT in AWS's documentation: the unit type of a ConditionCheck and whether index writes"
        " inside a transaction are doubled. Third-party measurements against real DynamoDB say a"
        " ConditionCheck is 2 WCU (write, sized on the checked item) and the 2x applies to the"
        " table only",
        "https://github.com/paritysuite/dynamodb-conformance/pull/67 ;"
        " https://github.com/nubo-db/dynoxide/pull/188",
    ),
)
