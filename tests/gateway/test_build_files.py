"""The files around the code: the image, the compose file, and `make clean`."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gateway.cli.serving import SHUTDOWN_SECONDS
from gateway.runtime import STOP_SECONDS
from gateway.settings import Settings, SettingsError

ROOT = Path(__file__).resolve().parents[2]
# Ignored by git, yet no build output: benchmark measurements, kept until `make bench`
# measures again.
KEPT = {"bench/results/"}
# What the tools make that .gitignore does not name.
ALSO_MADE = {".import_linter_cache/"}
# Python writes these beside every package; the other outputs are made at the root.
NESTED = {"__pycache__/"}


def _published_ports(compose: str) -> list[str]:
    """Each entry of every `ports:` list (short syntax), as written."""
    ports: list[str] = []
    indent: int | None = None
    for line in compose.splitlines():
        text = line.split(" #", 1)[0].rstrip()
        depth = len(text) - len(text.lstrip())
        if text.strip() == "ports:":
            indent = depth
        elif indent is not None and text.strip() and depth > indent:
            entry = text.strip()
            assert entry.startswith("- "), f"not a short-syntax port: {line!r}"
            ports.append(entry[2:].strip().strip("\"'"))
        elif text.strip():
            indent = None
    return ports


def test_compose_publishes_ports_on_loopback_only() -> None:
    compose = (ROOT / "docker-compose.yml").read_text()
    ports = _published_ports(compose)
    assert ports, "the gateway's port is published"
    for port in ports:
        assert port.startswith("127.0.0.1:"), port
    assert "network_mode" not in compose


def test_the_port_reader_sees_every_form() -> None:
    compose = 'a:\n  ports:\n    - "8000:8000"\n    - 127.0.0.1:1:1  # x\n  image: y\nports: z\n'
    assert _published_ports(compose) == ["8000:8000", "127.0.0.1:1:1"]


def _images(dockerfile: str) -> list[str]:
    """The base image of each FROM, with the ARGs declared before the first FROM filled
    in; a FROM naming an earlier stage is none."""
    args: dict[str, str] = {}
    stages: set[str] = set()
    images: list[str] = []
    for line in dockerfile.splitlines():
        instruction, *words = line.split() or [""]
        if instruction.upper() == "ARG" and not images:
            name, _, default = words[0].partition("=")
            args[name] = default
        elif instruction.upper() == "FROM":
            words = [w for w in words if not w.startswith("--")]  # --platform=…
            image = re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), ""), words[0])
            if len(words) == 3 and words[1].upper() == "AS":
                stages.add(words[2])
            if words[0] not in stages:
                images.append(image)
    return images


def test_every_base_image_is_pinned_by_digest() -> None:
    images = _images((ROOT / "Dockerfile").read_text())
    assert len(images) == 2, images  # build and runtime stages
    for image in images:
        assert re.fullmatch(r"[\w./:-]+@sha256:[0-9a-f]{64}", image), image


def _made_by_the_build() -> list[str]:
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    patterns = {line.strip() for line in ignored if line.strip() and not line.startswith("#")}
    return sorted((patterns - KEPT) | ALSO_MADE)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_clean_removes_what_the_build_made(tmp_path: Path) -> None:
    shutil.copy(ROOT / "Makefile", tmp_path)
    made: list[Path] = []
    for pattern in _made_by_the_build():
        name = pattern.rstrip("/").replace("*", "dynagate")
        places = [name, f"gateway/{name}", f"tests/gateway/{name}"] if pattern in NESTED else [name]
        for place in places:
            path = tmp_path / place
            if pattern.endswith("/"):
                path.mkdir(parents=True, exist_ok=True)
                path = path / "made"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("")
            made.append(path)
    kept = [tmp_path / "gateway" / "app.py", tmp_path / "bench" / "results" / "speed.json"]
    for path in kept:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    result = subprocess.run(
        ["make", "clean"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    left = [str(path.relative_to(tmp_path)) for path in made if path.exists()]
    assert left == []
    assert all(path.exists() for path in kept)


def test_compose_runs_two_replicas_behind_one_port_sharing_redis() -> None:
    compose = (ROOT / "docker-compose.yml").read_text()
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "  gateway-1: &gateway\n" in compose and "  gateway-2: *gateway\n" in compose
    assert "DYNAGATE_REDIS_URL: redis://redis:6379/0" in compose
    # One secret for both, so a cursor one signs the other reads.
    assert re.search(r"DYNAGATE_CURSOR_SECRET: \$\{DYNAGATE_CURSOR_SECRET:-\S+\}", compose)
    assert "./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in compose
    assert re.findall(r"server (gateway-\d):8000;", nginx) == ["gateway-1", "gateway-2"]
    # Subscriptions: the WebSocket upgrade is passed on.
    assert "proxy_set_header Upgrade $http_upgrade;" in nginx
    # Each client by the address nginx saw, never by a header the client sent.
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in nginx


def test_compose_checks_readiness_and_gives_shutdown_its_time() -> None:
    compose = (ROOT / "docker-compose.yml").read_text()
    replica = compose.split("  gateway-1: &gateway\n", 1)[1].split("\n\n", 1)[0]
    assert "http://127.0.0.1:8000/readyz" in replica
    grace = re.search(r"stop_grace_period: (\d+)s", replica)
    assert grace is not None
    # Requests under way, then each step of stopping (`gateway/runtime.py`), with room.
    assert int(grace.group(1)) > SHUTDOWN_SECONDS + 2 * STOP_SECONDS
    proxy = compose.split("  gateway:\n", 1)[1]
    assert proxy.count("condition: service_healthy") == 2


def _compose_gateway_env(compose: str, shell: dict[str, str]) -> dict[str, str]:
    """The gateway's environment as compose makes it from `shell`: `${NAME:-default}`
    resolved, a name without a value passed on only when the shell sets it."""
    block = compose.split("x-gateway-env: &gateway-env\n", 1)[1].split("\n\n", 1)[0]
    env: dict[str, str] = {}
    for line in block.splitlines():
        match = re.fullmatch(r"  ([A-Z_]+):(?: (.*))?", line)
        if match is None:
            continue
        name, value = match.groups()
        if value is None:
            if name in shell:
                env[name] = shell[name]
            continue
        value = value.strip('"')
        env[name] = re.sub(
            r"\$\{(\w+):-([^}]*)\}", lambda m: shell.get(m.group(1)) or m.group(2), value
        )
    return env


def test_compose_says_development_and_its_settings_start() -> None:
    compose = (ROOT / "docker-compose.yml").read_text()
    env = _compose_gateway_env(compose, shell={})
    # No setting is passed empty: an empty value is an error, not the default.
    assert all(value for value in env.values()), env
    settings = Settings.from_env(env)
    assert settings.development and settings.open_mode
    assert settings.redis_url == "redis://redis:6379/0"
    secret = "x" * 40
    signed = _compose_gateway_env(compose, shell={"DYNAGATE_AUTH_SECRET": secret})
    assert Settings.from_env(signed).auth_secret == secret.encode()


def test_the_image_says_production() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    env = dict(re.findall(r"\b(DYNAGATE_[A-Z_]+)=(\S+)", dockerfile))
    assert env == {"DYNAGATE_ENV": "production"}
    # So a container pointed at any endpoint, a compose service name included, refuses to
    # start without a cursor secret and an identity.
    with pytest.raises(SettingsError, match="required in production"):
        Settings.from_env({**env, "DYNAGATE_DYNAMODB_ENDPOINT": "http://dynamodb:8000"})
