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
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from tests.image.image_base import base_image, build, remove_tree
from tests.image.image_common import (
    DIRECT,
    IMAGE,
    LABEL,
    MODEL_FILE,
    PORT,
    ROOT,
    STARTED,
    CheckFailed,
    run,
    say,
    tail,
)
from tests.image.image_runners import (
    Chroot,
    Containers,
    Runner,
    container_flags,
    enter,
    image_config,
)


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
        with DIRECT.open(request, timeout=15) as response:
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
