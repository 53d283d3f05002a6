"""The clock and the randomness behind generated ids and write tokens, kept out of `keys`."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from keys.codecs import KSUID_PAYLOAD_BYTES, ksuid, to_millis


def now() -> datetime:
    return to_millis(datetime.now(UTC))


def new_ksuid(at: datetime) -> str:
    """A fresh KSUID whose time is `at` (so ids sort the way their items were created)."""
    return ksuid(int(at.timestamp()), os.urandom(KSUID_PAYLOAD_BYTES))


def new_token() -> str:
    """A write token (`store.requests.WRITE_TOKEN`): one per call, never shown to a client."""
    return os.urandom(16).hex()
