"""A migration's checkpoint in the table (`keys/migrations.py`): where each segment of its
Scan got to, and which run holds it.

One run at a time: the checkpoint names its owner (host, process, run) and when it last
kept a place. Another run finds it held and stops, unless the owner is a process of this
host that no longer runs (killed), or has kept nothing for `LEASE_SECONDS`; then it takes
the checkpoint over and goes on from its places. Each place kept, and the checkpoint's
deletion at the end, insist on the owner: a run whose checkpoint was taken over stops.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from keys.migrations import DONE, LABEL, checkpoint_key, segment_attribute
from store import requests
from store.client import Store
from store.errors import ConditionFailed, TransactionCanceled

# A run that has kept no place for this long is taken to be gone.
LEASE_SECONDS = 60.0

Start = dict[str, Any] | str | None


class MigrationBusy(Exception):
    """Another run holds the table's migration: the message says which, and what to do."""


@dataclass
class Checkpoint:
    store: Store
    fingerprint: str
    segments: int
    owner: str = field(
        default_factory=lambda: f"{socket.gethostname()}/{os.getpid()}/{uuid.uuid4().hex[:8]}"
    )

    async def resume(self) -> dict[int, Start]:
        """Each segment's start (DONE: over) as kept, when the checkpoint is this model's
        pass; a fresh checkpoint otherwise. `segments` becomes the kept one."""
        kept = await self.store.get(checkpoint_key(self.store.layout.table), consistent=True)
        if kept is not None:
            self._check_free(kept)
        if kept is not None and kept.get("fingerprint") == self.fingerprint:
            await self._take(kept)
            self.segments = int(kept["segments"])
            starts: dict[int, Start] = {}
            for segment in range(self.segments):
                value = kept.get(segment_attribute(segment))
                starts[segment] = value if value in (None, DONE) else json.loads(value)
            return starts
        item = {
            **checkpoint_key(self.store.layout.table),
            "type": LABEL,
            "fingerprint": self.fingerprint,
            "segments": self.segments,
            "owner": self.owner,
            "keptAt": time.time(),
        }
        request = requests.put_request(self.store.table, item)
        if kept is not None:  # another model's, gone: replaced only as it was read
            request = _only_if(request, kept.get("owner"))
        await self._guarded(self.store.put(request))
        return {}

    async def keep(self, segment: int, start: dict[str, Any] | None) -> None:
        value = DONE if start is None else json.dumps(start, sort_keys=True)
        request = requests.update_request(
            self.store.table,
            checkpoint_key(self.store.layout.table),
            set_values={segment_attribute(segment): value, "keptAt": time.time()},
            expect={"owner": self.owner},
        )
        await self._guarded(self.store.update(request))

    async def finish(self) -> None:
        """The migration is over: the next one scans from the start."""
        delete = requests.transaction_delete(
            self.store.table, checkpoint_key(self.store.layout.table)
        )
        try:
            await self.store.transact([requests.expecting(delete, {"owner": self.owner})])
        except TransactionCanceled:
            raise MigrationBusy("another run took the migration over before it ended") from None

    def _check_free(self, kept: dict[str, Any]) -> None:
        owner = str(kept.get("owner", ""))
        idle = time.time() - float(kept.get("keptAt", 0))
        if idle >= LEASE_SECONDS or _gone(owner):
            return
        raise MigrationBusy(
            f"another `migrate apply` runs on this table ({owner}, a place kept {idle:.0f} s"
            f" ago): wait for it, or stop it; a run gone for {LEASE_SECONDS:.0f} s is taken"
            " over"
        )

    async def _take(self, kept: dict[str, Any]) -> None:
        request = requests.update_request(
            self.store.table,
            checkpoint_key(self.store.layout.table),
            set_values={"owner": self.owner, "keptAt": time.time()},
            expect={"owner": kept.get("owner")} if kept.get("owner") else None,
        )
        await self._guarded(self.store.update(request))

    async def _guarded(self, write: Any) -> None:
        try:
            await write
        except ConditionFailed:
            raise MigrationBusy("another run took the migration over") from None


def _only_if(request: dict[str, Any], owner: Any) -> dict[str, Any]:
    """A Put that replaces the checkpoint only while `owner` holds it."""
    if not owner:
        return request
    guarded: dict[str, Any] = requests.expecting({"Put": request}, {"owner": owner})["Put"]
    return guarded


def _gone(owner: str) -> bool:
    """Whether `owner` is a process of this host that no longer runs."""
    host, _, rest = owner.partition("/")
    pid = rest.partition("/")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
