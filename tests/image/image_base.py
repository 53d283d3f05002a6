"""The base `make image-check` builds on (Debian bookworm's Python 3.11, made by debootstrap
and cached by what it holds), and the image built on it from the real Dockerfile."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.image.image_common import (
    BASE,
    DEFAULT_MIRROR,
    IMAGE,
    LOCAL_CAS,
    PACKAGES,
    RECIPE,
    ROOT,
    SUITE,
    VARIANT,
    CheckFailed,
    cache_dir,
    digest,
    run,
    say,
    streamed,
)


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
