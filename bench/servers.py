"""Each server under test as its own uvicorn process on a free loopback port."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
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


# Whether the server at a URL answers as a ready one, asked through the client given.
Ready = Callable[[httpx.Client, str], bool]


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


def serving(
    factory: str, env: Mapping[str, str], timeout: float = 60.0, options: Sequence[str] = ()
) -> AbstractContextManager[Server]:
    """Run `factory` under uvicorn for a `with` block; yields it once /healthz answers."""
    port = free_port()
    command = uvicorn_command(factory, port, options)
    whole = {**inherited("DYNAGATE_"), **env}
    return running(factory, command, port, cwd=REPOSITORY, env=whole, timeout=timeout)


def inherited(*dropped: str) -> dict[str, str]:
    """This process's environment minus the variables starting with `dropped`: only the
    caller's `env` sets those, never the shell the benchmark was started from."""
    return {k: v for k, v in os.environ.items() if not k.startswith(dropped)}


def healthy(http: httpx.Client, url: str) -> bool:
    """The gateway's /healthz answers 200: its application has started."""
    return http.get(f"{url}/healthz", timeout=1.0).status_code == 200


@contextmanager
def running(
    label: str,
    command: Sequence[str],
    port: int,
    *,
    cwd: Path,
    env: Mapping[str, str],
    ready: Ready = healthy,
    timeout: float = 60.0,
) -> Iterator[Server]:
    """`command`, listening on loopback `port`, for a `with` block once `ready` says so;
    stopped after it, whatever happens, so that no server outlives the benchmark.

    `env` is its whole environment; its output goes to a temporary file, shown when it
    exits before answering.
    """
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until_answering(f"{label} at {url}", url, process, log, ready, timeout)
            yield Server(url, process.pid)
        finally:
            stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, SIGKILL if it has not exited within 10 s; reaped either way (no zombie)."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_until_answering(
    label: str,
    url: str,
    process: subprocess.Popen[bytes],
    log: IO[bytes],
    ready: Ready,
    timeout: float,
) -> None:
    """Until `ready(url)`, a refused connection counting as not yet; RuntimeError with the
    log's end if the process exits first, or once `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    with httpx.Client(trust_env=False) as http:  # each check sets its own request timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{label} exited with {process.returncode}:\n{_tail(log)}")
            try:
                if ready(http, url):
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{label} did not answer within {timeout:.0f} s")
            time.sleep(0.1)


def _tail(log: IO[bytes]) -> str:
    """The end of what the process wrote: enough for a traceback."""
    log.seek(0)
    return log.read().decode(errors="replace")[-4000:]
