"""Each server under test as its own uvicorn process on a free loopback port."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx

from gateway.cli.dynamodb_local import free_port

REPOSITORY = Path(__file__).resolve().parents[1]
GATEWAY = "gateway.http.app:create_app"  # the real application factory, settings from env
# uvicorn's pure-Python event loop and HTTP parser, instead of uvloop and httptools.
PLAIN = ("--loop", "asyncio", "--http", "h11")


@dataclass(frozen=True)
class Server:
    url: str
    pid: int


def uvicorn_command(factory: str, port: int, options: Sequence[str] = ()) -> list[str]:
    """The same uvicorn configuration for both servers (no access log: the client is us).

    uvicorn picks uvloop and httptools when they are installed (the project installs
    both); `options` such as `--loop asyncio --http h11` choose otherwise.
    """
    return [
        sys.executable,
        "-m",
        "uvicorn",
        factory,
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-access-log",
        "--log-level",
        "warning",
        *options,
    ]


@contextmanager
def serving(
    factory: str, env: Mapping[str, str], timeout: float = 60.0, options: Sequence[str] = ()
) -> Iterator[Server]:
    """Run `factory` under uvicorn for a `with` block; yields it once it answers."""
    port = free_port()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            uvicorn_command(factory, port, options),
            cwd=REPOSITORY,
            env={**_inherited(), **env},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            wait_until_answering(url, process, log, timeout)
            yield Server(url, process.pid)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _inherited() -> dict[str, str]:
    """This process's environment minus any DYNAGATE_* setting: only `env` configures them."""
    return {k: v for k, v in os.environ.items() if not k.startswith("DYNAGATE_")}


def wait_until_answering(
    url: str, process: subprocess.Popen[bytes], log: IO[bytes], timeout: float
) -> None:
    """Until `url`'s /healthz answers 200; RuntimeError with the log's end if it exits."""
    deadline = time.monotonic() + timeout
    with httpx.Client(trust_env=False, timeout=1.0) as http:
        while True:
            if process.poll() is not None:
                log.seek(0)
                output = log.read().decode(errors="replace")[-4000:]
                raise RuntimeError(f"{url} exited with {process.returncode}:\n{output}")
            try:
                if http.get(f"{url}/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")
            time.sleep(0.1)
