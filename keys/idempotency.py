"""The record of an Idempotency-Key (docs/http.md#safe-retries): one item per caller and key, each
in a partition of its own, kept 24 hours (DynamoDB's time to live deletes it after).

    record  PK = IDEMPOTENCY#<sha256 of caller and key>  SK = IDEMPOTENCY

The key is hashed with its caller, so one caller's keys never meet another's, and a key's
characters never reach the table's keys.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from errors.vocabulary import BadUserInput
from keys.table import Index

HEADER = "Idempotency-Key"
LABEL = "IDEMPOTENCY"
HOURS = 24
# The attribute DynamoDB's time to live reads: seconds since the epoch.
EXPIRES = "expiresAt"
_KEY = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def checked_key(value: str) -> str:
    """An Idempotency-Key as sent, else BAD_USER_INPUT saying what one may hold."""
    if not _KEY.fullmatch(value):
        raise BadUserInput(
            "use 1 to 128 characters of A-Z, a-z, 0-9, '.', '_', ':' and '-'", field=HEADER
        )
    return value


def record_key(table: Index, caller: str, key: str) -> dict[str, str]:
    """The record's key on `table` (the layout's)."""
    digest = hashlib.sha256(f"{caller}\0{key}".encode()).hexdigest()
    return {table.partition_key: f"{LABEL}#{digest}", table.sort_key: LABEL}


def fingerprint(
    document: str, operation_name: str | None, variables: Mapping[str, Any] | None
) -> str:
    """What tells one request from another under the same key: its document, the operation
    it names and its variables (in any order of their names)."""
    request = [document, operation_name, variables or {}]
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()
