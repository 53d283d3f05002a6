"""The lean floor: the aioboto3 floor's endpoint (`bench.floor.endpoint`) with the store's
own data path: the client opened as the store opens it (`Settings.open_client`, so every
faster path of the store's client is in), items decoded by the store's decoder
(`store.requests.from_attributes`) and answered with orjson, as the gateway answers.

Between this floor and the gateway lies only the gateway's own work: GraphQL, validation,
bounds, identity, cursors and shaping. Serve it with `uvicorn bench.floor_lean:create_app
--factory`, with `DYNAGATE_FLOOR_CALLS` and the gateway's settings
(`DYNAGATE_DYNAMODB_ENDPOINT`, `DYNAGATE_TABLE`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette

from bench.floor import endpoint, raw_items
from gateway.settings import Settings
from store.requests import from_attributes


def answer(responses: Sequence[Mapping[str, Any]]) -> bytes:
    """The items of each call, decoded by the store and encoded by orjson."""
    return orjson.dumps(
        {"data": [[from_attributes(item) for item in raw_items(r)] for r in responses]}
    )


def create_app(settings: Settings | None = None, calls_file: Path | None = None) -> Starlette:
    settings = Settings.from_env() if settings is None else settings
    return endpoint(settings.open_client, answer, calls_file)
