"""The machine's own programs the tests drive (a browser, a Redis server, nginx), found as
`make` finds them and, for a server, run on a free loopback port until it is stopped; and
the gateway's own command in a process of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from subprocess import CompletedProcess
from typing import Self

import pytest

from gateway.cli.dynamodb_local import free_port


def installed(variable: str, candidates: Sequence[str], missing: str) -> str:
    """The program `$variable` names, else the first of `candidates` on the PATH. Never a
    skip: a machine without one fails and says what to install (`missing`)."""
    named = os.environ.get(variable)
    for candidate in [named] if named else candidates:
        found = shutil.which(candidate)
        if found is not None:
            return found
    pytest.fail(missing, pytrace=False)


class LoopbackServer:
    """A server program on a free loopback port (`command`), started until it answers
    (`answers`) and killed when stopped, again as often as a test needs: each server the
    tests run is started, waited for and stopped this one way."""

    name = "the server"

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        raise NotImplementedError

    def answers(self) -> bool:
        raise NotImplementedError

    def start(self) -> None:
        process = subprocess.Popen(
            self.command(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        self.process = process
        deadline = time.monotonic() + 10
        while not self.answers():
            if process.poll() is not None:
                _, err = process.communicate()
                raise AssertionError(f"{self.name} exited at start: {err.decode()[-2000:]}")
            assert time.monotonic() < deadline, f"{self.name} did not answer within 10 s"
            time.sleep(0.02)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.communicate(timeout=10)
            self.process = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


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
