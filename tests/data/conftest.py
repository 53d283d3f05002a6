"""Fixtures of the access pattern tests, which call the patterns straight, with no gateway."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from store.client import Store
from store.tables import describe
from tests.conftest import new_table


@pytest.fixture
def store(client: Any, table: str) -> Store:
    """A store over the test's own table, its cost report starting at zero."""
    return Store(client, table)


@pytest.fixture
async def old_table(client: Any) -> AsyncIterator[str]:
    """A table as the older model made it: GSI1 and GSI2 only."""
    async with new_table(client, "migrate") as name:
        await client.update_table(
            TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "GSI3"}}]
        )
        for _ in range(100):  # until DynamoDB has deleted it
            indexes = (await describe(client, name) or {}).get("GlobalSecondaryIndexes", [])
            if [i["IndexName"] for i in indexes] == ["GSI1", "GSI2"]:
                break
            await asyncio.sleep(0.1)
        yield name
