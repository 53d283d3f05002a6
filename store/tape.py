"""DynamoDB's answers to one request, recorded, then played back: the request answered a
second way hears exactly what the first heard — the same items, the same failures —
without asking DynamoDB again (docs/performance.md#plans)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Recorded:
    operation: str
    request: dict[str, Any]
    # DynamoDB's answer, or the error the call raised and the answer that came with it.
    response: dict[str, Any] | None
    failure: Exception | None = None
    played: bool = False


@dataclass
class Tape:
    """The calls of one request: recorded while `playing` is off, answered from the
    recording once it is on; a call played back that was never recorded is `missed`, and
    made."""

    calls: list[Recorded] = field(default_factory=list)
    playing: bool = False
    missed: list[str] = field(default_factory=list)

    def record(self, operation: str, request: dict[str, Any], response: dict[str, Any]) -> None:
        if not self.playing:
            self.calls.append(Recorded(operation, request, response))

    def failed(
        self,
        operation: str,
        request: dict[str, Any],
        failure: Exception,
        response: dict[str, Any] | None,
    ) -> None:
        if not self.playing:
            self.calls.append(Recorded(operation, request, response, failure))

    def play(self, operation: str, request: dict[str, Any]) -> Recorded | None:
        """The first recorded call equal to this one not yet played, if any."""
        for call in self.calls:
            if not call.played and call.operation == operation and call.request == request:
                call.played = True
                return call
        self.missed.append(operation)
        return None

    def unplayed(self) -> list[str]:
        """The recorded calls the playback did not ask for."""
        return [call.operation for call in self.calls if not call.played]

    @property
    def made(self) -> list[str]:
        return [call.operation for call in self.calls]


def answer(call: Recorded) -> dict[str, Any]:
    """A played call's answer: its own copy (the first reader may have kept the original),
    or its failure raised again."""
    if call.failure is not None:
        raise call.failure
    assert call.response is not None
    return copy.deepcopy(call.response)
