"""How a persisted document's registration reaches every replica before it is answered
(docs/http.md#persisted-documents): through the Redis stream the replicas share for the
table's changes and the read cache (`gateway/replicas/fanout.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from gateway.runtime import Runtime


class Replicas(Protocol):
    """The other replicas, as `gateway/documents/persisted.py` tells and hears them."""

    async def announce(self, sha256: str, trusted: bool) -> None:
        """Tell every replica of a registration, before it is answered."""

    def listening(self) -> bool:
        """Whether every registration announced from now on will be heard here."""

    async def caught_up(self) -> bool:
        """Whether every registration announced before now was heard here (False when
        that cannot be known: Redis failing, this process not hearing yet or lagging)."""


@dataclass(frozen=True)
class ThroughRedis:
    """The replicas as the process's Redis stream reaches them (`Runtime.fanout`, made by
    the lifespan): nothing is known of them before it is."""

    runtime: Runtime

    async def announce(self, sha256: str, trusted: bool) -> None:
        fanout = self.runtime.fanout
        if fanout is not None:
            await fanout.announce(sha256, trusted)

    def listening(self) -> bool:
        fanout = self.runtime.fanout
        return fanout is not None and fanout.listening()

    async def caught_up(self) -> bool:
        fanout = self.runtime.fanout
        return fanout is not None and await fanout.caught_up()
