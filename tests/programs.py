"""The machine's own programs the tests drive (a browser, a Redis server), found as `make`
finds them."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence

import pytest


def installed(variable: str, candidates: Sequence[str], missing: str) -> str:
    """The program `$variable` names, else the first of `candidates` on the PATH. Never a
    skip: a machine without one fails and says what to install (`missing`)."""
    named = os.environ.get(variable)
    for candidate in [named] if named else candidates:
        found = shutil.which(candidate)
        if found is not None:
            return found
    pytest.fail(missing, pytrace=False)
