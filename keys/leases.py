"""The lease of a shard of the table's stream (docs/subscriptions.md#several-replicas): with
several replicas, one process reads each shard, holding this item, and keeps where it got to.

    lease  PK = STREAMLEASE#<stream label>  SK = SHARD#<shard id>

A stream's label is the last part of its ARN (when it was turned on): a stream turned off
and on again is a new one, with leases of its own.
"""

from __future__ import annotations

from keys.table import Index

LABEL = "STREAMLEASE#"
SHARD = "SHARD#"


def lease_key(table: Index, stream_arn: str, shard_id: str) -> dict[str, str]:
    """The lease's key on `table` (the layout's)."""
    label = stream_arn.rsplit("/", 1)[-1]
    return {table.partition_key: LABEL + label, table.sort_key: SHARD + shard_id}
