"""`pip install .` from a clean clone serves a whole playground: the build fetches the
pinned GraphiQL files (git-ignored, so a clone has none) into the wheel.

Slow for a test: it builds a real wheel (seconds with the download cache warm, and one
download of about 5 MB into `${XDG_CACHE_HOME:-~/.cache}/dynagate/graphiql` when cold).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import httpx

from gateway.cli.dynamodb_local import free_port
from gateway.playground import PINNED, sha384

ROOT = Path(__file__).resolve().parents[2]
# As `pip install .` builds, with the setuptools of this environment (nothing downloaded).
BUILD = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
# The wheel's own code, from outside the repository: it says where it was imported from,
# then serves as `dynagate serve` does.
SERVE = "import sys, gateway.cli.main as cli; print(cli.__file__, flush=True); sys.exit(cli.main())"


def build_wheel(source: Path, into: Path) -> Path:
    built = subprocess.run(
        [*BUILD, "--wheel-dir", str(into), str(source)], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = into.glob("dynagate-*.whl")
    return wheel


def clean_clone(into: Path) -> Path:
    """The files a clone holds (and new ones not yet committed): no `gateway/graphiql/`."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted in the work tree stays listed until committed
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    assert not (into / "gateway" / "graphiql").exists()
    return into


def test_a_wheel_built_from_a_clean_clone_serves_the_whole_playground(
    tmp_path: Path, endpoint: str, table: str
) -> None:
    source = clean_clone(tmp_path / "clone")
    wheel = build_wheel(source, tmp_path / "dist")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {
            name: sha384(archive.read(name))
            for name in archive.namelist()
            if name.startswith("gateway/graphiql/")
        }
        archive.extractall(tmp_path / "site")
    assert shipped == {f"gateway/graphiql/{a.name}": a.sha384 for a in PINNED}

    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "site"),
        "DYNAGATE_DYNAMODB_ENDPOINT": endpoint,
        "DYNAGATE_TABLE": table,
    }
    log = tmp_path / "serve.log"
    command = [sys.executable, "-c", SERVE, "serve", "--port", str(port)]
    with (
        log.open("w") as stderr,
        subprocess.Popen(
            command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=stderr, text=True
        ) as server,
    ):
        try:
            assert server.stdout is not None
            assert server.stdout.readline().startswith(str(tmp_path / "site")), log.read_text()
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
                wait_until_serving(http, server, log)
                page = http.get("/graphql", headers={"Accept": "text/html"})
                files = {
                    url: (response.status_code, sha384(response.content))
                    for url in re.findall(r'(?:src|href)="(/graphql/assets/[^"]+)"', page.text)
                    for response in [http.get(url)]
                }
        finally:
            server.terminate()
    assert page.status_code == 200, page.text
    assert files == {f"/graphql/assets/{a.name}": (200, a.sha384) for a in PINNED}
    assert "GraphiQL's files are missing" not in log.read_text()


def image_build_context(into: Path) -> Path:
    """What the Dockerfile's build stage copies before it builds the wheel, and no more:
    each COPY's sources, less what `.dockerignore` keeps out of the context."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    build_stage = dockerfile.split(" AS build", 1)[1].split("\nFROM ", 1)[0]
    ignored = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for line in re.findall(r"^COPY (?!--from)(.+)$", build_stage, re.MULTILINE):
        *sources, target = line.split()
        for name in sources:
            source = ROOT / name
            # `COPY . .` and `COPY x ./` keep the names; `COPY a b` renames.
            destination = into / (name if target in ("./", ".") else target)
            if source.is_dir():
                _copy_context(source, destination, ignored)
            else:
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, destination)
    return into


def _copy_context(source: Path, destination: Path, ignored: list[str]) -> None:
    """`source` into `destination`, without what Docker's ignore patterns name (relative to
    the project; `**/` at any depth)."""

    def left_out(path: Path) -> bool:
        relative = path.relative_to(ROOT)
        for pattern in ignored:
            if pattern.startswith("**/"):
                if relative.match(pattern.removeprefix("**/")):
                    return True
            elif fnmatch.fnmatchcase(str(relative), pattern):
                return True
        return False

    for folder, folders, files in os.walk(source):
        here = Path(folder)
        folders[:] = [f for f in folders if not left_out(here / f)]
        for file in files:
            if not left_out(here / file):
                target = destination / (here / file).relative_to(source)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(here / file, target)


def test_the_image_build_stage_puts_the_playground_in_its_wheel(tmp_path: Path) -> None:
    source = image_build_context(tmp_path / "context")
    assert not (source / "gateway" / "graphiql").exists()
    wheel = build_wheel(source, tmp_path / "dist")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {n for n in archive.namelist() if n.startswith("gateway/graphiql/")}
    assert shipped == {f"gateway/graphiql/{a.name}" for a in PINNED}


def wait_until_serving(http: httpx.Client, server: subprocess.Popen[str], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert server.poll() is None, log.read_text()
        try:
            if http.get("/healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"the server did not answer within 60 s: {log.read_text()}")
