"""Persisted documents behind deploy/nginx.conf (docs/http.md#persisted-documents): two
replicas sharing Redis and the table, nginx in front spreading requests over both, as
docker-compose.yml deploys them (here without a container engine). Apollo Client's automatic
persisted queries (tests/clients/apq.mjs) answer through it as they answer on one gateway:
a client's first request may find a hash missing on one replica while its document is
registered on the other, and the next client's hash alone is answered wherever it lands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.client import settings_for
from tests.client_libraries import client_cases
from tests.live import replicas_served
from tests.nginx import Nginx
from tests.redis_server import RedisServer

pytestmark = pytest.mark.streamed
RUN_SECONDS = 120


async def apq(url: str) -> list[dict[str, Any]]:
    """Apollo's persisted-query cases run with Node against the gateway at `url`: one
    result per case, {name, ok, detail}."""
    results, _, err = await client_cases("apq.mjs", url + "/graphql", seconds=RUN_SECONDS)
    assert len(results) >= 15, err
    return results


async def test_apollos_persisted_queries_answer_behind_nginx_as_on_one_gateway(
    endpoint: str, table: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    # Compose's settings that matter here: Redis shared, the read cache on.
    settings = settings_for(endpoint, table, redis_url=redis_server.url, cache=True)
    async with replicas_served(settings) as (first, second):
        alone = await apq(first.url)
        with Nginx(tmp_path, [first.port, second.port]) as nginx:
            balanced = await apq(nginx.url)
    assert [f"{r['name']}: {r['detail']}" for r in alone if not r["ok"]] == []
    failed = [f"{r['name']}: {r['detail']}" for r in balanced if not r["ok"]]
    assert failed == [], "\n".join(failed)
    # The same requests and answers, case by case, as on one gateway.
    assert [(r["name"], r["detail"]) for r in balanced] == [(r["name"], r["detail"]) for r in alone]
