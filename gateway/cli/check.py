"""`dynagate check`: is this configuration right, before it serves traffic? It reads the
settings as `serve` does, prints each one in force and where it came from, then tries
DynamoDB, the table (its indexes as the model reads them), its stream and Redis, and prints
one line per problem with its fix. Exit 0 when there is none, 1 otherwise (a setting that
cannot be read at all is `main`'s exit 2, as for every command)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.parse import unquote
from urllib.request import Request, urlopen

from redis.exceptions import RedisError

from gateway.readiness import fix, not_ready
from gateway.runtime import redis_client
from gateway.served_model import declared, served
from gateway.setting_table import SETTINGS
from gateway.setting_values import traces_exporter
from gateway.settings import Settings
from store.tables import describe, layout_differences, stream_problem

_FIX_COLLECTOR = "check OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over HTTP, port 4318) and its headers"
# The most each check may take: a wrong address must not hang the command.
CHECK_SECONDS = 5.0


def settings_in_force(env: Mapping[str, str]) -> list[str]:
    """Each setting, its value as shown to people (secrets never), and where it came from;
    then OpenTelemetry's that are set (docs/tracing.md)."""
    lines = []
    for setting in SETTINGS:
        value = env.get(setting.name)
        if value is None:
            lines.append(f"  {setting.name} = {setting.default_text}  (default)")
        else:
            lines.append(f"  {setting.name} = {setting.shown(value)}  (environment)")
    for name in sorted(n for n in env if n.startswith("OTEL_")):
        # Headers carry the keys of hosted collectors.
        shown = "(hidden)" if "HEADERS" in name else repr(env[name])
        lines.append(f"  {name} = {shown}  (environment)")
    traces = traces_exporter(env)
    lines.append(
        f"  traces: {'off (no OTEL_* setting asks for them)' if traces is None else traces}"
    )
    return lines


async def problems(settings: Settings) -> list[str]:
    """What stands between these settings and serving, each with its fix."""
    found: list[str] = []
    # The model first, as `serve` loads it: one that cannot be served is main's exit 2.
    served(settings.model)
    layout = declared(settings.model).table_layout
    async with settings.open_client() as client:
        problem = await not_ready(client, settings.table)
        if problem is not None:
            where = settings.endpoint or f"AWS ({settings.region})"
            return [
                f"DynamoDB at {where}, table {settings.table!r}: {problem.reason}: "
                f"{fix(problem, settings)}"
            ]
        async with asyncio.timeout(CHECK_SECONDS):
            description: dict[str, Any] = await describe(client, settings.table) or {}
    for difference in layout_differences(description, layout):
        found.append(f"table {settings.table!r}: {difference} (docs/model.md)")
    stream = stream_problem(description)
    if stream is not None:
        found.append(
            f"table {settings.table!r}: {stream}, so subscriptions, the read cache and the"
            " news of persisted documents are off; `dynagate create-table --enable-stream`"
            " turns a missing stream on"
        )
    found += await _redis_problems(settings)
    if settings.traces == "otlp":
        found += await asyncio.to_thread(_collector_problems, os.environ)
    return found


def _collector_problems(env: Mapping[str, str]) -> list[str]:
    """An empty export sent where traces would go: a collector takes it with a 2xx."""
    url = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if not url:
        base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip() or "http://localhost:4318"
        url = base.rstrip("/") + "/v1/traces"
    headers = {"Content-Type": "application/x-protobuf"}
    given = env.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") or env.get("OTEL_EXPORTER_OTLP_HEADERS")
    for pair in (given or "").split(","):
        name, _, value = pair.partition("=")
        if name.strip() and value:
            headers[unquote(name.strip())] = unquote(value.strip())
    request = Request(url, data=b"", headers=headers, method="POST")
    try:
        with urlopen(request, timeout=CHECK_SECONDS) as answer:
            answer.read()
    except HTTPError as exc:
        return [f"the OTLP endpoint {url} refuses traces (HTTP {exc.code}): {_FIX_COLLECTOR}"]
    except (URLError, OSError, ValueError) as exc:
        return [f"the OTLP endpoint {url} does not answer ({exc}): {_FIX_COLLECTOR}"]
    return []


async def _redis_problems(settings: Settings) -> list[str]:
    redis = redis_client(settings)
    if redis is None:
        return []
    try:
        async with asyncio.timeout(CHECK_SECONDS):
            await redis.ping()
    except (RedisError, OSError, TimeoutError) as exc:
        return [
            f"Redis at DYNAGATE_REDIS_URL does not answer ({type(exc).__name__}): check"
            " its address, port and password"
        ]
    finally:
        await redis.aclose()
    return []


def check() -> int:
    """`dynagate check`."""
    settings = Settings.from_env()
    print("settings in force:")
    print("\n".join(settings_in_force(os.environ)))
    found = asyncio.run(problems(settings))
    if not found:
        print(
            "ok: DynamoDB answers, the table is ready with its indexes and stream"
            + (", Redis answers" if settings.redis_url else "")
            + (", the OTLP endpoint takes traces" if settings.traces == "otlp" else "")
        )
        return 0
    for problem in found:
        print(f"problem: {problem}")
    return 1
