"""Fixtures several resolver test modules share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.client import Api
from tests.identity import open_mode
from tests.resolvers.bad_input_helpers import World, make_world


@pytest.fixture
async def world(api: Api, client: Any, table: str) -> World:
    """Repositories, organizations and queues to refuse bad input about (bad_input_helpers)."""
    return await make_world(api, client, table)


@pytest.fixture
async def opened(api: Api) -> AsyncIterator[Api]:
    """A gateway with identity off over the same table (what open mode wrote)."""
    async with open_mode(api) as running:
        yield running
