"""A real Redis server for the tests of state shared between processes: `$REDIS_SERVER`,
else redis-server or valkey-server on the PATH (`make redis` installs one). Never a skip: a
machine without one fails and says what to install. In memory, on a free port, and it can
be stopped and started again on that port, as an outage."""

from __future__ import annotations

import socket

from tests.programs import LoopbackServer, installed

SERVERS = ("redis-server", "valkey-server")
NO_REDIS = (
    "these tests need a Redis server: run `make redis`, install redis-server or "
    "valkey-server, or set REDIS_SERVER=/path/to/redis-server"
)


class RedisServer(LoopbackServer):
    name = "redis-server"

    def __init__(self) -> None:
        super().__init__()
        self.binary = installed("REDIS_SERVER", SERVERS, NO_REDIS)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        return [
            self.binary,
            *("--port", str(self.port), "--bind", "127.0.0.1"),
            *("--save", "", "--appendonly", "no"),
        ]

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as probe:
                probe.sendall(b"PING\r\n")
                return probe.recv(16).startswith(b"+PONG")
        except OSError:
            return False
