"""`dynagate model check`: a model built as the gateway builds it (every declaration the
engine could not serve refused, naming it), then each access pattern with the DynamoDB
requests it leads to and its worst case (docs/model.md), said by `data/pattern_requests.py`.
"""

from __future__ import annotations

from collections.abc import Iterator

from data.pattern_requests import pattern_field, pattern_requests
from model import Model


def described(model: Model) -> Iterator[str]:
    """One line per access pattern: its field, what it reads or writes, its worst case."""
    for pattern in model.patterns:
        yield f"{pattern_field(model, pattern)}: {pattern_requests(model, pattern)}"
