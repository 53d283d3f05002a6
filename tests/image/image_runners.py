"""How `make image-check` runs the image as a user does: in a container where one starts,
else on the image's own filesystem under chroot(2) as its user."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from tests.image.image_common import CHECK, IMAGE, LABEL, ROOT, CheckFailed, run, say, tail


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
                [*unshare, sys.executable, "-m", CHECK, "--enter", json.dumps(spec)],
                cwd=ROOT,
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
