"""The hand-written servers of `python -m bench peers`, each in a process of its own: their
packages installed as their lock files pin them, then started on a free loopback port.

    apollo      bench/peers/node: `node server.mjs`, NODE_ENV=production; its packages by
                `npm ci` into bench/peers/node/node_modules
    strawberry  bench/peers/strawberry: uvicorn with one worker, in a venv of its own (under
                ${XDG_CACHE_HOME:-~/.cache}/dynagate) from requirements.txt
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path

import httpx

from bench.harness import Progress, Table
from bench.servers import REPOSITORY, Server, inherited, running
from gateway.cli.dynamodb_local import free_port

PEERS = REPOSITORY / "bench" / "peers"
NODE = PEERS / "node"
STRAWBERRY = PEERS / "strawberry"
# DynamoDB Local takes any credentials; these keep a machine's own out of the run.
_AWS = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
}


class Missing(RuntimeError):
    """A program the hand-written servers need is not installed."""


def cache_dir() -> Path:
    """Where DynamoDB Local is kept too (`gateway.cli.dynamodb_local`)."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "dynagate" / "bench-peers"


def _run(command: list[str], log: Path, what: str, cwd: Path | None = None) -> None:
    with log.open("w") as out:
        done = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-2000:]
        raise RuntimeError(f"{what} failed (exit {done.returncode}, {log}):\n{tail}")


def install_node(say: Progress) -> None:
    """`npm ci` when node_modules is missing or older than the lock file."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise Missing(
            "python -m bench peers needs Node.js and npm for its Apollo Server:"
            " install them (Debian: apt-get install nodejs npm; macOS: brew install node)"
        )
    installed = NODE / "node_modules" / ".package-lock.json"  # npm writes it last
    lock = NODE / "package-lock.json"
    if installed.is_file() and installed.stat().st_mtime >= lock.stat().st_mtime:
        return
    say("npm ci: the Apollo Server's packages, as package-lock.json pins them")
    cache_dir().mkdir(parents=True, exist_ok=True)
    command = ["npm", "ci", "--no-audit", "--no-fund", "--loglevel", "error"]
    _run(command, cache_dir() / "npm.log", "npm ci in bench/peers/node", cwd=NODE)


def strawberry_python(say: Progress) -> Path:
    """The Python of the Strawberry server's venv, made or remade when its requirements or
    this Python change."""
    venv = cache_dir() / "venv"
    python = venv / "bin" / "python"
    requirements = STRAWBERRY / "requirements.txt"
    stamp = venv / ".requirements"
    wanted = hashlib.sha256(requirements.read_bytes() + sys.version.encode()).hexdigest()
    if python.is_file() and stamp.is_file() and stamp.read_text() == wanted:
        return python
    say(f"pip: the Strawberry server's packages into {venv}, as requirements.txt pins them")
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    log = cache_dir() / "pip.log"
    _run([sys.executable, "-m", "venv", str(venv)], log, "making the Strawberry server's venv")
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _run([*pip, "-r", str(requirements)], log, "pip install of bench/peers/strawberry")
    stamp.write_text(wanted)
    return python


def versions(python: Path) -> dict[str, str]:
    """What each hand-written server ran on."""
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    found = {"node": node}
    for package in ("@apollo/server", "graphql", "@aws-sdk/lib-dynamodb", "dataloader"):
        manifest = NODE / "node_modules" / package / "package.json"
        found[package] = json.loads(manifest.read_text())["version"]
    python_version = subprocess.run(
        [str(python), "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    found["python (strawberry)"] = python_version
    pins = (STRAWBERRY / "requirements.txt").read_text().splitlines()
    for line in pins:
        name, _, version = line.partition("==")
        if name in ("strawberry-graphql", "graphql-core", "aioboto3", "uvicorn", "uvloop"):
            found[name] = version.split(";")[0].strip()
    return found


def _answers_query(http: httpx.Client, url: str) -> bool:
    """A query answered with data: Apollo Server has no health route of its own."""
    try:
        response = http.post(f"{url}/graphql", json={"query": "{__typename}"}, timeout=2.0)
        return response.status_code == 200 and bool(response.json().get("data"))
    except ValueError:  # not JSON (yet)
        return False


def _process(
    name: str, command: list[str], port: int, env: Mapping[str, str], cwd: Path
) -> AbstractContextManager[Server]:
    """`command`, listening on `port`, for a `with` block once it answers a query; the AWS
    settings are DynamoDB Local's, never the machine's own."""
    whole = {**inherited("DYNAGATE_", "AWS_"), **_AWS, **env}
    return running(name, command, port, cwd=cwd, env=whole, ready=_answers_query, timeout=90)


def apollo(table: Table) -> AbstractContextManager[Server]:
    """The Apollo Server, as production runs Node."""
    port = free_port()
    env = {
        "NODE_ENV": "production",
        "PORT": str(port),
        "PEER_DDB_ENDPOINT": table.endpoint,
        "PEER_TABLE": table.name,
    }
    return _process("apollo", ["node", "server.mjs"], port, env, NODE)


def strawberry(table: Table, python: Path) -> AbstractContextManager[Server]:
    """The Strawberry server under uvicorn, one worker (uvloop, httptools, as the gateway)."""
    port = free_port()
    command = [
        str(python),
        "-m",
        "uvicorn",
        "bench.peers.strawberry.app:app",
        "--app-dir",
        str(REPOSITORY),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    env = {"PORT": str(port), "PEER_DDB_ENDPOINT": table.endpoint, "PEER_TABLE": table.name}
    return _process("strawberry", command, port, env, REPOSITORY)
