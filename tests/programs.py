"""The machine's own programs the tests drive (a browser, a Redis server), found as `make`
finds them, and the gateway's own command in a process of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from subprocess import CompletedProcess

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


def serve_refused(settings: Mapping[str, str], cwd: Path | None = None) -> CompletedProcess[str]:
    """`dynagate serve` in a process of its own with `settings` added to the environment,
    for a start that must stop at once (a minute at most): how it ended and what it said."""
    return subprocess.run(
        [Path(sys.executable).parent / "dynagate", "serve", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **settings},
        cwd=cwd,
        check=False,
    )
