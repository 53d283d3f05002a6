"""DynamoDB's answers recorded, then played back: one request answered twice on the very
same answers, so that two ways of answering it can be compared (docs/performance.md#plans)
without asking DynamoDB twice."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import orjson

Recorded = tuple[str, bytes]


@dataclass
class Tape:
    """The calls of one request: recorded while `playing` is off, answered from the
    recording once it is on; a call played back that was never recorded is `missed`."""

    recorded: dict[Recorded, list[dict[str, Any]]] = field(default_factory=dict)
    made: list[str] = field(default_factory=list)
    playing: bool = False
    missed: list[str] = field(default_factory=list)

    def play(self, operation: str, request: dict[str, Any]) -> dict[str, Any] | None:
        """The recorded answer to this call, if there is one left."""
        answers = self.recorded.get(_key(operation, request))
        if not answers:
            self.missed.append(operation)
            return None
        # Callers may change what they are given: each gets its own copy.
        return copy.deepcopy(answers.pop(0))

    def record(self, operation: str, request: dict[str, Any], response: dict[str, Any]) -> None:
        if not self.playing:
            self.made.append(operation)
            self.recorded.setdefault(_key(operation, request), []).append(copy.deepcopy(response))

    def unplayed(self) -> list[str]:
        """The recorded calls the playback did not ask for."""
        return [operation for (operation, _), left in self.recorded.items() for _ in left]


def _key(operation: str, request: dict[str, Any]) -> Recorded:
    return operation, orjson.dumps(request, option=orjson.OPT_SORT_KEYS, default=repr)
