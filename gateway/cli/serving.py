"""`dynagate serve`: the application under uvicorn, in one process or several on one port
(docs/subscriptions.md#several-replicas), each told what they must share."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from gateway.cli.errors import CommandFailed
from gateway.http.app import create_app
from gateway.logs import logging_config
from gateway.metrics import MULTIPROCESS_DIR
from gateway.readiness import layout_refusal
from gateway.served_model import declared
from gateway.settings import Settings, SettingsError

# Without Redis each worker reads the table's stream, which DynamoDB allows two readers of.
STREAM_READERS = 2
MAX_WORKERS = 64
# On SIGTERM, requests under way get this long, then the process stops anyway.
SHUTDOWN_SECONDS = 10


def serve(host: str, port: int, workers: int) -> int:
    """`dynagate serve`: the app under uvicorn, in `workers` processes on one port; never
    on a table laid out otherwise than the model declares."""
    settings = Settings.from_env()
    refused = asyncio.run(layout_refusal(settings, declared(settings.model).table_layout))
    if refused is not None:
        raise CommandFailed(refused)
    if not 1 <= workers <= MAX_WORKERS:
        raise SettingsError(f"--workers {workers}: use 1 to {MAX_WORKERS}")
    if workers > STREAM_READERS and settings.redis_url is None:
        raise SettingsError(
            f"--workers {workers} needs DYNAGATE_REDIS_URL: without it each process reads "
            f"the table's stream itself, and DynamoDB allows {STREAM_READERS} readers per shard"
        )
    if workers > 1 and settings.cache and settings.redis_url is None:
        raise SettingsError(
            f"--workers {workers} with DYNAGATE_CACHE=on needs DYNAGATE_REDIS_URL: each"
            " worker's read cache must hear of the others' writes before they are answered"
            " (docs/cache.md#several-replicas)"
        )
    # `main` has configured logging, uvicorn's loggers included: no log_config, so uvicorn
    # keeps it, and no access log, so the request log is the one line per request.
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_config": None,
        "access_log": False,
        # A WebSocket message is held to the size of a request body.
        "ws_max_size": settings.max_body_bytes,
        # On SIGTERM, requests under way get this long, then the process stops anyway.
        "timeout_graceful_shutdown": SHUTDOWN_SECONDS,
    }
    if workers == 1:
        uvicorn.run(create_app(settings), **options)
        return 0
    with _worker_environment(settings):
        # Each worker is a fresh process: it configures logging as `main` did here.
        options["log_config"] = logging_config()
        uvicorn.run("gateway.http.app:create_app", factory=True, workers=workers, **options)
    return 0


@contextmanager
def _worker_environment(settings: Settings) -> Iterator[None]:
    """What every worker process must share, in the environment they start with: the
    cursor secret (a cursor one worker signs, another reads), and the directory where
    each writes its metrics for /metrics to sum."""
    with tempfile.TemporaryDirectory(prefix="dynagate-metrics-") as directory:
        os.environ["DYNAGATE_CURSOR_SECRET"] = settings.cursor_secret.decode()
        os.environ[MULTIPROCESS_DIR] = directory
        yield
