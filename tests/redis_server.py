"""A real Redis server for the tests of state shared between processes: `$REDIS_SERVER`,
else redis-server or valkey-server on the PATH (`make redis` installs one). Never a skip: a
machine without one fails and says what to install. In memory, on a free port, and it can
be stopped and started again on that port, as an outage."""

from __future__ import annotations

import socket
import subprocess
import time
from typing import Self

from gateway.cli.dynamodb_local import free_port
from tests.programs import installed

SERVERS = ("redis-server", "valkey-server")
NO_REDIS = (
    "these tests need a Redis server: run `make redis`, install redis-server or "
    "valkey-server, or set REDIS_SERVER=/path/to/redis-server"
)


class RedisServer:
    def __init__(self) -> None:
        self.binary = installed("REDIS_SERVER", SERVERS, NO_REDIS)
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                *("--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not self._answers():
            assert self.process.poll() is None, "redis-server exited at start"
            assert time.monotonic() < deadline, "redis-server did not start within 10 s"
            time.sleep(0.02)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as probe:
                probe.sendall(b"PING\r\n")
                return probe.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
