"""deploy/nginx.conf itself, run by the machine's nginx in front of replicas on loopback
ports, as docker-compose.yml runs it in front of its two (without a container engine).
`$NGINX`, else nginx on the PATH or in /usr/sbin (`make nginx` installs one). Never a skip:
a machine without one fails and says what to install."""

from __future__ import annotations

import socket
from collections.abc import Sequence
from pathlib import Path

from tests.programs import LoopbackServer, installed

CONF = Path(__file__).parents[1] / "deploy" / "nginx.conf"
# Debian keeps it in /usr/sbin, which a user's PATH may not hold.
SERVERS = ("nginx", "/usr/sbin/nginx")
NO_NGINX = "this test needs nginx: run `make nginx`, install nginx, or set NGINX=/path/to/nginx"
# What compose names: the replicas' host names and the port nginx listens on.
UPSTREAM = ("server gateway-1:8000;", "server gateway-2:8000;")
LISTEN = "listen 8000;"
# The image's nginx.conf around conf.d/, reduced to what a user may run: in the foreground,
# one process, every file it writes under `prefix`.
MAIN = """daemon off;
master_process off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/default.conf;
}}
"""


def rewritten(conf: str, replicas: Sequence[int], port: int) -> str:
    """`conf` with the replicas at loopback `replicas` ports and listening on `port`: the
    only lines that name compose's network, which does not exist here. Each is found once,
    so a change of deploy/nginx.conf that this does not follow fails here, loudly."""
    assert len(replicas) == len(UPSTREAM), "deploy/nginx.conf names two replicas"
    for line, replacement in [
        *(
            (server, f"server 127.0.0.1:{at};")
            for server, at in zip(UPSTREAM, replicas, strict=True)
        ),
        (LISTEN, f"listen 127.0.0.1:{port};"),
    ]:
        assert conf.count(line) == 1, f"deploy/nginx.conf no longer holds `{line}` once"
        conf = conf.replace(line, replacement)
    return conf


class Nginx(LoopbackServer):
    """deploy/nginx.conf served on a free loopback port in front of `replicas` (ports)."""

    name = "nginx"

    def __init__(self, prefix: Path, replicas: Sequence[int]) -> None:
        super().__init__()
        self.binary = installed("NGINX", SERVERS, NO_NGINX)
        self.prefix = prefix
        # Only the addresses change: a copy written by hand would test itself, not the file
        # compose runs.
        (prefix / "default.conf").write_text(rewritten(CONF.read_text(), replicas, self.port))
        (prefix / "nginx.conf").write_text(MAIN.format(prefix=prefix))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        conf, log = self.prefix / "nginx.conf", self.prefix / "error.log"
        # `-e`: nginx writes its start-up errors there, not to /var/log (not a user's).
        return [self.binary, "-p", str(self.prefix), "-c", str(conf), "-e", str(log)]

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return True
        except OSError:
            return False
