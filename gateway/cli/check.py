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

from redis.exceptions import RedisError

from gateway.readiness import fix, not_ready
from gateway.runtime import redis_client
from gateway.served_model import declared
from gateway.setting_table import SETTINGS
from gateway.settings import Settings
from store.tables import STREAM, describe, differing_indexes, missing_indexes

# The most each check may take: a wrong address must not hang the command.
CHECK_SECONDS = 5.0


def settings_in_force(env: Mapping[str, str]) -> list[str]:
    """Each setting, its value as shown to people (secrets never), and where it came from."""
    lines = []
    for setting in SETTINGS:
        value = env.get(setting.name)
        if value is None:
            lines.append(f"  {setting.name} = {setting.default}  (default)")
        else:
            lines.append(f"  {setting.name} = {setting.shown(value)}  (environment)")
    return lines


async def problems(settings: Settings) -> list[str]:
    """What stands between these settings and serving, each with its fix."""
    found: list[str] = []
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
    indexes = declared(settings.model).indexes
    for index in missing_indexes(description, indexes):
        found.append(
            f"table {settings.table!r} lacks the index {index.name} that the model reads:"
            " run `dynagate migrate apply`"
        )
    for name in differing_indexes(description, indexes):
        found.append(f"the index {name} has other keys than the model's: see docs/model.md")
    stream = description.get("StreamSpecification") or {}
    if not stream.get("StreamEnabled"):
        found.append(
            f"table {settings.table!r} has no stream: subscriptions hear of nothing and the"
            " read cache answers nothing; `dynagate create-table` turns it on"
        )
    elif stream.get("StreamViewType") != STREAM["StreamViewType"]:
        found.append(
            f"the table's stream keeps {stream.get('StreamViewType')}, not new and old"
            " images: subscriptions and the read cache need both"
        )
    found += await _redis_problems(settings)
    return found


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
        )
        return 0
    for problem in found:
        print(f"problem: {problem}")
    return 1
