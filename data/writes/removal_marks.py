"""The mark of a parent being removed (`data/writes/parents.py`): set on the parent's item,
it closes the parent to new children; a child's create holds its parent to having none, or
one so old that its removal stopped half way."""

from __future__ import annotations

from datetime import datetime, timedelta

from data.clock import new_token, now
from keys.codecs import format_timestamp

REMOVING = "removing"
# A removal renews its mark far more often than this; an older mark is one that stopped.
MARK_LEASE = timedelta(seconds=60)


def mark_of(at: datetime) -> str:
    """A new mark: when (so its age is known, in byte order), then whose."""
    return f"{format_timestamp(at)} {new_token()}"


def open_under() -> tuple[str, dict[str, str], dict[str, str]]:
    """The condition a child's create holds its parent to (no mark, or a stale one), with
    its names and values."""
    stale = format_timestamp(now() - MARK_LEASE)
    condition = f"attribute_not_exists(#{REMOVING}) OR #{REMOVING} < :stale"
    return condition, {f"#{REMOVING}": REMOVING}, {":stale": stale}
