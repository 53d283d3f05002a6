"""`make image-check`: the image built from the real Dockerfile, then run as a user runs it.

The Dockerfile's `FROM` image is on a registry this check may not reach, so it first makes
a base of its own with the same promises (Debian bookworm's Python 3.11, `python` and `pip`
on the PATH, pip free to install system-wide, `useradd`), cached under
`${XDG_CACHE_HOME:-~/.cache}/dynagate/image-check/` and in podman's storage, and builds
with `--build-arg PYTHON_IMAGE=` it. Then, against a DynamoDB Local of its own, with the
image's own ENTRYPOINT, CMD, ENV and USER and the settings a user passes (`-e`):
`create-table`, `seed`, `check`, `token`, `serve` answering a GraphQL query, `/healthz` and
the image's HEALTHCHECK, then a model file mounted at /models and served.

Where no container can start (a sandbox refusing the runtime's rlimits or cgroups), it
runs the image's own filesystem instead: a container's root mounted, its configuration
read from `podman image inspect`, each command run under chroot(2) as the image's user,
sharing this machine's network. It says which it ran, and why. Needs root (debootstrap,
mounts); exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, TypedDict

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
# Loopback only: a proxy from the environment must not stand in between.
_http = urllib.request.build_opener(urllib.request.ProxyHandler({}))


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


def debian_mirror() -> str:
    """The Debian mirror apt uses here (a `deb` source whose path ends in /debian), else
    deb.debian.org."""
    sources = Path("/etc/apt")
    files = [sources / "sources.list", *sorted((sources / "sources.list.d").glob("*.list"))]
    uris: list[str] = []
    for file in files:
        for line in file.read_text().splitlines() if file.is_file() else []:
            words = [w for w in line.split("#", 1)[0].split() if not w.startswith("[")]
            if words[:1] == ["deb"] and len(words) > 1:
                uris.append(words[1])
    for file in sorted((sources / "sources.list.d").glob("*.sources")):
        for stanza in file.read_text().split("\n\n"):
            fields = dict(
                line.split(":", 1)
                for line in stanza.splitlines()
                if ":" in line and not line.startswith(("#", " "))
            )
            if "deb" in fields.get("Types", "").split():
                uris.extend(fields.get("URIs", "").split())
    for uri in uris:
        if uri.rstrip("/").endswith("/debian"):
            return uri.rstrip("/")
    return DEFAULT_MIRROR


def mounts_under(path: Path) -> list[str]:
    """Mount points at or below `path`, deepest first."""
    inside = str(path.resolve())
    points = []
    for line in Path("/proc/self/mounts").read_text().splitlines():
        point = line.split()[1].replace("\\040", " ")
        if point == inside or point.startswith(inside + "/"):
            points.append(point)
    return sorted(points, key=len, reverse=True)


def remove_tree(path: Path) -> None:
    """Removes `path`, unmounting first whatever an interrupted debootstrap left mounted in
    it (never deleting through a mount)."""
    for point in mounts_under(path):
        subprocess.run(["umount", "-l", point], capture_output=True, timeout=30)
    if not mounts_under(path):
        shutil.rmtree(path, ignore_errors=True)


def architecture() -> str:
    return run(["dpkg", "--print-architecture"], 30).stdout.strip()


def base_image(podman: str, work: Path) -> str:
    """The base of the build, made once per content: debootstrap's packages fetched (kept
    as a tarball), unpacked, given `python`, pip's freedom and this machine's extra
    certificate authorities, kept as a root filesystem tarball and imported."""
    arch = architecture()
    cas = sorted(LOCAL_CAS.rglob("*.crt")) if LOCAL_CAS.is_dir() else []
    packages_key = digest(
        SUITE.encode(), VARIANT.encode(), ",".join(PACKAGES).encode(), arch.encode()
    )
    key = digest(
        packages_key.encode(),
        RECIPE.encode(),
        *(ca.name.encode() + b"\0" + ca.read_bytes() for ca in cas),
    )
    tag = f"{BASE}:{SUITE}-{key}"
    if run([podman, "image", "exists", tag], 30, check=False).returncode == 0:
        say(f"base: {tag} (cached image)")
        return tag
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    rootfs_tar = cache / f"base-{SUITE}-{key}.tar"
    if not rootfs_tar.is_file():
        make_rootfs(cache, work, arch, packages_key, cas, rootfs_tar)
    else:
        say(f"base: root filesystem from {rootfs_tar} (cached)")
    say(f"base: importing it as {tag}")
    run(
        [
            podman,
            "import",
            "--change",
            "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "--change",
            "ENV LANG=C.UTF-8",
            "--change",
            'CMD ["python3"]',
            str(rootfs_tar),
            tag,
        ],
        600,
    )
    listed = run([podman, "images", "--format", "{{.Repository}}:{{.Tag}}", BASE], 60)
    for older in set(listed.stdout.split()) - {tag}:  # an earlier recipe's
        run([podman, "rmi", older], 60, check=False)
    return tag


def make_rootfs(
    cache: Path, work: Path, arch: str, packages_key: str, cas: list[Path], into: Path
) -> None:
    debootstrap = shutil.which("debootstrap")
    if debootstrap is None:
        raise CheckFailed("debootstrap is missing: install Debian's debootstrap")
    mirror = debian_mirror()
    packages = cache / f"debootstrap-{SUITE}-{packages_key}.tgz"
    common = [f"--variant={VARIANT}", f"--arch={arch}", f"--include={','.join(PACKAGES)}"]
    if not packages.is_file():
        say(f"base: fetching {SUITE}'s packages from {mirror} (debootstrap)")
        partial = work / packages.name
        run(
            [debootstrap, *common, f"--make-tarball={partial}", SUITE, str(work / "fetch"), mirror],
            900,
        )
        shutil.move(partial, packages)
        remove_tree(work / "fetch")
    else:
        say(f"base: {SUITE}'s packages from {packages} (cached)")
    root = work / "rootfs"
    say(f"base: installing {', '.join(PACKAGES)} into a {SUITE} root filesystem (debootstrap)")
    try:
        run([debootstrap, *common, f"--unpack-tarball={packages}", SUITE, str(root), mirror], 900)
        # As in the official image: `python` and `pip` by those names, and pip installing
        # into the system's Python (Debian's marker would refuse it).
        python = root / "usr" / "bin" / "python"
        if not python.exists():
            python.symlink_to("python3")
        for marker in (root / "usr" / "lib").glob("python3*/EXTERNALLY-MANAGED"):
            marker.unlink()
        if cas:
            local = root / LOCAL_CAS.relative_to("/")
            local.mkdir(parents=True, exist_ok=True)
            for ca in cas:
                shutil.copy2(ca, local / ca.name)
            path = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
            run(["chroot", str(root), "update-ca-certificates"], 120, env=path)
        for left in ("var/lib/apt/lists", "var/cache/apt", "usr/share/doc", "usr/share/man"):
            for entry in (root / left).glob("*"):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
        if mounts_under(root):
            raise CheckFailed(f"debootstrap left mounts in {root}: {mounts_under(root)}")
        partial = into.with_suffix(".partial")
        run(["tar", "--numeric-owner", "-C", str(root), "-cf", str(partial), "."], 600)
        partial.rename(into)
    finally:
        remove_tree(root)
    for old in cache.glob(f"base-{SUITE}-*.tar"):
        if old != into:
            old.unlink()


def build(podman: str, base: str, dockerfile: Path, work: Path) -> None:
    """The image from `dockerfile` and the project's context, on `base`. RUN steps run
    under chroot isolation with this machine's network: they need PyPI and the npm
    registry, and no OCI runtime (which a sandbox may refuse); the image is the same."""
    before = run([podman, "image", "inspect", "--format", "{{.Id}}", IMAGE], 30, check=False)
    named = dockerfile.relative_to(ROOT) if dockerfile.is_relative_to(ROOT) else dockerfile
    say(f"build: {named} with PYTHON_IMAGE={base}")
    streamed(
        [
            podman,
            "build",
            "--pull=never",
            "--format",
            "docker",
            "--isolation",
            "chroot",
            "--network",
            "host",
            "--build-arg",
            f"PYTHON_IMAGE={base}",
            "--file",
            str(dockerfile),
            "--tag",
            IMAGE,
            str(ROOT),
        ],
        1800,
        work / "build.log",
        lambda line: re.match(r"(\[\d+/\d+\] )?STEP \d+", line) is not None,
    )
    after = run([podman, "image", "inspect", "--format", "{{.Id}}", IMAGE], 30).stdout.strip()
    if before.returncode == 0 and before.stdout.strip() != after:
        run([podman, "rmi", before.stdout.strip()], 60, check=False)  # the last check's


class ImageConfig(TypedDict):
    entrypoint: list[str]
    cmd: list[str]
    env: dict[str, str]
    user: str
    workdir: str
    healthcheck: list[str]


def image_config(podman: str) -> tuple[ImageConfig, int]:
    """What the image says it runs, and its size in bytes."""
    found: list[dict[str, Any]] = json.loads(run([podman, "image", "inspect", IMAGE], 30).stdout)
    image = found[0]
    config: dict[str, Any] = image.get("Config") or {}
    health: dict[str, Any] = image.get("Healthcheck") or config.get("Healthcheck") or {}
    env = dict(item.split("=", 1) for item in config.get("Env") or [])
    return (
        ImageConfig(
            entrypoint=list(config.get("Entrypoint") or []),
            cmd=list(config.get("Cmd") or []),
            env=env,
            user=str(config.get("User") or "root"),
            workdir=str(config.get("WorkingDir") or "/"),
            healthcheck=list(health.get("Test") or []),
        ),
        int(image.get("Size") or 0),
    )


class Runner:
    """Runs the image as a user does: its ENTRYPOINT with arguments (its CMD without),
    its ENV, USER and WorkingDir, plus the settings given and /models mounted."""

    how = ""

    def start(
        self, args: Sequence[str], settings: Mapping[str, str], log: Path
    ) -> subprocess.Popen[bytes]:
        raise NotImplementedError

    def stop(self, process: subprocess.Popen[bytes]) -> int:
        """SIGTERM, as a container's stop sends: its exit code once it has stopped."""
        raise NotImplementedError

    def health(
        self, server: subprocess.Popen[bytes], settings: Mapping[str, str], log: Path
    ) -> subprocess.Popen[bytes]:
        """The image's HEALTHCHECK command, run beside `server`."""
        raise NotImplementedError

    def run(
        self, args: Sequence[str], settings: Mapping[str, str], log: Path, timeout: float
    ) -> str:
        """`args` run to its end: its output, or CheckFailed with it."""
        process = self.start(args, settings, log)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CheckFailed(
                f"`dynagate {' '.join(args)}` did not finish within {timeout:.0f}s:\n"
                + tail(log.read_text(errors="replace"))
            ) from None
        finally:
            if process.poll() is None:
                self.stop(process)
        output = log.read_text(errors="replace")
        if code != 0:
            raise CheckFailed(
                f"`dynagate {' '.join(args)}` in the image exited with {code}:\n{tail(output)}"
            )
        return output


class Containers(Runner):
    """`podman run` on this machine's network."""

    def __init__(self, podman: str, flags: Sequence[str], models: Path, why: str) -> None:
        self.podman = podman
        self.flags = list(flags)
        self.models = models
        self.how = f"in containers (podman run {' '.join(self.flags)}){why}"
        if not Path("/run/systemd/system").is_dir():
            # Podman times HEALTHCHECKs with systemd; without it, the check runs it itself.
            self.flags.append("--health-interval=disable")
        self.names: dict[int, str] = {}

    def _run(self, settings: Mapping[str, str], name: str) -> list[str]:
        environment = [f"--env={k}={v}" for k, v in settings.items()]
        volume = f"--volume={self.models}:/models:ro"
        return [
            self.podman,
            "run",
            "--rm",
            f"--name={name}",
            f"--label={LABEL}=1",
            *self.flags,
            volume,
            *environment,
        ]

    def start(
        self, args: Sequence[str], settings: Mapping[str, str], log: Path
    ) -> subprocess.Popen[bytes]:
        name = f"{LABEL}-{os.getpid()}-{len(self.names)}"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [*self._run(settings, name), IMAGE, *args],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.names[process.pid] = name
        return process

    def stop(self, process: subprocess.Popen[bytes]) -> int:
        name = self.names[process.pid]
        run([self.podman, "stop", "--time", "20", name], 40, check=False)
        try:
            return process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            run([self.podman, "rm", "--force", name], 40, check=False)
            return -9

    def health(
        self, server: subprocess.Popen[bytes], settings: Mapping[str, str], log: Path
    ) -> subprocess.Popen[bytes]:
        with log.open("wb") as out:
            return subprocess.Popen(
                [self.podman, "healthcheck", "run", self.names[server.pid]],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )


class Entered(TypedDict):
    """What `--enter` needs to start a command inside the image's root."""

    root: str
    models: str
    uid: int
    gid: int
    groups: list[int]
    workdir: str
    env: dict[str, str]
    argv: list[str]


class Chroot(Runner):
    """The image's filesystem, a container's root mounted read-write, each command under
    chroot(2) in a mount namespace of its own (/dev, /proc and /models bound in it, gone
    with it) as the image's user, on this machine's network."""

    def __init__(self, root: Path, config: ImageConfig, models: Path, why: str) -> None:
        self.root = root
        self.config = config
        self.models = models
        self.how = f"under chroot, on the image's own filesystem ({why})"
        user = config["user"]
        name, _, group = user.partition(":")
        self.uid, self.gid, self.home = self._user(name)
        if group:
            self.gid = int(group) if group.isdigit() else self._group(group)
        self.groups = sorted({self.gid, *self._groups_of(name)})

    def _user(self, name: str) -> tuple[int, int, str]:
        for line in (self.root / "etc" / "passwd").read_text().splitlines():
            fields = line.split(":")
            if len(fields) >= 7 and (fields[0] == name or fields[2] == name):
                return int(fields[2]), int(fields[3]), fields[5]
        if name.isdigit():
            return int(name), int(name), "/"
        raise CheckFailed(f"the image's USER {name!r} is not in its /etc/passwd")

    def _group(self, name: str) -> int:
        for line in (self.root / "etc" / "group").read_text().splitlines():
            fields = line.split(":")
            if len(fields) >= 3 and fields[0] == name:
                return int(fields[2])
        raise CheckFailed(f"the image's group {name!r} is not in its /etc/group")

    def _groups_of(self, name: str) -> list[int]:
        found = []
        for line in (self.root / "etc" / "group").read_text().splitlines():
            fields = line.split(":")
            if len(fields) >= 4 and name in fields[3].split(","):
                found.append(int(fields[2]))
        return found

    def _spawn(
        self, argv: Sequence[str], settings: Mapping[str, str], log: Path
    ) -> subprocess.Popen[bytes]:
        # As a container runtime would: the image's ENV, HOME from its USER, then -e.
        env = {"HOME": self.home, **self.config["env"], **settings}
        spec = Entered(
            root=str(self.root),
            models=str(self.models),
            uid=self.uid,
            gid=self.gid,
            groups=self.groups,
            workdir=self.config["workdir"],
            env=env,
            argv=list(argv),
        )
        unshare = ["unshare", "--mount", "--propagation", "private", "--"]
        with log.open("wb") as out:
            return subprocess.Popen(
                [*unshare, sys.executable, __file__, "--enter", json.dumps(spec)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def start(
        self, args: Sequence[str], settings: Mapping[str, str], log: Path
    ) -> subprocess.Popen[bytes]:
        argv = [*self.config["entrypoint"], *(args or self.config["cmd"])]
        return self._spawn(argv, settings, log)

    def stop(self, process: subprocess.Popen[bytes]) -> int:
        process.terminate()  # unshare and --enter exec: this is the image's process
        try:
            return process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            return -9

    def health(
        self, server: subprocess.Popen[bytes], settings: Mapping[str, str], log: Path
    ) -> subprocess.Popen[bytes]:
        test = self.config["healthcheck"]
        argv = ["/bin/sh", "-c", *test[1:]] if test[:1] == ["CMD-SHELL"] else test[1:]
        return self._spawn(argv, settings, log)


def enter(spec: Entered) -> None:
    """In a new mount namespace, as root: binds what a container has, enters the image's
    root as its user and becomes the command (its PID is the one the check signals)."""
    root = spec["root"]
    for command in (
        ["mount", "--rbind", "/dev", f"{root}/dev"],
        ["mount", "-t", "proc", "proc", f"{root}/proc"],
        ["mount", "--bind", spec["models"], f"{root}/models"],
        ["mount", "-o", "remount,bind,ro", f"{root}/models"],
    ):
        subprocess.run(command, check=True, timeout=30)
    os.chroot(root)
    os.chdir(spec["workdir"])
    os.setgroups(spec["groups"])
    os.setgid(spec["gid"])
    os.setuid(spec["uid"])
    os.execvpe(spec["argv"][0], spec["argv"], spec["env"])


def ulimits() -> list[str]:
    """Limits no higher than this process's own: a runtime asking for more than the
    machine lets it have (podman asks for a million open files) is refused in a sandbox."""

    def capped(limit: int, cap: int) -> int:
        return cap if limit == resource.RLIM_INFINITY else min(limit, cap)

    files = capped(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 65536)
    processes = capped(resource.getrlimit(resource.RLIMIT_NPROC)[0], 4096)
    return [f"--ulimit=nofile={files}:{files}", f"--ulimit=nproc={processes}:{processes}"]


def container_flags(podman: str) -> tuple[list[str] | None, list[str]]:
    """The first `podman run` flags with which a container of the image starts here, and
    why each earlier try did not; None when none does."""
    runtime = run([podman, "info", "--format", "{{.Host.OCIRuntime.Name}}"], 60).stdout.strip()
    tries = [
        (f"{runtime} as is", ["--network=host"]),
        (f"{runtime} within this machine's limits", ["--network=host", *ulimits()]),
    ]
    if runtime != "runc" and shutil.which("runc"):
        # crun refuses a host whose cgroups are half v1, half v2; runc runs there.
        tries.append(("runc", ["--network=host", "--runtime=runc", *ulimits()]))
    refusals: list[str] = []
    for label, flags in tries:
        probe = [podman, "run", "--rm", f"--label={LABEL}=1", *flags, "--entrypoint=true", IMAGE]
        result = run(probe, 120, check=False)
        if result.returncode == 0:
            return flags, refusals
        lines = (result.stderr or result.stdout).strip().splitlines() or ["no output"]
        refusals.append(f"{label}: {lines[-1].removeprefix('Error: ')}")
        say(f"run: no container with `podman run {' '.join(flags)}`: {refusals[-1]}")
    return None, refusals


def free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def http(path: str, body: Mapping[str, Any] | None = None, token: str = "") -> tuple[int, Any]:
    """(status, JSON or text) of a request to the served image."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", data=data, headers=headers)
    try:
        with _http.open(request, timeout=15) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode(errors="replace")


@contextmanager
def serving(
    runner: Runner, settings: Mapping[str, str], log: Path, what: str
) -> Iterator[subprocess.Popen[bytes]]:
    """The image's CMD serving until the block ends, then stopped as a container is; a
    failure to answer /healthz within a minute, or to stop cleanly, is CheckFailed."""
    if not free(PORT):
        raise CheckFailed(
            f"port {PORT} is in use: the image's CMD serves there and the check shares this "
            "machine's network; stop what listens there"
        )
    process = runner.start([], settings, log)
    stopped = False
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise CheckFailed(
                    f"`{what}` exited with {process.returncode} before answering:\n"
                    + tail(log.read_text(errors="replace"))
                )
            try:
                if http("/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise CheckFailed(
                    f"`{what}` did not answer /healthz within 60s:\n"
                    + tail(log.read_text(errors="replace"))
                )
            time.sleep(0.3)
        say(f"serve: /healthz answered 200 ({what})")
        yield process
        code = runner.stop(process)
        stopped = True
        # uvicorn shuts down, then dies of the signal it caught; as a container's PID 1,
        # whose signals without a handler do nothing, it exits 0.
        if code not in (0, -signal.SIGTERM, 128 + signal.SIGTERM):
            raise CheckFailed(
                f"`{what}` exited with {code} on SIGTERM:\n" + tail(log.read_text(errors="replace"))
            )
        say(f"serve: stopped on SIGTERM (exit {code})")
    finally:
        if not stopped:
            runner.stop(process)


def graphql(document: str, token: str) -> dict[str, Any]:
    """The data of `document`, or CheckFailed with the whole answer."""
    status, answer = http("/graphql", {"query": document}, token)
    if (
        status != 200
        or not isinstance(answer, dict)
        or answer.get("errors")
        or not answer.get("data")
    ):
        raise CheckFailed(f"{document} was answered {status}: {answer}")
    data: dict[str, Any] = answer["data"]
    return data


def healthcheck(
    runner: Runner, server: subprocess.Popen[bytes], settings: Mapping[str, str], log: Path
) -> None:
    process = runner.health(server, settings, log)
    try:
        code = process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise CheckFailed("the image's HEALTHCHECK did not finish within 60s") from None
    if code != 0:
        raise CheckFailed(
            f"the image's HEALTHCHECK failed ({code}):\n" + tail(log.read_text(errors="replace"))
        )
    say("serve: the image's HEALTHCHECK passed")


def exercise(runner: Runner, endpoint: str, work: Path) -> None:
    """What a user does with the image: the table made and seeded, checked, served and
    asked; then a model of one's own mounted and served."""
    demo = {
        "DYNAGATE_DYNAMODB_ENDPOINT": endpoint,
        "DYNAGATE_TABLE": "image-check-demo",
        "AWS_REGION": "us-east-1",
        # Production, as the image says: a cursor secret and an identity are required.
        "DYNAGATE_CURSOR_SECRET": secrets.token_hex(32),
        "DYNAGATE_AUTH_SECRET": secrets.token_hex(32),
    }
    logs = work / "logs"
    logs.mkdir()
    for args, timeout in ((["create-table"], 120.0), (["seed"], 600.0)):
        runner.run(args, demo, logs / f"{args[0]}.log", timeout)
        say(f"run: dynagate {' '.join(args)}: ok")
    checked = runner.run(["check"], demo, logs / "check.log", 120)
    say(f"run: dynagate check: {checked.strip().splitlines()[-1]}")
    printed = runner.run(["token", "--sub", "image-check", "--admin"], demo, logs / "token.log", 60)
    token = printed.strip().splitlines()[-1]
    with serving(runner, demo, logs / "serve.log", "dynagate serve (the image's CMD)") as server:
        data = graphql(
            '{ customer(id: "customer-001") { name orders(first: 2) { edges { node { id } } } } }',
            token,
        )
        customer = data.get("customer") or {}
        if not customer.get("name") or not customer["orders"]["edges"]:
            raise CheckFailed(f"the seeded customer was not found: {data}")
        say(f"serve: a GraphQL query answered: customer-001 is {customer['name']!r}")
        healthcheck(runner, server, demo, logs / "healthcheck.log")
    mounted = {
        **demo,
        "DYNAGATE_TABLE": "image-check-library",
        "DYNAGATE_MODEL": f"/models/{MODEL_FILE.name}",
    }
    runner.run(["create-table"], mounted, logs / "create-table-model.log", 120)
    say(f"run: dynagate create-table with DYNAGATE_MODEL=/models/{MODEL_FILE.name}: ok")
    with serving(
        runner, mounted, logs / "serve-model.log", f"dynagate serve of /models/{MODEL_FILE.name}"
    ):
        made = graphql(
            'mutation { createShelf(input: {id: "checked", label: "From the image"}) { id } }',
            token,
        )
        read = graphql('{ shelf(id: "checked") { id label } }', token)
        if made != {"createShelf": {"id": "checked"}} or read != {
            "shelf": {"id": "checked", "label": "From the image"}
        }:
            raise CheckFailed(
                f"the mounted model's shelf was not written and read back: {made} {read}"
            )
        say("serve: the mounted model's createShelf written and its shelf read back")


def remove_leftovers(podman: str) -> None:
    """Containers an interrupted check left behind."""
    found = run([podman, "ps", "--all", "--quiet", f"--filter=label={LABEL}"], 60, check=False)
    for container in found.stdout.split():
        run([podman, "rm", "--force", container], 60, check=False)


def check(dockerfile: Path, chroot: bool) -> str:
    """How the image ran, once everything passed; CheckFailed else."""
    # Imported here: `--enter` needs the standard library alone.
    from gateway.cli.dynamodb_local import DynamoDBLocal, DynamoDBLocalError

    if os.geteuid() != 0:
        raise CheckFailed("make image-check runs as root (debootstrap, mounts): run it with sudo")
    podman = shutil.which("podman")
    if podman is None:
        raise CheckFailed("podman is missing: install Debian's podman buildah crun runc uidmap")
    with ExitStack() as cleanup:
        work = Path(tempfile.mkdtemp(prefix="dynagate-image-check-"))
        cleanup.callback(remove_tree, work)
        remove_leftovers(podman)
        cleanup.callback(remove_leftovers, podman)
        build(podman, base_image(podman, work), dockerfile, work)
        config, size = image_config(podman)
        runs = " ".join(config["entrypoint"] + config["cmd"])
        say(f"image: {IMAGE}, {size / 1e6:.0f} MB; runs `{runs}` as {config['user']!r}")
        if not config["healthcheck"]:
            raise CheckFailed("the image has no HEALTHCHECK (built without --format docker?)")
        models = work / "models"
        models.mkdir()
        shutil.copy(MODEL_FILE, models / MODEL_FILE.name)
        for path in (work, models, models / MODEL_FILE.name):  # readable by the image's user
            path.chmod(0o755)
        flags, refusals = (None, []) if chroot else container_flags(podman)
        runner: Runner
        if flags is not None:
            why = f"; refused before: {'; '.join(refusals)}" if refusals else ""
            runner = Containers(podman, flags, models, why)
        else:
            container = run([podman, "create", f"--label={LABEL}=1", IMAGE], 60).stdout.strip()
            cleanup.callback(run, [podman, "rm", "--force", container], 60, check=False)
            root = Path(run([podman, "mount", container], 60).stdout.strip())
            cleanup.callback(run, [podman, "umount", container], 60, check=False)
            (root / "models").mkdir(exist_ok=True)
            why = f"no container starts here: {'; '.join(refusals)}" if refusals else "--chroot"
            runner = Chroot(root, config, models, why)
        say(f"run: the image runs {runner.how}")
        try:
            local = cleanup.enter_context(DynamoDBLocal())
        except DynamoDBLocalError as error:
            raise CheckFailed(str(error)) from None
        say(f"run: DynamoDB Local at {local.endpoint}")
        exercise(runner, local.endpoint, work)
        return runner.how


def main(argv: Sequence[str]) -> int:
    if argv[:1] == ["--enter"]:
        enter(json.loads(argv[1]))
        return 0  # not reached: enter() becomes the command
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument(
        "--dockerfile",
        type=Path,
        default=ROOT / "Dockerfile",
        help="the Dockerfile to build (default: the project's)",
    )
    parser.add_argument(
        "--chroot",
        action="store_true",
        help="run the image's filesystem under chroot even where containers start",
    )
    args = parser.parse_args(argv)

    # A stop from outside unwinds like an error: containers, mounts and DynamoDB Local go.
    def stopped(*_: object) -> None:
        say("stopped from outside (SIGTERM): cleaning up")
        sys.exit(143)

    signal.signal(signal.SIGTERM, stopped)
    try:
        how = check(args.dockerfile.resolve(), args.chroot)
    except CheckFailed as failure:
        say(f"FAILED: {failure}")
        return 1
    say(f"passed in {time.monotonic() - STARTED:.0f}s: the image built and ran {how}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
