"""What every part of `make image-check` (`check.py`) shares: the names, the cache, how
commands run and say what they do, and the one failure they raise."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMAGE = "localhost/dynagate:image-check"
BASE = "localhost/dynagate-base"
# What the base is made of; RECIPE changes whenever the steps below change what it holds.
SUITE = "bookworm"
VARIANT = "minbase"
PACKAGES = ("python3", "python3-pip", "python3-venv")
RECIPE = "1"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
# Certificate authorities this machine adds to the system's, trusted by the base too: the
# build reaches PyPI and the npm registry, maybe through a proxy that signs with its own.
LOCAL_CAS = Path("/usr/local/share/ca-certificates")
PORT = 8000  # the image's CMD serves here, on this machine's network
LABEL = "dynagate-image-check"
# The library model of the tests: small, no demo data of its own.
MODEL_FILE = ROOT / "tests" / "model" / "library.py"
STARTED = time.monotonic()
# The module `make image-check` runs, which the chroot runner runs again to enter a root.
CHECK = "tests.image.check"
# Loopback only: a proxy from the environment must not stand in between.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class CheckFailed(Exception):
    """A step failed; the message says which and what it printed."""


def say(message: str) -> None:
    print(f"image-check [{time.monotonic() - STARTED:6.1f}s] {message}", flush=True)


def tail(text: str, lines: int = 40) -> str:
    return "\n".join("    " + line for line in text.rstrip().splitlines()[-lines:])


def run(
    command: Sequence[str],
    timeout: float,
    *,
    check: bool = True,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`command`'s output, or CheckFailed naming it when it fails or outlasts `timeout`."""
    try:
        result = subprocess.run(
            list(command),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=None if env is None else dict(env),
        )
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"`{' '.join(command)}` did not finish within {timeout:.0f}s") from None
    if check and result.returncode != 0:
        raise CheckFailed(
            f"`{' '.join(command)}` exited with {result.returncode}:\n"
            + tail(result.stdout + result.stderr)
        )
    return result


def streamed(
    command: Sequence[str], timeout: float, log: Path, show: Callable[[str], bool]
) -> None:
    """Runs `command` into `log`, printing the lines `show` picks as they come; CheckFailed
    with the log's end when it fails or outlasts `timeout`."""
    with log.open("w") as out:
        process = subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

        def copy() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                out.write(line)
                if show(line):
                    say("  " + line.rstrip())

        reader = threading.Thread(target=copy, daemon=True)
        reader.start()
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise CheckFailed(
                f"`{' '.join(command[:3])} …` did not finish within {timeout:.0f}s"
            ) from None
        finally:
            reader.join(timeout=10)
    if code != 0:
        raise CheckFailed(
            f"`{' '.join(command[:3])} …` exited with {code}:\n{tail(log.read_text())}"
        )


def digest(*parts: bytes) -> str:
    hashed = hashlib.sha256()
    for part in parts:
        hashed.update(hashlib.sha256(part).digest())
    return hashed.hexdigest()[:16]


def cache_dir() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "dynagate" / "image-check"
