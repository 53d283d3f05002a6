"""The checkpoint of a migration (docs/model.md#changing-a-model): where each segment of
its Scan got to, so that `dynagate migrate apply` started again goes on from there.

    checkpoint  PK = MIGRATION  SK = MIGRATION

One per table: a model whose derivations differ from the checkpoint's starts afresh.
"""

from __future__ import annotations

from keys.table import Index

LABEL = "MIGRATION"


def checkpoint_key(table: Index) -> dict[str, str]:
    """The checkpoint's key on `table` (the layout's)."""
    return {table.partition_key: LABEL, table.sort_key: LABEL}


# A segment whose Scan is over.
DONE = "done"


def segment_attribute(segment: int) -> str:
    return f"segment{segment}"
